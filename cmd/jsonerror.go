package cmd

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

// countingWriter counts what a command wrote to stdout.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Fd is the descriptor of the file written to, so that text is still
// fitted to a terminal's width (report.TerminalWidth); an impossible one
// when it writes elsewhere.
func (c *countingWriter) Fd() uintptr {
	if f, ok := c.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// asksForJSON reports whether the command args ran was given --format json.
func asksForJSON(root *cobra.Command, args []string) bool {
	c, _, err := root.Find(args)
	if err != nil {
		return false
	}
	f := c.Flags().Lookup("format")
	return f != nil && f.Value.String() == "json"
}

// jsonError is what --format json prints on stdout when the command ended
// in an error before printing its own JSON: a script reading stdout gets
// a JSON value either way.
type jsonError struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}

// msg is the error as stderr shows it, credentials redacted.
func writeJSONError(out io.Writer, msg string, code int) {
	b, _ := json.MarshalIndent(jsonError{Error: msg, ExitCode: code}, "", "  ")
	_, _ = out.Write(append(b, '\n'))
}
