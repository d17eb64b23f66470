package checker

import "github.com/chatseq/chatseq/checker/internal/render"

// verdict accumulates one invariant's findings (render.Verdict says how
// they become its Result); its methods keep the invariants' spelling.
type verdict struct{ render.Verdict }

func newVerdict(name string) *verdict { return &verdict{*render.NewVerdict(name)} }

func (v *verdict) fail(lines []int, format string, args ...any) { v.Fail(lines, format, args...) }
func (v *verdict) unknown(format string, args ...any)           { v.Unknown(format, args...) }
func (v *verdict) notApplicable(format string, args ...any)     { v.NotApplicable(format, args...) }
func (v *verdict) note(format string, args ...any)              { v.Note(format, args...) }
func (v *verdict) pass(format string, args ...any)              { v.Pass(format, args...) }
func (v *verdict) result() Result                               { return v.Result() }

// plural formats "1 ack" / "2 acks".
func plural(n int, word string) string { return render.Plural(n, word) }
