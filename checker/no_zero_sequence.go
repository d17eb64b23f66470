package checker

import (
	"slices"
)

// NameNoZeroSequence is the invariant's name as HISTORY.md spells it.
const NameNoZeroSequence = "no_zero_sequence"

// checkNoZeroSequence: sequences start at 1 — in acks, allocations, sync
// results and every final table that carries one.
func checkNoZeroSequence(x *index) Result {
	v := newVerdict(NameNoZeroSequence)
	checked := 0
	for _, o := range x.acks {
		checked++
		if x.ackSeq(o) == 0 {
			v.fail([]int{x.doneLine(o)}, "line %d acknowledges sequence 0 on chat %q", x.doneLine(o), x.chatNames[x.ops.At(o).chat])
		}
	}
	for a := range x.allocs.Count() {
		checked++
		if al := x.allocs.At(a); al.seq == 0 {
			v.fail([]int{int(al.line)}, "line %d allocates sequence 0 on chat %q", al.line, x.chatNames[al.chat])
		}
	}
	var buf syncBuf
	for i := range x.ops.Count() {
		seqs, ok := x.syncSeqsOf(int32(i), &buf)
		if x.ops.At(i).fn != fnSync || x.ops.At(i).status != stOK || !ok {
			continue
		}
		checked++
		if slices.Contains(seqs, 0) {
			v.fail([]int{x.doneLine(int32(i))}, "line %d: a sync on chat %q returned sequence 0", x.doneLine(int32(i)), x.chatNames[x.ops.At(i).chat])
		}
	}
	for i := range x.fin.Count() {
		f := x.fin.At(i)
		switch f.Table {
		case tableMessages, tableIdempotency, tableEvents:
			checked++
			if f.Seq == 0 {
				v.fail([]int{int(f.Line)}, "line %d: final %s line on chat %q has sequence 0", f.Line, f.Table, x.chatNames[f.chat])
			}
		}
	}
	if checked == 0 {
		v.notApplicable("no sequences in the history (no acks, allocations, sync results or final lines)")
	}
	v.pass("%s checked, all ≥ 1", plural(checked, "sequence-bearing line"))
	return v.result()
}
