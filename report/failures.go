package report

import (
	"regexp"

	"github.com/chatseq/chatseq/checker"
)

// firstLinesShown is how many lines of a counterexample the top of a
// failing report shows; the invariants table has them all.
const firstLinesShown = 12

// failure is one failed invariant as the top of the report states it: its
// text, the first lines of its counterexample, porcupine's drawing of the
// chat the text names, when the checker drew that chat, and for
// linearizability the contradiction laid out operation by operation,
// drawn or not.
type failure struct {
	Name, Detail  string
	First         []numberedLine
	More          int // counterexample lines not shown at the top
	Chat          string
	Drawing       *Visualization
	Contradiction *contradiction
}

// chatNamed finds the chat a checker detail names first: `chat "X"`.
var chatNamed = regexp.MustCompile(`chat "([^"]+)"`)

// failures lists the failed invariants, in the checker's order.
func failures(r Results, lines map[int]string) []failure {
	drawings := map[string]*Visualization{}
	for i := range r.Files.Visualizations {
		v := &r.Files.Visualizations[i]
		drawings[v.Chat] = v
	}
	var out []failure
	for _, inv := range r.Check.Invariants {
		if inv.Status != checker.Fail {
			continue
		}
		f := failure{Name: inv.Name, Detail: inv.Detail, Contradiction: newContradiction(inv, lines)}
		for i, n := range inv.Lines {
			if i == firstLinesShown {
				f.More = len(inv.Lines) - firstLinesShown
				break
			}
			f.First = append(f.First, numberedLine{N: n, Text: lines[n]})
		}
		if m := chatNamed.FindStringSubmatch(inv.Detail); m != nil {
			f.Chat = m[1]
			// The drawing's file name spells the chat as the checker
			// sanitised it; chatseq's own chat ids pass unchanged.
			f.Drawing = drawings[f.Chat]
		}
		out = append(out, f)
	}
	return out
}
