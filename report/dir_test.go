package report

import (
	"bytes"
	"errors"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
)

var generatedAt = regexp.MustCompile(`<time id="generated-at">[^<]*</time>`)

// Redrawing report.html from the saved files (results.json, the history,
// latency.hlog) gives the page the run drew from memory, but for the time
// it was generated.
func TestReportRedrawEqualsTheOriginal(t *testing.T) {
	for name, f := range map[string]*fixtureRun{"healthy": healthyRun(t), "faulty": faultyRun(t)} {
		original, err := os.ReadFile(filepath.Join(f.dir, ReportFile))
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := LoadDir(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		var redrawn bytes.Buffer
		if err := loaded.WriteHTML(&redrawn, fixtureGenerated.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(original, redrawn.Bytes()) {
			t.Fatalf("%s: the redrawn page has the original's generation time", name)
		}
		a := generatedAt.ReplaceAllString(string(original), "")
		b := generatedAt.ReplaceAllString(redrawn.String(), "")
		if a != b {
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			t.Fatalf("%s: redrawn report differs at byte %d:\noriginal: %.300s\nredrawn:  %.300s", name, i, a[max(0, i-100):], b[max(0, i-100):])
		}
	}
	// The faulty run's page shows its counterexamples' history lines and
	// links porcupine's drawings.
	page, err := os.ReadFile(filepath.Join(faultyRun(t).dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := html.UnescapeString(string(page))
	for _, want := range []string{"sync_completeness", `class="badge badge-fail"`, `href="linearizability/linearizability-chat-`, `{"type":"ok","process":`} {
		if !strings.Contains(text, want) {
			t.Errorf("faulty report lacks %q", want)
		}
	}
}

// A directory missing its log or results, or whose log does not match
// results.json, is refused with ErrBadDir.
func TestLoadDirRefusesIncompleteDirectories(t *testing.T) {
	f := healthyRun(t)
	copyDir := func(skip string) string {
		dir := t.TempDir()
		for _, name := range []string{ResultsFile, HistoryFile, HlogFile} {
			if name == skip {
				continue
			}
			data, err := os.ReadFile(filepath.Join(f.dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, missing := range []string{ResultsFile, HistoryFile, HlogFile} {
		if _, err := LoadDir(copyDir(missing)); !errors.Is(err, ErrBadDir) || !strings.Contains(err.Error(), missing) {
			t.Errorf("without %s: %v, want ErrBadDir naming it", missing, err)
		}
	}
	dir := copyDir("")
	hlog := filepath.Join(dir, HlogFile)
	data, _ := os.ReadFile(hlog)
	bad := strings.Replace(string(data), "Tag=persist,", "Tag=commit,", 1)
	if err := os.WriteFile(hlog, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(dir); !errors.Is(err, ErrBadDir) || !strings.Contains(err.Error(), `"commit"`) {
		t.Errorf("with an unknown tag: %v, want ErrBadDir naming it", err)
	}

	// An empty, cut or garbled log read as one without latency: the
	// report drew none and chatseq report exited 0. Found by an outside
	// walk-through.
	for name, log := range map[string][]byte{"empty": nil, "cut to its header": data[:min(len(data), 300)], "garbled": bytes.Repeat([]byte("\x8f garbage \x01\n"), 100)} {
		dir := copyDir("")
		if err := os.WriteFile(filepath.Join(dir, HlogFile), log, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadDir(dir); !errors.Is(err, ErrBadDir) {
			t.Errorf("with a log %s: %v, want ErrBadDir", name, err)
		}
	}
}

// results.json is read only when it is a regular file of at most
// MaxResultsBytes: a FIFO in its place made chatseq report wait for ever,
// and /dev/zero took its memory without end. Found by an outside
// walk-through.
func TestReadResultsReadsOnlyARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.json")
	if err := os.WriteFile(large, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(large, MaxResultsBytes+1); err != nil { // sparse: no disk
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero, large} {
		done := make(chan error, 1)
		go func() { _, err := ReadResults(path); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotResults) {
				t.Errorf("%s: %v, want ErrNotResults", filepath.Base(path), err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: still reading after a minute", filepath.Base(path))
		}
	}
}

// report.html lists what the online check found while the writers ran,
// each violation with its counterexample's history lines, and says so
// when it found nothing or did not run.
func TestReportListsTheOnlineChecksViolations(t *testing.T) {
	loaded, err := LoadDir(faultyRun(t).dir)
	if err != nil {
		t.Fatal(err)
	}
	render := func(online []checker.Violation, stopped string) string {
		t.Helper()
		s := *loaded
		s.Results.Online, s.Results.Run.StoppedForViolation = online, stopped
		s.lines = map[int]string{2: `{"type":"invoke","process":1}`, 5: `{"type":"ok","process":1}`}
		var page bytes.Buffer
		if err := s.WriteHTML(&page, fixtureGenerated); err != nil {
			t.Fatal(err)
		}
		return html.UnescapeString(page.String())
	}
	v := checker.Violation{Invariant: "sequence_uniqueness", Detail: "chat c seq 3 was acknowledged for two messages", Lines: []int{2, 5}, Time: 2_500_000_000}
	page := render([]checker.Violation{v}, "the online check found sequence_uniqueness violated at line 5")
	for _, want := range []string{`<section id="online">`, `id="online-sequence_uniqueness"`, "2.5s", v.Detail,
		`{"type":"ok","process":1}`, "The writers stopped early (--fail-fast): the online check found sequence_uniqueness violated at line 5"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if page := render([]checker.Violation{}, ""); !strings.Contains(page, "No violation while the writers ran") || strings.Contains(page, `id="online-`) {
		t.Error("a run whose online check found nothing does not say so")
	}
	if page := render(nil, ""); !strings.Contains(page, "Not run (--online=false)") {
		t.Error("a run without the online check does not say so")
	}
}
