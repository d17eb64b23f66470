package oracle

import (
	"fmt"
	"sort"
	"strings"
)

// disagreement is one history on which a mode's verdict is not the oracle's.
type disagreement struct {
	mode        string
	kind        string // "false PASS", "false FAIL"
	oracleValid bool
	oracleWhy   string
	failing     []string
	text        []byte
	seed        uint64
}

func (d *disagreement) signature() string {
	return d.mode + "|" + d.kind + "|" + strings.Join(d.failing, ",") + "|" + reasonClass(d.oracleWhy)
}

// features: the shape of a (shrunk) disagreement, to tell causes apart.
func (d *disagreement) features() string {
	s, err := parseSpec(d.text)
	if err != nil {
		return ""
	}
	kinds := map[string]bool{}
	for _, op := range s.ops {
		kinds[fmt.Sprint(op.kind, op.dedup, op.errCode == "idempotency_key_reused")] = true
	}
	for t, r := range s.read {
		kinds[t] = r
	}
	var ks []string
	for k, v := range kinds {
		if v {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return fmt.Sprintf("%v %v %v %v %v %v", s.soleWriter, s.initial > 0, s.gapsForbidden, s.reject, s.clientScope, ks)
}

func reasonClass(why string) string {
	if i := strings.Index(why, ": "); i >= 0 {
		return why[i+2:]
	}
	return why
}

func classify(modeName string, oracleValid bool, why string, v *bool, failing []string) *disagreement {
	switch {
	case v == nil:
		return nil
	case *v && !oracleValid:
		return &disagreement{mode: modeName, kind: "false PASS", oracleValid: false, oracleWhy: why, failing: failing}
	case !*v && oracleValid:
		return &disagreement{mode: modeName, kind: "false FAIL", oracleValid: true, failing: failing}
	}
	return nil
}

// shrink drops operations, final lines and header promises while the same
// disagreement (same mode, same kind) persists, and stores the smallest
// history found in d.
func shrink(h *gHist, d *disagreement) {
	for _, m := range modes {
		if m.name == d.mode {
			shrinkIn(h, d, m)
		}
	}
}

// shrinkIn shrinks h while mode m's disagreement of d's kind persists, and,
// when alone is given, while mode m still fails the part of h alone
// returns by itself (the chats whose verdict the rest must not change).
func shrinkIn(h *gHist, d *disagreement, m mode, alone ...func(*gHist) *gHist) {
	mode := d.mode
	still := func(c *gHist) (*disagreement, bool) {
		for _, part := range alone {
			v, _, err := verdictOf(part(c).encode(), m)
			if err != nil || v == nil || *v {
				return nil, false
			}
		}
		data := c.encode()
		s, err := parseSpec(data)
		if err != nil {
			return nil, false
		}
		ov, why := s.judge()
		v, failing, err := verdictOf(data, m)
		if err != nil {
			return nil, false
		}
		got := classify(m.name, ov, why, v, failing)
		if got == nil || got.kind != d.kind {
			return nil, false
		}
		got.text = data
		return got, true
	}
	cur := h.clone()
	for changed := true; changed; {
		changed = false
		for _, c := range candidates(cur) {
			if got, ok := still(c); ok {
				cur, changed = c, true
				got.seed, got.mode = d.seed, mode
				*d = *got
				break
			}
		}
	}
}

// candidates: each history one step simpler than h.
func candidates(h *gHist) []*gHist {
	var out []*gHist
	for i := range h.ops {
		c := h.clone()
		c.ops = append(c.ops[:i:i], c.ops[i+1:]...)
		out = append(out, c)
	}
	for i := range h.finals {
		c := h.clone()
		c.finals = append(c.finals[:i:i], c.finals[i+1:]...)
		out = append(out, c)
	}
	tables := make([]string, 0, len(h.read))
	for t, r := range h.read {
		if r {
			tables = append(tables, t)
		}
	}
	sort.Strings(tables)
	for _, t := range tables {
		c := h.clone()
		c.dropLines(t)
		c.read[t] = false
		out = append(out, c)
	}
	flags := []func(*gHist) bool{
		func(c *gHist) bool { r := c.sole; c.sole = false; return r },
		func(c *gHist) bool { r := c.initial > 0; c.initial = 0; return r },
		func(c *gHist) bool { r := c.client; c.client = false; return r },
		func(c *gHist) bool { r := c.reject; c.reject = false; return r },
		func(c *gHist) bool { r := c.gapsForbidden; c.gapsForbidden = false; return r },
	}
	for _, f := range flags {
		c := h.clone()
		if f(c) {
			out = append(out, c)
		}
	}
	for i := range h.ops {
		if h.ops[i].f == "sync" && h.ops[i].limit > 0 {
			c := h.clone()
			c.ops[i].limit = 0
			out = append(out, c)
		}
		if h.ops[i].sender != "" && !h.client {
			c := h.clone()
			c.ops[i].sender = ""
			out = append(out, c)
		}
	}
	return out
}
