// Package cmd is chatseq's command line: thin cobra commands over the
// bench, history, checker and report packages.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/internal/termsafe"
	"github.com/chatseq/chatseq/internal/timings"
	"github.com/spf13/cobra"

	// Every design chatseq drives registers itself.
	_ "github.com/chatseq/chatseq/targets/all"
)

// Exit codes shared by every command.
const (
	ExitOK        = 0
	ExitViolation = 1
	ExitBadInput  = 2
	ExitUnknown   = 3
	// ExitThresholds is reserved for runs whose only failures are
	// latency or rate thresholds.
	ExitThresholds = 4
	// ExitRunError: the run itself could not be carried out (a server
	// would not start, a file could not be written).
	ExitRunError = 5
)

// usageError marks bad flags, arguments or input files: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitError carries a verdict's exit code without an error message.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// NewRoot builds the command tree writing to out and errOut.
func NewRoot(out, errOut io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "chatseq",
		Short: "Load generator and correctness checker for per-chat message sequencing",
		Long: `chatseq drives a per-chat message sequencer (ADR-004: DynamoDB atomic counters,
idempotency keys, Kafka publish) with concurrent writers, injected crashes and
duplicate retries, records a history, and checks its invariants.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("chatseq {{.Version}}\n")
	root.SetOut(out)
	root.SetErr(errOut)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newBenchCommand(), newCheckCommand(), newRunCommand())
	root.AddCommand(newSetupCommand(), newTeardownCommand(), newRecoverCommand(), newDrillCommand())
	root.AddCommand(newReportCommand(), newCompareCommand(), newServeCommand(), newDynamoDBLocalCommand(), newAlertsCommand())
	applyHelp(root)
	return root
}

// Execute runs the command line and returns the process exit code.
func Execute(args []string, out, errOut io.Writer) int {
	// Standard output carries what services answered (ids, codes, keys):
	// their control characters are shown escaped, never obeyed. Standard
	// error is left alone: the progress line redraws itself with them.
	written := &countingWriter{w: termsafe.Writer(out)}
	root := NewRoot(written, errOut)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var exit exitError
	if errors.As(err, &exit) {
		return exit.code
	}
	// An error may quote a --dsn or a --serve command: never its password.
	msg := redact.Text(err.Error())
	fmt.Fprintln(errOut, "chatseq:", termsafe.Text(msg))
	code := ExitRunError
	var usage usageError
	if errors.As(err, &usage) || isCobraUsage(err) {
		code = ExitBadInput
	}
	if written.n == 0 && asksForJSON(root, args) {
		writeJSONError(out, msg, code)
	}
	return code
}

// isCobraUsage recognises argument errors cobra raises itself (unknown
// command, wrong argument count).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// Main is the binary's entry point.
func Main() {
	rc := runProcess(os.Args[1:], os.Stdout, os.Stderr)
	timings.Since("process: start → exit", timings.Start)
	os.Exit(rc)
}

// runProcess is Execute with what only a whole process should do first:
// setting the runtime's memory limit.
func runProcess(args []string, out, errOut io.Writer) int {
	if _, err := limitMemory(); err != nil {
		fmt.Fprintln(errOut, "chatseq:", err)
		return ExitBadInput
	}
	stop, err := startProfile()
	if err != nil {
		fmt.Fprintln(errOut, "chatseq:", err)
		return ExitBadInput
	}
	defer stop()
	return Execute(args, out, errOut)
}
