package scenarios_test

import (
	"os"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/cmd"
	"github.com/chatseq/chatseq/scenarios"
)

// TestMain lets this test binary be chatseq (scenarios.ServeTestEnv's
// arguments, one a line) for the scenarios that serve their design in a
// process of their own (serve: true), as chatseq run's binary is.
func TestMain(m *testing.M) {
	if args := os.Getenv(scenarios.ServeTestEnv); args != "" {
		os.Exit(cmd.Execute(strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
