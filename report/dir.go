package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/internal/redact"
)

// A results directory holds one run: the history it streamed
// (history.jsonl), results.json, the HdrHistogram log (latency.hlog),
// report.html and, for chats that are not linearizable, porcupine's
// visualizations under linearizability/. docs/results.md describes it.

// Saved is a run as its results directory holds it, ready to draw.
type Saved struct {
	Dir     string
	Results Results
	latency *latencySeries
	lines   map[int]string
}

// ErrBadDir marks a results directory that cannot be read: missing files,
// another schema version, a log that does not match results.json.
var ErrBadDir = errors.New("unusable results directory")

// SaveRun writes a finished run's files into dir, where the run already
// streamed its history (dir/history.jsonl) and the checker its
// visualizations, and returns the run ready to draw. command is the
// command line that reproduces the run ("" if none).
func SaveRun(dir string, res *bench.Result, b Bench, command string) (*Saved, error) {
	if _, err := os.Stat(filepath.Join(dir, HistoryFile)); err != nil {
		return nil, fmt.Errorf("results directory %s has no %s: %w", dir, HistoryFile, err)
	}
	r := NewResults(res, b)
	r.Command = redact.Text(command) // results.json is shared
	vizs, err := listVisualizations(dir)
	if err != nil {
		return nil, err
	}
	r.Files.Visualizations = vizs
	err = writeFileAtomic(filepath.Join(dir, HlogFile), func(w io.Writer) error {
		return WriteHlog(w, r.Started, res.Intervals)
	})
	if err != nil {
		return nil, err
	}
	err = writeFileAtomic(filepath.Join(dir, ResultsFile), func(w io.Writer) error { return WriteResults(w, r) })
	if err != nil {
		return nil, err
	}
	lat, err := seriesFromIntervals(res.Intervals, r.Intervals)
	if err != nil {
		return nil, err
	}
	lines, err := readLines(filepath.Join(dir, HistoryFile), counterexampleLines(r))
	if err != nil {
		return nil, fmt.Errorf("reading the counterexamples' history lines: %w", err)
	}
	return &Saved{Dir: dir, Results: r, latency: lat, lines: lines}, nil
}

// LoadDir reads a results directory written by SaveRun. Its errors wrap
// ErrBadDir.
func LoadDir(dir string) (*Saved, error) {
	r, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadDir, err)
	}
	for _, name := range []string{r.Files.History, r.Files.Hlog} {
		if !filepath.IsLocal(name) {
			return nil, fmt.Errorf("%w: %s names %q, which is not a file inside the directory", ErrBadDir, ResultsFile, name)
		}
		// The report links both, even when no counterexample line is read.
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadDir, err)
		}
	}
	f, err := openRegular(filepath.Join(dir, r.Files.Hlog))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadDir, err)
	}
	defer f.Close()
	// The log is at one-second intervals whatever the run's: only a run
	// recorded at seconds is binned from it (binSize), or drawn from it when
	// its results.json predates per-interval percentiles (no interval_s).
	legacy := r.IntervalS == 0
	if legacy {
		r.IntervalS = bench.IntervalLength.Seconds()
	}
	bins := binSize(len(r.Intervals))
	if bins > 1 && r.IntervalS != bench.IntervalLength.Seconds() {
		return nil, fmt.Errorf("%w: %s: %d intervals of %gs, more than a report draws unbinned, and not the log's seconds", ErrBadDir, ResultsFile, len(r.Intervals), r.IntervalS)
	}
	lat := newLatencySeries(len(r.Intervals), bins)
	lat.fromHistograms = lat.fromHistograms || legacy
	seconds := int(math.Ceil(r.Run.Elapsed + 1))
	histograms := 0
	err = readHlog(bufio.NewReader(f), r.Started, func(i int, tag string, h *hdrhistogram.Histogram) error {
		histograms++
		if i > seconds {
			return fmt.Errorf("%s histogram for second %d, but the run lasted %.1fs", tag, i, r.Run.Elapsed)
		}
		if !lat.fromHistograms {
			i = 0 // the log's seconds only add to the run's distribution
		}
		return lat.add(i, tag, h)
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadDir, f.Name(), err)
	}
	if histograms == 0 && operations(r.Intervals) > 0 {
		// An empty, cut or garbled log read as one with no latency: the
		// report drew no latency at all, and said nothing.
		return nil, fmt.Errorf("%w: %s holds no interval histogram, but %s counts %d operations", ErrBadDir, f.Name(), ResultsFile, operations(r.Intervals))
	}
	lat.finish(r.Intervals)
	lines, err := readLines(filepath.Join(dir, r.Files.History), counterexampleLines(r))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadDir, err)
	}
	return &Saved{Dir: dir, Results: r, latency: lat, lines: lines}, nil
}

// WriteHTML renders the report of s; generated is printed as the time the
// report was made.
func (s *Saved) WriteHTML(w io.Writer, generated time.Time) error {
	return renderHTML(w, s.Results, s.latency, s.lines, generated)
}

// WriteReport writes s's report.html into its directory.
func (s *Saved) WriteReport(generated time.Time) error {
	return writeFileAtomic(filepath.Join(s.Dir, ReportFile), func(w io.Writer) error {
		return s.WriteHTML(w, generated)
	})
}

// listVisualizations finds porcupine's drawings the checker left in
// dir/linearizability (checker.Options.VisualizeDir).
func listVisualizations(dir string) ([]Visualization, error) {
	paths, err := filepath.Glob(filepath.Join(dir, VisualizeDir, visualizeGlob))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	out := []Visualization{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(p)
		chat := strings.TrimSuffix(strings.TrimPrefix(base, "linearizability-"), ".html")
		out = append(out, Visualization{Chat: chat, File: VisualizeDir + "/" + base, Bytes: st.Size()})
	}
	return out, nil
}

// writeFileAtomic writes path through a temporary file, so a failed write
// leaves the previous version in place.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(w); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// operations is how many operations the intervals count.
func operations(ivs []IntervalCounts) int64 {
	var n int64
	for _, iv := range ivs {
		n += iv.Operations
	}
	return n
}
