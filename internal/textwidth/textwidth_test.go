package textwidth

import (
	"strings"
	"testing"
)

func TestCutKeepsWholeWords(t *testing.T) {
	s := "9746 acks published, 9746 events each name a persisted message"
	for width := 1; width <= Columns(s)+2; width++ {
		got := Cut(s, width)
		if Columns(got) > width {
			t.Fatalf("Cut(%d) = %q: %d columns", width, got, Columns(got))
		}
		if got == s {
			continue
		}
		body := strings.TrimSuffix(got, Ellipsis)
		if width > 5 && !strings.HasPrefix(s, body+" ") && !strings.HasPrefix(s, body+", ") {
			t.Errorf("Cut(%d) = %q splits a word or number", width, got)
		}
	}
	if got := Cut("short", 10); got != "short" {
		t.Errorf("Cut of a fitting string = %q", got)
	}
}

func TestWrapBreaksAtSpaces(t *testing.T) {
	s := "gap_is_allocation_without_persistence 1134 gaps in 74641 allocated sequences (1.52%), by cause: crash_after_allocate 725"
	lines := Wrap(s, 30)
	if strings.Join(lines, " ") != strings.Join(strings.Fields(s), " ") {
		t.Fatalf("Wrap lost words: %q", lines)
	}
	for _, l := range lines[1:] {
		if Columns(l) > 30 {
			t.Errorf("line %q is %d columns", l, Columns(l))
		}
	}
	if got := Wrap("a b", 0); len(got) != 1 {
		t.Errorf("Wrap with no width = %q", got)
	}
}

func TestJoinFittingDropsWholeFields(t *testing.T) {
	fields := []string{"memory", "1.00s/20.0s", "9000 ops", "11.2k ops/s", "p99 4.82ms"}
	if got := JoinFitting(fields, "  ", 30); got != "memory  1.00s/20.0s  9000 ops" {
		t.Errorf("JoinFitting(30) = %q", got)
	}
	if got := JoinFitting(fields, "  ", 4); got != "mem…" {
		t.Errorf("JoinFitting(4) = %q", got)
	}
}

// A wrapped command is still one command: lines end in " \", breaks fall
// only between shell words (never inside a quoted schedule), and each line
// fits.
func TestWrapCommandBreaksBetweenShellWords(t *testing.T) {
	cmd := `chatseq run scenarios/adr004/crash-after-allocate.yaml --seed 1234567 --schedule '[{fault: kafka_outage, at: 1s, for: 500ms}]' --label "two words" --note it\ is`
	lines := WrapCommand(cmd, 40, "    ")
	if len(lines) < 3 {
		t.Fatalf("not wrapped: %q", lines)
	}
	var joined []string
	for i, l := range lines {
		if i < len(lines)-1 {
			if !strings.HasSuffix(l, " \\") {
				t.Errorf("line %q does not continue the command", l)
			}
			l = strings.TrimSuffix(l, " \\")
		}
		if i > 0 {
			if !strings.HasPrefix(l, "    ") {
				t.Errorf("line %q is not indented", l)
			}
		}
		if Columns(lines[i]) > 40 && len(shellWords(l)) > 1 {
			t.Errorf("line %q is %d columns", lines[i], Columns(lines[i]))
		}
		joined = append(joined, strings.TrimSpace(l))
	}
	if got := strings.Join(joined, " "); got != cmd {
		t.Errorf("the lines joined are\n%s\nnot\n%s", got, cmd)
	}
	want := []string{"chatseq", "run", "scenarios/adr004/crash-after-allocate.yaml", "--seed", "1234567", "--schedule",
		"'[{fault: kafka_outage, at: 1s, for: 500ms}]'", "--label", `"two words"`, "--note", `it\ is`}
	if got := shellWords(cmd); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("shell words %q, want %q", got, want)
	}
	if got := WrapCommand("chatseq run x", 0, "  "); len(got) != 1 {
		t.Errorf("no width: %q", got)
	}
}
