package render

import (
	"fmt"
	"slices"
	"strings"
)

// Verdict accumulates one invariant's findings. A single failure makes it
// fail; otherwise any part that could not be judged makes it unknown;
// otherwise a history that holds none of the evidence it reads makes it not
// applicable. Of all counterexamples offered, the one with the fewest lines
// is kept, so Lines is the smallest counterexample found.
type Verdict struct {
	name     string
	fails    int
	example  string
	lines    []int
	unknowns []string
	absent   []string // why it is not applicable
	notes    []string
	passMsg  string
}

// NewVerdict starts the verdict of the invariant called name.
func NewVerdict(name string) *Verdict { return &Verdict{name: name} }

// Fail records one violation with its counterexample lines.
func (v *Verdict) Fail(lines []int, format string, args ...any) {
	v.fails++
	lines = cleanLines(lines)
	if v.example == "" || len(lines) < len(v.lines) {
		v.example = fmt.Sprintf(format, args...)
		v.lines = lines
	}
}

// Keeps reports whether Fail would keep a counterexample of these lines
// as the one shown, so that a caller with many violations whose message
// is costly to build can count the others with CountFail.
func (v *Verdict) Keeps(lines []int) bool {
	return v.example == "" || cleanLen(lines) < len(v.lines)
}

// cleanLen is len(cleanLines(lines)), without building it.
func cleanLen(lines []int) int {
	n := 0
	for i, l := range lines {
		if l > 0 && !slices.Contains(lines[:i], l) {
			n++
		}
	}
	return n
}

// Unknown records a part of the invariant that could not be judged.
func (v *Verdict) Unknown(format string, args ...any) {
	v.unknowns = append(v.unknowns, fmt.Sprintf(format, args...))
}

// NotApplicable records that the history holds none of the evidence the
// invariant (or the part of it that decides the verdict) reads: no sync, no
// allocate trace, no final lines of a table it needs. It says why.
func (v *Verdict) NotApplicable(format string, args ...any) {
	v.absent = append(v.absent, fmt.Sprintf(format, args...))
}

// Note adds context shown whatever the status.
func (v *Verdict) Note(format string, args ...any) {
	v.notes = append(v.notes, fmt.Sprintf(format, args...))
}

// Pass sets what a pass means for this run ("1000 acks checked").
func (v *Verdict) Pass(format string, args ...any) { v.passMsg = fmt.Sprintf(format, args...) }

// Fails is how many violations were counted so far.
func (v *Verdict) Fails() int { return v.fails }

// CountFail counts one more violation and keeps the example that stands
// (an invariant whose examples all have as many lines).
func (v *Verdict) CountFail() { v.fails++ }

// Result is the verdict as the report shows it.
func (v *Verdict) Result() Result {
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
		r.Status = StatusNA
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

// Plural formats "1 ack" / "2 acks".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
