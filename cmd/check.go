package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/report"
)

type checkFlags struct {
	format string
	// over holds the contract flags, one a history.ContractFields row.
	over      history.Contract
	lin       linFlags
	visualize string
	// soleWriter is --sole-writer, used only when given.
	soleWriter bool
}

func newCheckCommand() *cobra.Command {
	var f checkFlags
	c := &cobra.Command{
		Use:   "check FILE...",
		Short: "Check a history file's invariants",
		Long: `check reads a history in the chatseq history format (history/FORMAT.md) and
judges every invariant. Contract flags override the header's "contract".

Several files are checked as one run: the histories of shards (chatseq bench
--shard i/N on several machines), which must not share a chat. Line numbers
in the verdicts then run on from one file to the next, in argument order.

An invariant the contract does not require, or whose evidence the history
holds none of (no sync, no allocate trace, no final lines of a table it
needs), is n/a, listed with the reason, and does not count against the
verdict; --require makes the named ones unknown instead. A history whose
header promises an end line it lacks, or a table that holds another count
of lines than its table_read line promised, was cut short: its
final-state invariants are unknown.

Exit status: 0 valid, 1 a violation, 2 unusable input or flags, 3 unknown.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput("check accepts 1 arg or more: the history files of one run")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return runCheck(c, &f, args) },
	}
	fl := c.Flags()
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	for _, cf := range history.ContractFields {
		fl.StringVar(cf.Of(&f.over), cf.Flag, "", "override contract."+cf.Name+": "+cf.Glossed()+"; default: the header's, else "+cf.DefaultText())
	}
	f.lin.register(fl, "porcupine's time budget over all the chats it checks")
	fl.StringVar(&f.visualize, "visualize", "", "directory for porcupine's view of chats that fail linearizability (around the counterexample; created if need be; it must be writable)")
	fl.BoolVar(&f.soleWriter, "sole-writer", false, "state that the history's clients are its chats' only writers (as the header's sole_writer does), so a final message no persist sent fails no_phantom_messages; --sole-writer=false takes a header's claim back (default: the header's)")
	return c
}

func runCheck(c *cobra.Command, f *checkFlags, paths []string) error {
	if f.format != "text" && f.format != "json" {
		return badInput("--format must be text or json, got %q", f.format)
	}
	if err := f.lin.resolve(); err != nil {
		return err
	}
	if f.visualize != "" {
		// Found out now, not after a long check that then cannot write
		// the one file it was asked for.
		if err := writableDir(f.visualize); err != nil {
			return badInput("--visualize %s: %v", f.visualize, err)
		}
	}
	// On a terminal, say what a long check is doing; never in a log.
	var progress *progressPrinter
	if p := newProgressPrinter(c.ErrOrStderr()); p.tty {
		progress, p.stepsLabel = p, ""
	}
	name := strings.Join(paths, " ")
	opt := f.lin.options()
	if err := checkFits(paths, opt.PorcupineMemory); err != nil {
		return writeCheck(c, f.format, unchecked(err))
	}
	// After checkFits, which reads the limit in force before.
	defer collectForCheck()()
	contract, err := f.contract(history.Contract{})
	if err != nil {
		return err
	}
	opt.Contract, opt.VisualizeDir = contract, f.visualize
	if c.Flags().Changed("sole-writer") {
		opt.SoleWriter = &f.soleWriter
	}
	var rep checker.Report
	var warnings []history.Warning
	locate := func(line int) (string, int) { return paths[0], line }
	if len(paths) == 1 {
		// One file is read straight into the checker, never held whole.
		progress.phase(name, "reading and checking the history")
		var h *history.History
		rep, h, err = checker.CheckFile(paths[0], opt)
		if err == nil {
			warnings = h.Warnings
		}
	} else {
		progress.phase(name, "reading the history")
		var merged *history.Merged
		if merged, err = history.ReadFiles(paths); err == nil {
			progress.phase(name, "checking the history")
			rep, warnings, locate = checker.Check(merged.History, opt), merged.History.Warnings, merged.Locate
			for _, s := range merged.Sources {
				c.PrintErrf("lines %d-%d: %s\n", s.First, s.First+s.Lines-1, s.File)
			}
		}
	}
	if err != nil {
		progress.clear()
		var perr *history.ParseError
		if errors.As(err, &perr) {
			return usageError{err}
		}
		return badInput("%v", err)
	}
	progress.phase(name, "")
	if f.format == "text" {
		// The history's warnings go to stderr by file and line; the
		// report, which holds them by the merged line, then leaves them
		// out rather than say each twice.
		said := map[string]bool{}
		for _, w := range warnings {
			file, line := locate(w.Line)
			c.PrintErrf("warning: %s:%d: %s\n", file, line, w.Message)
			said[fmt.Sprintf("line %d: %s", w.Line, w.Message)] = true
		}
		rep.Warnings = slices.DeleteFunc(slices.Clone(rep.Warnings), func(w string) bool { return said[w] })
	}
	return writeCheck(c, f.format, rep)
}

// writeCheck writes the check's report in format and returns its verdict
// as the exit status.
func writeCheck(c *cobra.Command, format string, rep checker.Report) error {
	out := c.OutOrStdout()
	var err error
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = report.WriteInvariants(out, rep)
		if err == nil {
			_, err = out.Write([]byte("\nverdict: " + report.Verdict(rep) + "\n"))
		}
	}
	if err != nil {
		return err
	}
	return verdictExit(rep)
}

// contract applies the override flags to the header's contract, or returns
// nil when no flag was given.
func (f *checkFlags) contract(base history.Contract) (*history.Contract, error) {
	if f.over == (history.Contract{}) {
		return nil, nil
	}
	for _, cf := range history.ContractFields {
		if v := *cf.Of(&f.over); v != "" && !cf.Allows(v) {
			return nil, badInput("--%s must be %s, got %q", cf.Flag, cf.Choices(false, "or"), v)
		}
	}
	c := f.over.Over(base)
	return &c, nil
}

// writableDir creates dir if need be and makes sure a file can be written
// in it.
func writableDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("a file, not a directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the directory: %w", err)
	}
	probe, err := os.CreateTemp(dir, ".chatseq-visualize-*")
	if err != nil {
		return fmt.Errorf("cannot write in the directory: %w", err)
	}
	name := probe.Name()
	probe.Close()
	return os.Remove(name)
}
