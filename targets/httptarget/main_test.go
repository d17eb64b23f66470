package httptarget_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/serve"
)

// serveEnv, when set, makes this test binary chatseq serve: the
// serve.Options in it, as JSON. The nemesis tests start it with --serve
// and kill it, as a user's 'chatseq serve' would be.
const serveEnv = "CHATSEQ_TEST_SERVE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(serveEnv); spec != "" {
		os.Exit(serveFromEnv(spec))
	}
	if spec := os.Getenv(loadgenEnv); spec != "" {
		os.Exit(loadFromEnv(spec))
	}
	os.Exit(m.Run())
}

func serveFromEnv(spec string) int {
	var o serve.Options
	if err := json.Unmarshal([]byte(spec), &o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// As chatseq serve does: bench --serve asks for the test hooks.
	o.TestHooks = o.TestHooks || httpapi.TestHooksAsked()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	s, err := serve.Start(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 5
	}
	fmt.Println(httpapi.ListeningLine(s.Describe, s.Addr, s.Volatile))
	if err := s.Wait(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return 0
}
