package cmd

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/scenarios"
)

// reproduceCommand is the command line that reproduces c's run: its path and
// every flag given, each value as the flag holds it (so a path typed
// relative stays relative), quoted for a shell. Credentials are masked
// (redact.Flag): the line lands in results.json and report.html, which are
// shared.
func reproduceCommand(c *cobra.Command) string {
	parts := strings.Fields(c.CommandPath())
	c.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "force" {
			return // not a setting of the run: a rerun must not replace its results unasked
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			if f.Value.Type() == "bool" && v == "true" {
				parts = append(parts, "--"+f.Name)
				continue
			}
			parts = append(parts, scenarios.ShellQuote("--"+f.Name+"="+redact.Flag(f.Name, v)))
		}
	})
	return strings.Join(parts, " ")
}
