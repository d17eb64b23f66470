package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/report"
)

// outputFlags are bench's --out and --quiet: where a run's results are
// kept, and whether progress shows on stderr.
type outputFlags struct {
	dir   string
	quiet bool
	dirs  map[string]string // target -> its results directory
	// command reproduces the run (reproduceCommand), kept in results.json.
	command string
}

func addOutputFlags(fl *pflag.FlagSet, o *outputFlags) {
	fl.StringVar(&o.dir, "out", "", "keep the run's results in this directory: history, results.json, latency.hlog (HdrHistogram log) and report.html; one subdirectory per target when several")
	fl.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
}

// prepare checks --out and makes a results directory per target. A
// previous run's visualizations there are removed, so the report links
// only this run's.
func (o *outputFlags) prepare(c *cobra.Command, targets []string) error {
	if o.dir == "" {
		return nil
	}
	o.command = reproduceCommand(c)
	if c.Flags().Changed("history") {
		return badInput("give --out or --history, not both: with --out the history is DIR/%s", report.HistoryFile)
	}
	if st, err := os.Stat(o.dir); err == nil && !st.IsDir() {
		return badInput("--out %s is a file, not a directory", o.dir)
	}
	o.dirs = map[string]string{}
	for _, t := range targets {
		d := o.dir
		if len(targets) > 1 {
			d = filepath.Join(o.dir, t)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return badInput("--out: %v", err)
		}
		old, _ := filepath.Glob(filepath.Join(d, report.VisualizeDir, "linearizability-*.html"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return fmt.Errorf("--out: removing the previous run's %s: %w", f, err)
			}
		}
		o.dirs[t] = d
	}
	return nil
}

// configure points the run at its results directory and, unless --quiet,
// at a progress printer, which it returns (nil with --quiet).
func (o *outputFlags) configure(cfg *bench.Config, stderr io.Writer) *progressPrinter {
	if d, ok := o.dirs[cfg.Target]; ok {
		cfg.HistoryPath = filepath.Join(d, report.HistoryFile)
	}
	if o.quiet {
		return nil
	}
	p := newProgressPrinter(stderr)
	target := cfg.Target
	cfg.Progress = p.update
	cfg.Phase = func(name string) { p.phase(target, name) }
	return p
}

// visualizeDir is where the checker draws the target's non-linearizable
// chats; empty without --out.
func (o *outputFlags) visualizeDir(target string) string {
	if d, ok := o.dirs[target]; ok {
		return filepath.Join(d, report.VisualizeDir)
	}
	return ""
}

// save writes the target's results.json, HdrHistogram log and report.html.
func (o *outputFlags) save(stderr io.Writer, target string, res *bench.Result, b report.Bench) error {
	d, ok := o.dirs[target]
	if !ok {
		return nil
	}
	saved, err := report.SaveRun(d, res, b, o.command)
	if err != nil {
		return fmt.Errorf("saving results: %w", err)
	}
	if err := saved.WriteReport(time.Now()); err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "results: %s\n", filepath.Join(d, report.ReportFile))
	}
	return nil
}

// index writes DIR/index.html linking each target's report when --out
// holds several.
func (o *outputFlags) index(stderr io.Writer, runs []report.Bench) error {
	if len(o.dirs) < 2 {
		return nil
	}
	entries := make([]report.IndexEntry, len(runs))
	for i, b := range runs {
		rel, err := filepath.Rel(o.dir, o.dirs[b.Run.Target])
		if err != nil {
			return err
		}
		entries[i] = report.IndexEntry{Bench: b, Dir: filepath.ToSlash(rel)}
	}
	path := filepath.Join(o.dir, report.IndexFile)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := report.WriteIndex(f, entries); err != nil {
		f.Close()
		return fmt.Errorf("--out: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "results: %s\n", path)
	}
	return nil
}

func newReportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Redraw report.html of a results directory (chatseq bench --out DIR)",
		Long: `report rebuilds DIR/report.html from the files chatseq bench --out saved there:
results.json, the history (for the counterexamples' lines) and latency.hlog.
A directory holding one subdirectory per target redraws each.

Exit status: 0 written, 2 not a usable results directory, 5 could not write.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dirs, err := resultDirs(args[0])
			if err != nil {
				return err
			}
			for _, d := range dirs {
				saved, err := report.LoadDir(d)
				if err != nil {
					return usageError{err}
				}
				if err := saved.WriteReport(time.Now()); err != nil {
					return err
				}
				fmt.Fprintln(c.OutOrStdout(), filepath.Join(d, report.ReportFile))
			}
			return nil
		},
	}
}

// resultDirs lists the results directories at path: path itself when it
// holds results.json, else its subdirectories that do (bench --out with
// several targets).
func resultDirs(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, badInput("%v", err)
	}
	if !st.IsDir() {
		return nil, badInput("%s is not a directory (give the directory chatseq bench --out wrote)", path)
	}
	if _, err := os.Stat(filepath.Join(path, report.ResultsFile)); err == nil {
		return []string{path}, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, badInput("%v", err)
	}
	found, err := filepath.Glob(filepath.Join(path, "*", report.ResultsFile))
	if err != nil {
		return nil, badInput("%v", err)
	}
	if len(found) == 0 {
		return nil, badInput("%s has no %s, nor any subdirectory with one", path, report.ResultsFile)
	}
	sort.Strings(found)
	dirs := make([]string, len(found))
	for i, f := range found {
		dirs[i] = filepath.Dir(f)
	}
	return dirs, nil
}
