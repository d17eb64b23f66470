package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/internal/textwidth"
)

// These tests run bench in a real terminal: tmux, detached, at a given
// width (test.sh installs Debian's tmux; without it they fail). The pane
// shows only stderr, so what stays on it is what a person sees of the
// progress display once the run is over.

// tmuxPane is one bench process in a detached tmux session of its own.
type tmuxPane struct {
	t      *testing.T
	socket string
	dir    string
	// scrollback: judge the lines scrolled off the top too (a long
	// report), not only the screen. The progress tests judge the screen:
	// when a window narrows, tmux re-wraps the line under the cursor by
	// pushing its first rows into the scrollback, where no escape
	// sequence reaches them.
	scrollback bool
}

// startInTmux runs 'chatseq bench args' (this test binary, as TestMain
// allows) in a width-column terminal, its stdout to a file.
func startInTmux(t *testing.T, width int, args string) *tmuxPane {
	t.Helper()
	return startCommandInTmux(t, width, "bench "+args)
}

// startCommandInTmux runs 'chatseq args' in a width-column terminal; its
// stdout goes to a file with --format json, else to the terminal.
func startCommandInTmux(t *testing.T, width int, args string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for the terminal tests (test.sh installs Debian's tmux): ", err)
	}
	dir := t.TempDir()
	p := &tmuxPane{t: t, socket: filepath.Join(dir, "tmux.sock"), dir: dir}
	stdout := ">stdout.txt"
	if !strings.Contains(args, "--format json") {
		stdout = "" // the report on the terminal too
	}
	script := fmt.Sprintf("cd %s && CHATSEQ_TEST_MAIN_ARGS='%s' %s -test.run='^$' %s; echo $? >exit.txt",
		dir, args, os.Args[0], stdout)
	// bash, not sh: bash goes on after a child that handled Ctrl-C
	// itself, so exit.txt is written after an interrupt too.
	p.tmux("-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", fmt.Sprint(width), "-y", "40", "bash", "-c", script+"; sleep 600")
	p.tmux("set-option", "-t", "bench", "history-limit", "5000")
	t.Cleanup(func() { exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// wait waits for bench to exit and returns its status and what the pane
// shows, wrapped rows joined back into the lines they were written as.
func (p *tmuxPane) wait() (string, []string) {
	p.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		if b, err := os.ReadFile(filepath.Join(p.dir, "exit.txt")); err == nil && len(b) > 0 {
			args := []string{"capture-pane", "-p", "-J", "-t", "bench"}
			if p.scrollback {
				args = append(args, "-S", "-")
			}
			screen := strings.TrimRight(p.tmux(args...), "\n ")
			return strings.TrimSpace(string(b)), strings.Split(screen, "\n")
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("bench did not finish; the pane:\n%s", p.tmux("capture-pane", "-p", "-t", "bench"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// afterProgress waits until the bar shows a rate (a second into the run),
// so that an action lands while the writers run.
func (p *tmuxPane) afterProgress() {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(p.tmux("capture-pane", "-p", "-t", "bench"), "ops/s") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("no progress drawn; the pane:\n%s", p.tmux("capture-pane", "-p", "-t", "bench"))
}

const terminalBench = "--kafka off --writers 2 --chats 8 --format json"

// checkPane fails on a line wider than the terminal (it wrapped) or on a
// frame of the bar left behind by a later one (a stale line).
func checkPane(t *testing.T, width int, lines []string) {
	t.Helper()
	frames := 0
	for _, l := range lines {
		// Trailing blanks are not text: a row tmux re-wrapped when the
		// window narrowed keeps its wrap mark after the redraw cleared
		// what followed it, and capture-pane -J then joins the blank row
		// below, padding the line to the width.
		if textwidth.Columns(strings.TrimRight(l, " ")) >= width {
			t.Errorf("a %d-column line on a %d-column terminal (it wrapped): %q", textwidth.Columns(l), width, l)
		}
		if strings.Contains(l, " ops") {
			frames++
		}
		if strings.Contains(l, "ops/s") {
			t.Errorf("a stale frame of the bar stayed on the screen: %q", l)
		}
	}
	if frames != 1 {
		t.Errorf("%d lines show the run's progress, want the final one only:\n%s", frames, strings.Join(lines, "\n"))
	}
}

// At 60 and 200 columns the bar is redrawn in one line, never wraps, and
// the screen keeps only the final frame and the steps' times.
func TestProgressInANarrowAndAWideTerminal(t *testing.T) {
	for _, width := range []int{60, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			p := startInTmux(t, width, terminalBench+" --duration 2s")
			code, lines := p.wait()
			if code != "0" {
				t.Fatalf("exit %s:\n%s", code, strings.Join(lines, "\n"))
			}
			checkPane(t, width, lines)
			final := lines[0]
			if !strings.Contains(final, "100%") || !strings.Contains(final, "writers done") {
				t.Errorf("final frame %q, want 100%% and writers done", final)
			}
			if width == 200 && !strings.Contains(final, "[========") {
				t.Errorf("no bar on a 200-column terminal: %q", final)
			}
			if !strings.Contains(strings.Join(lines, " "), "after the writers:") {
				t.Errorf("no steps' times:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// The width is read again as the run goes: a terminal narrowed from 200
// to 60 columns mid-run gets lines that fit it, and the 200-column frame
// the terminal re-wrapped does not stay behind.
func TestProgressFollowsATerminalResize(t *testing.T) {
	p := startInTmux(t, 200, terminalBench+" --duration 3s")
	p.afterProgress()
	p.tmux("resize-window", "-t", "bench", "-x", "60", "-y", "40")
	code, lines := p.wait()
	if code != "0" {
		t.Fatalf("exit %s:\n%s", code, strings.Join(lines, "\n"))
	}
	checkPane(t, 60, lines)
}

// Ctrl-C stops the writers: the message takes a line of its own and the
// final frame says how far the run got, not 100%.
func TestProgressAfterCtrlC(t *testing.T) {
	p := startInTmux(t, 100, terminalBench+" --duration 20s")
	p.afterProgress()
	p.tmux("send-keys", "-t", "bench", "C-c")
	code, lines := p.wait()
	if code != fmt.Sprint(ExitInterruptedRun) {
		t.Fatalf("exit %s, want %d:\n%s", code, ExitInterruptedRun, strings.Join(lines, "\n"))
	}
	checkPane(t, 100, lines)
	screen := strings.Join(lines, "\n")
	if strings.Contains(screen, "100%") || !strings.Contains(screen, "writers stopped early") || strings.Contains(screen, "writers done") {
		t.Errorf("after Ctrl-C the final frame claims the whole run:\n%s", screen)
	}
	if !strings.HasPrefix(lines[0], "chatseq: interrupted: stopping the writers") {
		t.Errorf("the interrupt's message does not start a line of its own:\n%s", screen)
	}
}

// The text report on a 70-column terminal: no line wraps, save a single
// word wider than the terminal (a path), which is kept whole.
func TestTextReportFitsTheTerminal(t *testing.T) {
	const width = 70
	p := startInTmux(t, width, "--kafka off --writers 2 --chats 8 --duration 1s --readers 1 --quiet")
	p.scrollback = true
	code, lines := p.wait()
	if code != "0" && code != "1" {
		t.Fatalf("exit %s:\n%s", code, strings.Join(lines, "\n"))
	}
	screen := strings.Join(lines, "\n")
	if !strings.Contains(screen, "invariant") || !strings.Contains(screen, "verdict: ") {
		t.Fatalf("no report on the terminal:\n%s", screen)
	}
	for _, l := range lines {
		if textwidth.Columns(l) >= width && len(strings.Fields(l)) > 1 {
			t.Errorf("a %d-column line on a %d-column terminal: %q", textwidth.Columns(l), width, l)
		}
	}
}

// The run summary and compare's text on terminals of 60 and 200 columns:
// no line wraps, save one of a single word wider than the terminal (a
// path); a reproducing command wrapped with " \" still reads as the one
// command.
func TestRunSummaryAndCompareFitTheTerminal(t *testing.T) {
	racy, err := filepath.Abs("../scenarios/broken/racy-counter.yaml")
	if err != nil {
		t.Fatal(err)
	}
	basic, err := filepath.Abs("../scenarios/adr004/d1-basic-allocation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for range 4 {
		dir, _, _ := benchOut(t, "--quiet")
		runs = append(runs, dir)
	}
	for _, width := range []int{60, 200} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			// One operation is too few for the racy counter to race: the
			// scenario fails its expectation, so the summary names a
			// reproducing command.
			p := startCommandInTmux(t, width, fmt.Sprintf("run %s %s --ops 1 --out %s", racy, basic, filepath.Join(t.TempDir(), "runs")))
			p.scrollback = true
			code, lines := p.wait()
			screen := strings.Join(lines, "\n")
			if code != "1" || !strings.Contains(screen, "1 of 2 scenarios passed") {
				t.Fatalf("run: exit %s, want 1 and a summary:\n%s", code, screen)
			}
			checkLinesFit(t, width, lines)
			var cmd []string
			for i, l := range lines {
				if strings.Contains(l, "reproduce:") {
					for _, l := range lines[i:] {
						cmd = append(cmd, strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "reproduce:")), " \\"))
						if !strings.HasSuffix(l, " \\") && (len(cmd) > 1 || !strings.HasSuffix(l, "reproduce:")) {
							break
						}
					}
					break
				}
			}
			if got, want := strings.Join(strings.Fields(strings.Join(cmd, " ")), " "), "chatseq run "+racy+" --seed 1 --ops 1"; got != want {
				t.Errorf("reproduce: %q, want %q:\n%s", got, want, screen)
			}

			p = startCommandInTmux(t, width, fmt.Sprintf("compare %s %s --vs %s %s", runs[0], runs[1], runs[2], runs[3]))
			p.scrollback = true
			code, lines = p.wait()
			screen = strings.Join(lines, "\n")
			// The runs are short: too few intervals may leave every row
			// untested, an undecided verdict (3); the layout is the test.
			if code != "0" && code != "1" && code != "3" || !strings.Contains(screen, "verdict: ") || !strings.Contains(screen, "p runs") {
				t.Fatalf("compare: exit %s:\n%s", code, screen)
			}
			checkLinesFit(t, width, lines)
			if width == 200 && !strings.Contains(screen, "metric  ") {
				t.Errorf("no table on a 200-column terminal:\n%s", screen)
			}
		})
	}
}

// checkLinesFit fails on a line as wide as the terminal (it wrapped) unless
// it is a single word, or one word of a command and its " \".
func checkLinesFit(t *testing.T, width int, lines []string) {
	t.Helper()
	for _, l := range lines {
		if textwidth.Columns(l) >= width && len(strings.Fields(strings.TrimSuffix(l, " \\"))) > 1 {
			t.Errorf("a %d-column line on a %d-column terminal: %q", textwidth.Columns(l), width, l)
		}
	}
}
