package oracle

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// crossRun holds one cross-check's counts and the disagreements it found;
// its methods are called from several workers at once.
type crossRun struct {
	t        *testing.T
	mu       sync.Mutex
	tl       tally
	found    map[string]*disagreement // by signature and shape, after shrinking
	seen     map[string]int           // examples taken per signature, before
	unknowns map[string][]string      // a few histories each mode left undecided
	order    []string
	batches  int
}

type tally struct {
	histories, oracleValid, oracleInvalid int
	agree, falsePass, falseFail, unknown  map[string]int
	// beside: checks of an invalid history merged with a valid one;
	// besidePass: those chatseq found valid.
	beside, besidePass int
	unknownBy          map[string]int // mode: invariant -> histories it left unknown
}

func newCrossRun(t *testing.T) *crossRun {
	return &crossRun{t: t,
		tl: tally{agree: map[string]int{}, falsePass: map[string]int{}, falseFail: map[string]int{},
			unknown: map[string]int{}, unknownBy: map[string]int{}},
		found: map[string]*disagreement{}, seen: map[string]int{}, unknowns: map[string][]string{}}
}

func (r *crossRun) countOracle(valid bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tl.histories++
	if valid {
		r.tl.oracleValid++
	} else {
		r.tl.oracleInvalid++
	}
}

// alone checks one history by itself in every mode and counts it; it says
// whether every mode found it invalid.
func (r *crossRun) alone(h *gHist, seed uint64, ov bool, why string) (allInvalid bool) {
	data := h.encode()
	results := make([]*disagreement, len(modes))
	verdicts := make([]*bool, len(modes))
	for mi, m := range modes {
		v, failing, err := verdictOf(data, m)
		if err != nil {
			r.t.Errorf("seed %d: chatseq's reader rejects a generated history: %v\n%s", seed, err, data)
			return false
		}
		verdicts[mi] = v
		if v == nil {
			r.noteUnknown(m, ov, why, failing, data)
		}
		if d := classify(m.name, ov, why, v, failing); d != nil {
			d.text, d.seed = data, seed
			results[mi] = d
		}
	}
	r.mu.Lock()
	for mi, m := range modes {
		switch d := results[mi]; {
		case verdicts[mi] == nil:
			r.tl.unknown[m.name]++
		case d == nil:
			r.tl.agree[m.name]++
		case d.kind == "false PASS":
			r.tl.falsePass[m.name]++
		default:
			r.tl.falseFail[m.name]++
		}
	}
	var fresh []*disagreement
	for mi, d := range results {
		if d == nil || mi > 0 && results[0] != nil && results[0].kind == d.kind {
			continue // porcupine agrees with the exact checker: shown once
		}
		if r.take(d.signature()) {
			fresh = append(fresh, d)
		}
	}
	r.mu.Unlock()
	for _, d := range fresh {
		shrink(h, d)
		r.keep(d)
	}
	for _, v := range verdicts {
		if v == nil || *v {
			return false
		}
	}
	return true
}

// take: whether to shrink and show another example of a signature (the
// caller holds mu).
func (r *crossRun) take(sig string) bool {
	if r.seen[sig] >= 6 || len(r.order) >= 80 {
		return false
	}
	r.seen[sig]++
	return true
}

// keep stores a shrunk disagreement unless one of its shape is kept.
func (r *crossRun) keep(d *disagreement) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sig := d.signature() + "|" + d.features(); r.found[sig] == nil {
		r.found[sig] = d
		r.order = append(r.order, sig)
	}
}

func (r *crossRun) noteUnknown(m mode, ov bool, why string, unknown []string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range unknown {
		r.tl.unknownBy[m.name+": "+strings.SplitN(u, ":", 2)[0]]++
	}
	if len(r.unknowns[m.name]) < 3 {
		r.unknowns[m.name] = append(r.unknowns[m.name], fmt.Sprintf("oracle %s; chatseq unknown: %v\n```\n%s```\n",
			oracleText(ov, why), unknown, data))
	}
}

// beside checks an invalid history beside a valid one of its class, as one
// file: a chat's verdict must not depend on another chat's lines (issue 26
// case 3), so chatseq must still fail it.
func (r *crossRun) beside(invalid, valid seeded, why string) {
	merged := mergeHistories([]seeded{valid, invalid})
	data := merged.encode()
	for _, m := range modes {
		v, failing, err := verdictOf(data, m)
		if err != nil {
			r.t.Errorf("seed %d beside %d: chatseq's reader rejects a generated history: %v", invalid.seed, valid.seed, err)
			return
		}
		passed := v != nil && *v
		r.mu.Lock()
		r.tl.beside++
		fresh := false
		if passed {
			r.tl.besidePass++
			fresh = r.take("beside|" + m.name)
		}
		r.mu.Unlock()
		if fresh {
			d := &disagreement{mode: m.name + " (beside a valid history)", kind: "false PASS", oracleWhy: why,
				failing: failing, text: data, seed: invalid.seed}
			shrinkIn(merged, d, m, func(c *gHist) *gHist { return c.onlyChats("b1.") })
			r.keep(d)
		}
	}
}

// batch checks histories the oracle finds valid, under one header and one
// set of tables read, as one history of many chats (checking a tiny history
// costs chatseq about a millisecond, nearly all of it fixed); only a batch
// not valid in every mode is checked again history by history.
func (r *crossRun) batch(batch []seeded) {
	data := mergeHistories(batch).encode()
	for _, m := range modes {
		v, _, err := verdictOf(data, m)
		if err != nil || v == nil || !*v {
			for _, b := range batch {
				r.alone(b.h, b.seed, true, "")
			}
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches++
	for _, m := range modes {
		r.tl.agree[m.name] += len(batch)
	}
}

// report: every kept disagreement, then a few unknowns, as Markdown.
func (r *crossRun) report() string {
	var b strings.Builder
	for _, sig := range r.order {
		d := r.found[sig]
		fmt.Fprintf(&b, "### %s, %s (seed %d)\n\noracle: %s; chatseq failing: %v\n\n```\n%s```\n\n",
			d.mode, d.kind, d.seed, oracleText(d.oracleValid, d.oracleWhy), d.failing, d.text)
	}
	for _, m := range modes {
		for _, u := range r.unknowns[m.name] {
			fmt.Fprintf(&b, "### %s, unknown (counted apart, not a failure)\n\n%s\n", m.name, u)
		}
	}
	return b.String()
}

func oracleText(valid bool, why string) string {
	if valid {
		return "VALID"
	}
	return "INVALID (" + why + ")"
}
