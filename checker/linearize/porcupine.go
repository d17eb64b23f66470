package linearize

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Porcupine's visualizations and hints stay readable.
const (
	visualizeMaxOps   = 20_000
	visualizeMaxBytes = 64 << 20
	hintMaxLines      = 50
)

// EntryBytes is what one step that porcupine caches may hold on a
// chat of n operations: a bitset of n/8 bytes, a state, and two treap
// paths of ~1.5·log2(n) 64-byte nodes.
func EntryBytes(n int) int64 {
	return int64(n/8 + 2*64*int(1.5*math.Log2(float64(n+2))) + 256)
}

// Outcome is the verdict on one chat.
type Outcome struct {
	Ops    int // the operations decided
	Status Status
	Why    string // unknown: "fallback" (Exact), "timeout", "memory", "size", "budget"
	Detail string
	Lines  []int  // the counterexample's lines (Fail)
	Viz    string // visualization file written, or why not
	// Others: sequences taken as other writers' (Exact, a passed chat of
	// a history without sole_writer); OthersUnmade: how many of them no
	// persist of the history could have made in time.
	Others       []uint64
	OthersUnmade int
}

// linkWaits fills the wait list of each persist that commits a known
// sequence (see model): the syncs concurrent with it whose answer covers
// that sequence yet leaves it out. One sweep in call order meets every
// overlapping pair once. An operation of unknown outcome never ends, so it
// stops pairing once a sync has shown its sequence and returned: a later
// sync that leaves it out fails whatever the order, and waits only ever
// prune the search, so omitting one never changes a verdict.
func linkWaits(m *Chat, ops []porcupine.Operation) {
	order := make([]int32, len(ops))
	until := make([]int64, len(ops)) // when an operation stops pairing
	sorted := make([]bool, len(ops)) // a sync's answer is ascending
	m.waits = make([][]int32, len(ops))
	for i := range order {
		order[i] = int32(i)
		until[i] = ops[i].Return
		sorted[i] = m.Ops[i].Kind != KindSync || slices.IsSorted(m.SyncOf(&m.Ops[i]).Seqs)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
	var persists, syncs []int32 // started, still pairing
	prune := func(active []int32, now int64) []int32 {
		kept := active[:0]
		for _, i := range active {
			if until[i] >= now {
				kept = append(kept, i)
			}
		}
		return kept
	}
	pair := func(p, s int32) {
		po, so := &m.Ops[p], m.SyncOf(&m.Ops[s])
		if po.Seq <= so.After || !sorted[s] {
			return
		}
		if so.Top > 0 && po.Seq > so.Top {
			return
		}
		if _, shown := slices.BinarySearch(so.Seqs, po.Seq); shown {
			until[p] = min(until[p], ops[s].Return)
			return
		}
		m.waits[p] = append(m.waits[p], s)
	}
	for _, i := range order {
		now := ops[i].Call
		switch k := m.Ops[i].Kind; {
		case k == KindNew || k == KindInfo && m.Ops[i].Seq != 0:
			syncs = prune(syncs, now)
			for _, s := range syncs {
				pair(i, s)
			}
			persists = append(persists, i)
		case k == KindSync:
			persists = prune(persists, now)
			for _, p := range persists {
				pair(p, i)
			}
			syncs = append(syncs, i)
		}
	}
}

// Model is chat m's sequential specification as porcupine reads it.
func Model(m *Chat) porcupine.Model {
	equal := func(a, b any) bool { return equalStates(a.(*lstate), b.(*lstate)) }
	hash := func(s any) uint64 { return s.(*lstate).h }
	describeOp := func(in, _ any) string { return m.describe(int(in.(int32))) }
	describeState := func(s any) string { return m.describeState(s.(*lstate)) }
	if !m.nondeterministic() {
		return porcupine.Model{
			Init: func() any { return m.initialState() },
			Step: func(s, in, _ any) (bool, any) {
				next := m.step(s.(*lstate), in.(int32))
				if len(next) == 0 {
					return false, nil
				}
				return true, next[0]
			},
			Equal: equal, Hash: hash, DescribeOperation: describeOp, DescribeState: describeState,
		}
	}
	// A sync that returns sequences no committed message holds binds them
	// to pending commits in every way it can: a set of states per step.
	nm := porcupine.NondeterministicModel{
		Init: func() []any {
			var out []any
			for _, s := range m.initialStates() {
				out = append(out, s)
			}
			return out
		},
		Step: func(s, in, _ any) []any {
			next := m.step(s.(*lstate), in.(int32))
			out := make([]any, len(next))
			for i, n := range next {
				out[i] = n
			}
			return out
		},
		Equal: equal, Hash: hash, DescribeOperation: describeOp, DescribeState: describeState,
	}
	return nm.ToModel()
}

// Porcupine decides chat m with porcupine's search, within timeout and mem bytes of porcupine's
// cache; the caller leaves out chats too large for mem.
func Porcupine(m *Chat, ops []porcupine.Operation, timeout time.Duration, mem int64, draw *Drawings) Outcome {
	x := m.h
	out := Outcome{Ops: len(ops)}
	if timeout < time.Millisecond {
		out.Status, out.Why = Unknown, "budget"
		return out
	}
	if a, b, why, found := m.contradiction(); found {
		// No order can satisfy both: porcupine would have to exhaust every
		// interleaving to say so.
		out.Status = Fail
		if a == b {
			out.Detail = fmt.Sprintf("line %d %s can take effect in no order: %s", x.InvokeLine(m.Ops[a].Op), m.describe(a), why)
			out.Lines = x.Lines(m.Ops[a].Op)
			return out
		}
		out.Detail = fmt.Sprintf("no order satisfies both line %d %s and line %d %s: %s",
			x.InvokeLine(m.Ops[a].Op), m.describe(a), x.InvokeLine(m.Ops[b].Op), m.describe(b), why)
		out.Lines = append(x.Lines(m.Ops[a].Op), x.Lines(m.Ops[b].Op)...)
		return out
	}
	// Each successful step may become a cache entry.
	m.maxSteps = int(mem / EntryBytes(len(ops)))
	model := Model(m)
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	switch {
	case m.aborted:
		out.Status, out.Why = Unknown, "memory"
	case res == porcupine.Unknown:
		out.Status, out.Why = Unknown, "timeout"
	case res == porcupine.Ok:
		out.Status = Pass
	default:
		out.Status = Fail
		out.Detail, out.Lines = hint(m, ops, info)
		m.maxSteps = -1 // replaying for the visualization must not hit the bound
		if ok, note := draw.take(); ok {
			out.Viz = visualize(m.name, model, info, len(ops), draw.Dir)
		} else {
			out.Viz = note
		}
	}
	return out
}

// contradiction finds two operations that are illegal together in every
// order: two persists acked as new for one key or at one sequence, or a
// replay that disagrees with the persist that created its key (only that
// persist can have committed the key; operations of unknown outcome on it
// are left out).
func (m *Chat) contradiction() (a, b int, why string, found bool) {
	if a, b, why, found := m.preRunContradiction(); found {
		if a < 0 {
			a = b // the final table: the operation alone
		}
		return int(a), int(b), why, true
	}
	byKey := map[int32]int{}
	bySeq := map[uint64]int{}
	for i, o := range m.Ops {
		if o.Kind != KindNew {
			continue
		}
		if j, dup := byKey[o.Key]; dup {
			return j, i, "a key is created once", true
		}
		if j, dup := bySeq[o.Seq]; dup {
			return j, i, "a sequence holds one message", true
		}
		byKey[o.Key], bySeq[o.Seq] = i, i
	}
	// A key from before the run holds one message (its replay at or below
	// the initial counter says which): another answer, or its final line
	// elsewhere, contradicts it.
	preRun := map[int32]int{}
	for i, o := range m.Ops {
		if (o.Kind == KindDedup || o.Kind == KindInfo) && o.Seq != 0 && o.Seq <= m.Base {
			if _, seen := preRun[o.Key]; !seen {
				preRun[o.Key] = i
			}
		}
	}
	for i, o := range m.Ops {
		j, ok := preRun[o.Key]
		if ok && (o.Kind == KindDedup || o.Kind == KindInfo) && o.Seq != 0 && (o.Seq != m.Ops[j].Seq || o.ID != m.Ops[j].ID) {
			return j, i, "the key's message predates the run: one message", true
		}
	}
	for i, o := range m.Ops {
		if o.Kind != KindDedup {
			continue
		}
		j, ok := byKey[o.Key]
		if !ok {
			continue
		}
		c := m.Ops[j]
		if c.Seq != o.Seq || c.ID != o.ID {
			return j, i, "a replay answers the message that created the key", true
		}
		if m.Reject && c.Hash != 0 && o.Hash != 0 && c.Hash != o.Hash {
			return j, i, "under key_reuse reject, other content is rejected, not replayed", true
		}
	}
	return 0, 0, "", false
}

// hint names the longest linearizable prefix porcupine found
// and the operations none of which could extend it.
func hint(m *Chat, ops []porcupine.Operation, info porcupine.LinearizationInfo) (string, []int) {
	x := m.h
	var longest []int
	if parts := info.PartialLinearizations(); len(parts) > 0 {
		for _, p := range parts[0] {
			if len(p) > len(longest) {
				longest = p
			}
		}
	}
	in := make([]bool, len(ops))
	for _, id := range longest {
		in[id] = true
	}
	// The frontier: operations left out that could have come next, i.e.
	// invoked before every other left-out operation returned.
	minRet := int64(timeMax)
	for id, op := range ops {
		if !in[id] {
			minRet = min(minRet, op.Return)
		}
	}
	var frontier []int
	for id, op := range ops {
		if !in[id] && op.Call <= minRet {
			frontier = append(frontier, id)
		}
	}
	var lines []int
	add := func(id int) {
		if len(lines)+2 <= hintMaxLines {
			lines = append(lines, x.Lines(m.Ops[id].Op)...)
		}
	}
	var descs []string
	for i, id := range frontier {
		add(id)
		d := fmt.Sprintf("line %d %s", x.InvokeLine(m.Ops[id].Op), m.describe(id))
		// A persist held back by a sync that did not show it: that sync
		// is part of the evidence.
		for _, w := range m.waitOf(int32(id)) {
			if !in[w] {
				add(int(w))
				d += fmt.Sprintf(" (which the sync at line %d did not show)", x.DoneLine(m.Ops[w].Op))
			}
		}
		if i < 3 {
			descs = append(descs, d)
		}
	}
	for k := max(0, len(longest)-5); k < len(longest); k++ {
		add(longest[k])
	}
	more := ""
	if len(frontier) > 3 {
		more = fmt.Sprintf(" and %d more", len(frontier)-3)
	}
	d := fmt.Sprintf("the longest linearizable prefix has %d of %d operations; none of the operations that could come next fits: %s%s",
		len(longest), len(ops), strings.Join(descs, "; "), more)
	return d, lines
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// visualize writes porcupine's HTML for the chat named chat, within visualizeMaxBytes.
func visualize(chat string, model porcupine.Model, info porcupine.LinearizationInfo, n int, dir string) string {
	if n > visualizeMaxOps {
		return fmt.Sprintf(" (no visualization: %d operations, over %d)", n, visualizeMaxOps)
	}
	var buf bytes.Buffer
	w := &cappedWriter{w: &buf, left: visualizeMaxBytes}
	if err := porcupine.Visualize(model, info, w); err != nil {
		return fmt.Sprintf(" (no visualization: %v)", err)
	}
	name := filepath.Join(dir, fmt.Sprintf("linearizability-%s.html", unsafeName.ReplaceAllString(chat, "_")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Sprintf(" (no visualization: %v)", err)
	}
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		return fmt.Sprintf(" (no visualization: %v)", err)
	}
	return " (visualization: " + name + ")"
}

var errTooLarge = errors.New("visualization over the size cap")

type cappedWriter struct {
	w    *bytes.Buffer
	left int
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, errTooLarge
	}
	c.left -= len(p)
	return c.w.Write(p)
}

// Reference is m's model without the waits and the state hash, stepped
// plainly: what the optimised model (Model) is cross-checked against. It
// drops m's waits. contradicts reports what Porcupine decides before any
// search: operations that can take effect in no order.
func Reference(m *Chat) (model porcupine.Model, contradicts bool) {
	_, _, _, contradicts = m.contradiction()
	m.waits = nil
	model = Model(m)
	model.Hash = nil
	return model, contradicts
}
