package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chatseq/chatseq/checker"
)

// contradiction is why a chat is not linearizable, as the checker wrote it
// (the smallest contradiction it found), laid out operation by operation:
// each operation its text names by line, in the order it names them, with its history lines, its span in time and why it must
// take effect after the one before. It is read back from the invariant's
// text and the counterexample's lines, so it is drawn whether or not
// porcupine drew the chat.
type contradiction struct {
	Chat  string
	Steps []contradictionStep
	// Others are operations of the counterexample the claim does not name
	// (the persists of unknown outcome that could have committed a
	// sequence).
	Others []contradictionStep
	// Span is the time from the first invoke to the last completion, in
	// nanoseconds: the timeline's width.
	Span int64
}

// contradictionStep is one operation of a contradiction.
type contradictionStep struct {
	N    int    // 1-based, in the claim's order
	Line int    // its invoke line
	Desc string // as the checker describes it: "persist w0-m3 → ok 7 msg_…"
	// Why it must take effect after the step before, when the claim says.
	Why              string
	Invoke, Complete numberedLine // Complete.N is 0 when it never completed
	// Left and Width place its span on the timeline, in percent.
	Left, Width float64
}

// contradictionStepRE matches "line N" and the checker's description of
// the operation invoked there (checker's model.describe), then the reason
// in parentheses that may follow it in a chain.
var contradictionStepRE = regexp.MustCompile(`line (\d+) (persist \S+ → (?:rejected \(reused\)|(?:ok|dedup) \d+ \S+|[^\s,;:()]+)|sync after \d+ limit \d+ → \[[^\]]*\])(?: \(([^()]*)\))?`)

// visualizationNote is what the checker appends about porcupine's drawing.
var visualizationNote = regexp.MustCompile(` \((?:no )?visualization[: ][^()]*\)$`)

// notLinearizable is how the checker's detail names the chat.
var notLinearizable = regexp.MustCompile(`chat "([^"]+)" is not linearizable: `)

// newContradiction reads inv, a failed linearizability verdict, with the
// text of its counterexample's lines; nil for another invariant.
func newContradiction(inv checker.Result, lines map[int]string) *contradiction {
	if inv.Name != checker.NameLinearizability || inv.Status != checker.Fail {
		return nil
	}
	c := &contradiction{}
	claim := inv.Detail
	if m := notLinearizable.FindStringSubmatchIndex(claim); m != nil {
		c.Chat = claim[m[2]:m[3]]
		claim = claim[m[1]:]
	}
	claim = visualizationNote.ReplaceAllString(claim, "")

	named := map[int]bool{}
	for _, m := range contradictionStepRE.FindAllStringSubmatch(claim, -1) {
		n, _ := strconv.Atoi(m[1])
		step := contradictionStep{N: len(c.Steps) + 1, Line: n, Desc: m[2], Why: m[3]}
		c.Steps = append(c.Steps, step)
		named[n] = true
	}
	// The counterexample's other operations: its invoke lines not named.
	for _, n := range inv.Lines {
		if !named[n] && lineType(lines[n]) == "invoke" {
			c.Others = append(c.Others, contradictionStep{N: len(c.Steps) + len(c.Others) + 1, Line: n, Desc: operationOf(lines[n])})
			named[n] = true
		}
	}
	c.place(inv.Lines, lines)
	return c
}

// place finds each operation's lines and its span in time, and lays the
// spans out on one timeline.
func (c *contradiction) place(counterexample []int, lines map[int]string) {
	type span struct{ start, end int64 }
	spans := make([]span, 0, len(c.Steps)+len(c.Others))
	first, last := int64(-1), int64(-1)
	all := append(c.Steps, c.Others...)
	for i := range all {
		s := &all[i]
		s.Invoke = numberedLine{N: s.Line, Text: lines[s.Line]}
		inv := parseHistoryLine(lines[s.Line])
		sp := span{start: inv.Time, end: -1}
		// Its completion: the next line of the counterexample from the
		// same process on the same chat.
		for _, n := range counterexample {
			if n <= s.Line {
				continue
			}
			if l := parseHistoryLine(lines[n]); l.Process == inv.Process && l.Chat == inv.Chat && l.Type != "invoke" && l.Type != "" {
				s.Complete = numberedLine{N: n, Text: lines[n]}
				sp.end = l.Time
				break
			}
		}
		spans = append(spans, sp)
		if lines[s.Line] == "" {
			continue
		}
		if first < 0 || sp.start < first {
			first = sp.start
		}
		last = max(last, sp.start, sp.end)
	}
	c.Span = last - first
	for i := range all {
		sp := spans[i]
		if all[i].Invoke.Text == "" || c.Span <= 0 {
			continue
		}
		end := sp.end
		if end < 0 { // never completed: it may take effect until the end
			end = last
		}
		all[i].Left = 100 * float64(sp.start-first) / float64(c.Span)
		all[i].Width = max(100*float64(end-sp.start)/float64(c.Span), 0.5)
		all[i].Left = min(all[i].Left, 100-all[i].Width) // a bar too short to see still shows, inside the track
	}
	c.Steps, c.Others = all[:len(c.Steps)], all[len(c.Steps):]
}

// historyLine is what the contradiction reads of a history line.
type historyLine struct {
	Type    string `json:"type"`
	Process int64  `json:"process"`
	F       string `json:"f"`
	Time    int64  `json:"time"`
	Chat    string `json:"chat"`
	Key     string `json:"key"`
}

func parseHistoryLine(text string) historyLine {
	var l historyLine
	json.Unmarshal([]byte(text), &l) // a line cut short or missing reads as empty
	return l
}

func lineType(text string) string { return parseHistoryLine(text).Type }

// operationOf names the operation an invoke line begins.
func operationOf(text string) string {
	l := parseHistoryLine(text)
	return strings.TrimSpace(fmt.Sprintf("%s %s", l.F, l.Key))
}

// SpanText is the timeline's length, for its axis.
func (c *contradiction) SpanText() string { return fms(float64(c.Span) / 1e6) }

// Timeline is every operation, named first.
func (c *contradiction) Timeline() []contradictionStep { return slices.Concat(c.Steps, c.Others) }
