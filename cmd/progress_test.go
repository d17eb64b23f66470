package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
)

// feed sends a 12 s run's reports every 250 ms, then the final one.
func feed(p *progressPrinter) {
	for el := time.Duration(0); el <= 12*time.Second; el += bench.ProgressEvery {
		p.update(bench.Progress{
			Target: "memory", Elapsed: el, Duration: 12 * time.Second, Operations: int64(el / time.Millisecond),
			Rate: 1000, P99: 3210 * time.Microsecond, FaultsInjected: 7, ActiveFaults: activeAt(el),
		})
	}
	p.update(bench.Progress{Target: "memory", Elapsed: 12 * time.Second, Duration: 12 * time.Second, Operations: 12000, Done: true})
}

func activeAt(el time.Duration) []string {
	if el >= 4*time.Second && el < 6*time.Second {
		return []string{"kafka_outage"} // as bench names it: the schedule's name
	}
	return nil
}

// Off a terminal, progress is a plain line every 5 s and one at the end.
func TestProgressPrintsPlainLinesOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	feed(newProgressPrinter(&buf))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want one at 5s, one at 10s and a final one:\n%s", len(lines), buf.String())
	}
	want := [][]string{
		{"progress: memory", "5.00s/12.0s", "5000 ops", "1.0k ops/s", "p99 3.21ms", "faults 7", "now: kafka_outage", "7.00s left"},
		{"10.0s/12.0s", "10000 ops", "2.00s left"},
		{"12.0s/12.0s", "12000 ops", "writers done"},
	}
	for i, parts := range want {
		for _, p := range parts {
			if !strings.Contains(lines[i], p) {
				t.Errorf("line %d %q lacks %q", i+1, lines[i], p)
			}
		}
	}
	if strings.ContainsAny(buf.String(), "\r\x1b") {
		t.Errorf("plain progress has terminal control characters: %q", buf.String())
	}
}

// On a terminal, progress is one bar redrawn in place, within the
// terminal's width, ended by a newline.
func TestProgressRedrawsABarOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &progressPrinter{w: &buf, tty: true, width: 120}
	feed(p)
	out := buf.String()
	frames := strings.Split(strings.TrimSuffix(out, "\n"), "\r")[1:]
	if len(frames) != 50 {
		t.Fatalf("%d frames, want one per report (50)", len(frames))
	}
	mid := strings.TrimSuffix(frames[24], "\x1b[K")
	for _, want := range []string{"[====", "50%", "6000 ops", "p99 3.21ms", "faults 7", "6.00s left"} {
		if !strings.Contains(mid, want) {
			t.Errorf("frame at 6s %q lacks %q", mid, want)
		}
	}
	for _, f := range frames {
		if n := len([]rune(strings.TrimSuffix(f, "\x1b[K"))); n > 120 {
			t.Errorf("frame of %d columns on a 120-column terminal: %q", n, f)
		}
	}
	if last := frames[len(frames)-1]; !strings.Contains(last, "100%") || !strings.HasSuffix(out, "\n") {
		t.Errorf("final frame %q, want 100%% and a newline after it", last)
	}
}

func TestTimeLeftUsesWhicheverBoundEndsFirst(t *testing.T) {
	cases := []struct {
		p    bench.Progress
		left time.Duration
		ok   bool
	}{
		{bench.Progress{Elapsed: 2 * time.Second, Duration: 10 * time.Second}, 8 * time.Second, true},
		{bench.Progress{Elapsed: 2 * time.Second, Operations: 100, TargetOps: 400}, 6 * time.Second, true},
		{bench.Progress{Elapsed: 2 * time.Second, Duration: 10 * time.Second, Operations: 100, TargetOps: 200}, 2 * time.Second, true},
		{bench.Progress{Elapsed: 12 * time.Second, Duration: 10 * time.Second}, 0, true},
		{bench.Progress{Elapsed: 2 * time.Second}, 0, false},
	}
	for _, c := range cases {
		left, ok := timeLeft(c.p)
		if left != c.left || ok != c.ok {
			t.Errorf("%+v: left %s %v, want %s %v", c.p, left, ok, c.left, c.ok)
		}
	}
}

// After the writers, each step is announced as it begins, and the last
// line times every step.
func TestProgressTimesTheStepsAfterTheWriters(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var buf bytes.Buffer
		p := newProgressPrinter(&buf)
		p.tty = tty
		clock := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		p.now = func() time.Time { return clock }
		for _, step := range []struct {
			name string
			took time.Duration
		}{{bench.PhaseFinalState, 1200 * time.Millisecond}, {phaseReadBack, 4 * time.Second}, {phaseCheck, 9500 * time.Millisecond}} {
			p.phase("memory", step.name)
			clock = clock.Add(step.took)
		}
		p.phase("memory", "")
		out := buf.String()
		summary := "memory  after the writers: recording the final state 1.20s, reading the history back 4.00s, checking the history 9.50s"
		if !strings.Contains(out, summary) {
			t.Fatalf("tty %v: no summary %q in:\n%q", tty, summary, out)
		}
		if tty {
			// One line, redrawn in place, ended once.
			if strings.Count(out, "\n") != 1 || strings.Count(out, "\r") != 4 || !strings.Contains(out, "\rmemory  checking the history…\x1b[K") {
				t.Fatalf("terminal output %q", out)
			}
		} else if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 || lines[1] != "progress: memory  reading the history back…" {
			t.Fatalf("plain output:\n%s", out)
		}
	}
	var quiet *progressPrinter
	quiet.phase("memory", phaseCheck) // --quiet: nothing, and no panic
}

// clear erases the step under way on a terminal, so that an error prints
// on its own line, and forgets the steps' times.
func TestProgressClearErasesTheLine(t *testing.T) {
	var buf bytes.Buffer
	p := &progressPrinter{w: &buf, tty: true, width: 80, now: time.Now}
	p.phase("h.jsonl", "reading the history")
	p.clear()
	if got := buf.String(); got != "\rh.jsonl  reading the history…\x1b[K\r\x1b[K" {
		t.Fatalf("terminal output %q", got)
	}
	if p.step != "" || p.stepsDone != nil {
		t.Fatalf("clear kept step %q and %v", p.step, p.stepsDone)
	}
	var quiet *progressPrinter
	quiet.clear() // no printer: nothing, and no panic
}

// check says what it is doing only on a terminal: its stderr in a log or
// a pipe stays free of progress.
func TestCheckPrintsNoProgressOffATerminal(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	if code, _, errOut := run(t, "bench", "--quiet", "--kafka", "off", "--ops", "300", "--duration", "0", "--history", hist); code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, "check", hist)
	if code != ExitOK || errOut != "" || !strings.Contains(out, "verdict: PASS") {
		t.Fatalf("check: exit %d, stderr %q (want none)\n%s", code, errOut, out)
	}
}

// Before the first whole interval there is no rate or p99 to show: the
// first frames say so by leaving them out, not by printing zeros.
func TestProgressShowsNoRateBeforeTheFirstInterval(t *testing.T) {
	p := &progressPrinter{w: &bytes.Buffer{}, tty: true, width: 200}
	first := p.bar(bench.Progress{Target: "memory", Elapsed: 250 * time.Millisecond, Duration: 3 * time.Second, Operations: 900})
	if strings.Contains(first, "ops/s") || strings.Contains(first, "p99") {
		t.Errorf("first frame %q shows a rate nobody measured", first)
	}
	later := p.bar(bench.Progress{Target: "memory", Elapsed: 1250 * time.Millisecond, Duration: 3 * time.Second, Operations: 9000, Rate: 7000, P99: time.Millisecond})
	if !strings.Contains(later, "7.0k ops/s") || !strings.Contains(later, "p99 1.00ms") {
		t.Errorf("frame after a second %q lacks the rate and p99", later)
	}
}

// run shows a scenario's writers as bench shows its own, named by the
// scenario, and leaves their end to the scenario's verdict line.
func TestScenarioProgressNamesTheScenarioAndLeavesTheEndOut(t *testing.T) {
	var buf bytes.Buffer
	progress, violation := scenarioProgress(&buf, "slow-demo")
	progress(bench.Progress{Target: "memory", Elapsed: time.Second, Duration: 8 * time.Second, Operations: 10})
	progress(bench.Progress{Target: "memory", Elapsed: 5 * time.Second, Duration: 8 * time.Second, Operations: 5000})
	violation(checker.Violation{Invariant: "sequence_uniqueness", Lines: []int{7, 9}, Detail: "two ids"})
	progress(bench.Progress{Target: "memory", Elapsed: 8 * time.Second, Duration: 8 * time.Second, Operations: 8000, Done: true})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "progress: slow-demo  5.00s/8.00s  5000 ops") ||
		lines[1] != "slow-demo: online check: sequence_uniqueness violated at line 9: two ids" {
		t.Errorf("got:\n%s", buf.String())
	}
}
