package oracle

import "fmt"

// finalCulprit names what in the final tables no linearization meets: a
// sole writer's phantom, or each table that alone suffices.
func (s *spec) finalCulprit(chat string, ops []operation) string {
	if s.soleWriter {
		c := *s
		c.soleWriter = false
		if c.newJudge(chat, ops).search() {
			return " (sole_writer: a message no persist could have written)"
		}
	}
	var alone []string
	for _, t := range []string{"messages", "idempotency", "counters"} {
		if !s.read[t] {
			continue
		}
		c := *s
		c.read = map[string]bool{t: true}
		if !c.newJudge(chat, ops).search() {
			alone = append(alone, t)
		}
	}
	return fmt.Sprintf(" (tables that alone break it: %v)", alone)
}

// lineMatches: a final line's key may be m's.
func (j *chatJudge) lineMatches(f finalLine, m message) bool {
	if m.mid != f.mid || m.seq != f.seq {
		return false
	}
	k := m.key
	if k.unique != "" && k.raw == "" && !k.anySender {
		return false // seen only by a sync: no line names its key
	}
	if k.raw != f.key {
		return false
	}
	if !j.s.clientScope || !f.hasSender {
		return true
	}
	if k.anySender {
		// Another writer's message (FORMAT.md: "never under a key the
		// history used"): not the line's if its sender's key is one a
		// persist of the history used.
		return !j.usedKeys[j.s.scoped(f.key, f.sender).id()]
	}
	return k.sender == f.sender
}

// finalOK: the tables read show st as the state after the run.
func (j *chatJudge) finalOK(st state) bool {
	s := j.s
	if s.read["messages"] {
		lines := j.finals["messages"]
		seqs := map[uint64]bool{}
		for _, f := range lines {
			if seqs[f.seq] {
				return false // two different rows at one sequence
			}
			seqs[f.seq] = true
			m, ok := st.at(f.seq)
			if !ok || !j.lineMatches(f, m) {
				return false
			}
		}
		if len(seqs) != len(st) {
			return false
		}
	}
	if s.read["idempotency"] {
		seqs := map[uint64]bool{}
		for _, f := range j.finals["idempotency"] {
			if seqs[f.seq] {
				return false
			}
			seqs[f.seq] = true
			m, ok := st.at(f.seq)
			if !ok || !j.lineMatches(f, m) {
				return false
			}
		}
		// A record is required of every message the history shows to
		// exist: a line of the messages table read, or an ack. Its absence
		// proves no message elsewhere (records expire: lead, D11).
		for _, m := range st {
			if (s.read["messages"] || j.acked(m)) && !seqs[m.seq] {
				return false
			}
		}
	}
	if s.read["counters"] {
		lines := j.finals["counters"]
		if len(lines) != 1 || lines[0].missing {
			return false // missing, or two different values
		}
		top := j.top(st)
		v := lines[0].value
		if v < top || (s.gapsForbidden && v != top) {
			return false
		}
	}
	return true
}

// acked: an ok persist of the chat answered with m.
func (j *chatJudge) acked(m message) bool {
	for i := range j.ops {
		d := &j.ops[i]
		if (d.kind == dNew || d.kind == dReplay) && d.seq == m.seq && d.mid == m.mid {
			return true
		}
	}
	return false
}
