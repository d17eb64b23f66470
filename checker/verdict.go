package checker

import (
	"fmt"
	"slices"
	"strings"
)

// verdict accumulates one invariant's findings. A single failure makes it
// fail; otherwise any part that could not be judged makes it unknown;
// otherwise a history that holds none of the evidence it reads makes it not
// applicable. Of all counterexamples offered, the one with the fewest lines
// is kept, so Lines is the smallest counterexample found.
type verdict struct {
	name     string
	fails    int
	example  string
	lines    []int
	unknowns []string
	absent   []string // why it is not applicable
	notes    []string
	passMsg  string
}

func newVerdict(name string) *verdict { return &verdict{name: name} }

// fail records one violation with its counterexample lines.
func (v *verdict) fail(lines []int, format string, args ...any) {
	v.fails++
	lines = cleanLines(lines)
	if v.example == "" || len(lines) < len(v.lines) {
		v.example = fmt.Sprintf(format, args...)
		v.lines = lines
	}
}

// unknown records a part of the invariant that could not be judged.
func (v *verdict) unknown(format string, args ...any) {
	v.unknowns = append(v.unknowns, fmt.Sprintf(format, args...))
}

// notApplicable records that the history holds none of the evidence the
// invariant (or the part of it that decides the verdict) reads: no sync, no
// allocate trace, no final lines of a table it needs. It says why.
func (v *verdict) notApplicable(format string, args ...any) {
	v.absent = append(v.absent, fmt.Sprintf(format, args...))
}

// note adds context shown whatever the status.
func (v *verdict) note(format string, args ...any) {
	v.notes = append(v.notes, fmt.Sprintf(format, args...))
}

// pass sets what a pass means for this run ("1000 acks checked").
func (v *verdict) pass(format string, args ...any) { v.passMsg = fmt.Sprintf(format, args...) }

func (v *verdict) result() Result {
	r := Result{Name: v.name, Lines: []int{}}
	var parts []string
	switch {
	case v.fails > 0:
		r.Status = Fail
		r.Lines = v.lines
		if v.fails == 1 {
			parts = append(parts, v.example)
		} else {
			parts = append(parts, fmt.Sprintf("%d violations; smallest: %s", v.fails, v.example))
		}
		if len(v.unknowns) > 0 {
			parts = append(parts, "also not judged: "+strings.Join(v.unknowns, "; "))
		}
	case len(v.unknowns) > 0:
		r.Status = Unknown
		parts = append(parts, v.unknowns...)
		if v.passMsg != "" {
			parts = append(parts, "otherwise "+v.passMsg)
		}
	case len(v.absent) > 0:
		r.Status = statusNA
		parts = append(parts, v.absent...)
	default:
		r.Status = Pass
		if v.passMsg != "" {
			parts = append(parts, v.passMsg)
		}
	}
	parts = append(parts, v.notes...)
	r.Detail = strings.Join(parts, "; ")
	return r
}

// cleanLines sorts and deduplicates lines, dropping 0 (an event that was
// recorded in memory rather than read from a file has no line).
func cleanLines(lines []int) []int {
	out := make([]int, 0, len(lines))
	for _, l := range lines {
		if l > 0 {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// plural formats "1 ack" / "2 acks".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
