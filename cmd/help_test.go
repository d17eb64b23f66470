package cmd

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/internal/textwidth"
)

// Every command's help has an Examples section, and no line of it (flag
// texts included) runs past 80 columns off a terminal.
func TestEveryCommandHasExamplesAndFitsItsHelp(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" || c.Hidden {
			return // cobra's own
		}
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "chatseq")), "--help")
		code, out, errOut := run(t, args...)
		if code != ExitOK {
			t.Fatalf("%s --help: exit %d: %s", c.CommandPath(), code, errOut)
		}
		if !strings.Contains(out, "\nExamples:\n  chatseq ") {
			t.Errorf("%s --help has no Examples section (add one in cmd/examples.go)", c.CommandPath())
		}
		for _, line := range strings.Split(out, "\n") {
			if textwidth.Columns(line) > 80 {
				t.Errorf("%s --help: a %d-column line: %q", c.CommandPath(), textwidth.Columns(line), line)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(io.Discard, io.Discard))
}
