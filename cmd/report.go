package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	force bool              // --force: --out may replace what a directory holds
	dirs  map[string]string // target -> its results directory
	// command reproduces the run (reproduceCommand), kept in results.json.
	command string
}

func addOutputFlags(fl *pflag.FlagSet, o *outputFlags) {
	fl.StringVar(&o.dir, "out", "", "keep the run's results in this directory: history, results.json, latency.hlog (HdrHistogram log) and report.html; one subdirectory per target when several")
	fl.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
	fl.BoolVar(&o.force, "force", false, "let --out replace the files of a directory that is not empty (a previous run's results)")
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
	if err := o.refuseToReplace(); err != nil {
		return err
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

// refuseToReplace refuses an --out directory that is not empty unless
// --force says its files may go: it may be a baseline kept to compare
// with, which a run would overwrite without a word.
func (o *outputFlags) refuseToReplace() error {
	entries, err := os.ReadDir(o.dir)
	if err != nil || len(entries) == 0 || o.force {
		return nil // a directory to make, or an empty one
	}
	held := "files (" + entries[0].Name() + ", …)"
	if _, err := os.Stat(filepath.Join(o.dir, report.ResultsFile)); err == nil {
		held = "a previous run's results"
	} else if _, err := os.Stat(filepath.Join(o.dir, report.IndexFile)); err == nil {
		held = "a previous run's results, one directory per target"
	}
	return badInput("--out %s is not empty: it holds %s; give a new or empty directory, or --force to replace them", o.dir, held)
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
	var all bool
	c := &cobra.Command{
		Use:   "report DIR",
		Short: "Redraw report.html of a results directory (chatseq bench --out DIR)",
		Long: `report rebuilds DIR/report.html from the files chatseq bench --out saved there:
results.json, the history (for the counterexamples' lines) and latency.hlog.
A directory bench --out wrote for several targets (one subdirectory per
target, and index.html) redraws each. Any other directory whose
subdirectories hold runs is refused, naming them, unless --all asks to
redraw every one.

Exit status: 0 written, 2 not a usable results directory, 5 could not write.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dirs, err := resultDirs(args[0])
			if err != nil {
				return err
			}
			if err := oneRunOrAll(args[0], dirs, all); err != nil {
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
	c.Flags().BoolVar(&all, "all", false, "redraw every results directory right below DIR, when DIR is not one run's")
	return c
}

// oneRunOrAll lets report redraw the subdirectories of path only when they
// are one run's (bench --out with several targets wrote index.html beside
// them) or --all asks for every one: a directory of baselines is not
// rewritten because its parent was named.
func oneRunOrAll(path string, dirs []string, all bool) error {
	if all || len(dirs) == 1 && dirs[0] == path {
		return nil
	}
	if _, err := os.Stat(filepath.Join(path, report.IndexFile)); err == nil {
		return nil
	}
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = filepath.Base(d)
	}
	return badInput("%s holds no %s: it is not one run's results directory, and its subdirectories %s are runs of their own; give one of them, or --all to redraw each",
		path, report.ResultsFile, strings.Join(names, ", "))
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
