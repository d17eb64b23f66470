package checker

import (
	"github.com/chatseq/chatseq/checker/internal/store"
	"slices"
)

// NameNoZeroSequence is the invariant's name as HISTORY.md spells it.
const NameNoZeroSequence = "no_zero_sequence"

// checkNoZeroSequence: sequences start at 1 — in acks, allocations, sync
// results, every final table that carries one and the messages pushed to
// devices.
func checkNoZeroSequence(x *index) Result {
	v := newVerdict(NameNoZeroSequence)
	checked := 0
	for _, o := range x.Acks {
		checked++
		if x.AckSeq(o) == 0 {
			v.fail([]int{x.DoneLine(o)}, "line %d acknowledges sequence 0 on chat %q", x.DoneLine(o), x.ChatNames[x.Ops.At(o).Chat])
		}
	}
	for a := range x.Allocs.Count() {
		checked++
		if al := x.Allocs.At(a); al.Seq == 0 {
			v.fail([]int{int(al.Line)}, "line %d allocates sequence 0 on chat %q", al.Line, x.ChatNames[al.Chat])
		}
	}
	var buf store.SyncBuf
	for i := range x.Ops.Count() {
		seqs, ok := x.SyncSeqsOf(int32(i), &buf)
		if x.Ops.At(i).Fn != store.FnSync || x.Ops.At(i).Status != store.StOK || !ok {
			continue
		}
		checked++
		if slices.Contains(seqs, 0) {
			v.fail([]int{x.DoneLine(int32(i))}, "line %d: a sync on chat %q returned sequence 0", x.DoneLine(int32(i)), x.ChatNames[x.Ops.At(i).Chat])
		}
	}
	for i := range x.Fin.Count() {
		f := x.Fin.At(i)
		switch f.Table {
		case store.TableMessages, store.TableIdempotency, store.TableEvents:
			checked++
			if f.Seq == 0 {
				v.fail([]int{int(f.Line)}, "line %d: final %s line on chat %q has sequence 0", f.Line, f.Table, x.ChatNames[f.Chat])
			}
		}
	}
	pushed := 0
	if d := x.Delivery; d != nil {
		for i := range int32(d.Pushes.Len()) {
			pushed++
			if p := d.Pushes.At(i); p.Seq == 0 {
				v.fail([]int{int(p.Line)}, "line %d pushes sequence 0 of chat %q to device %q", p.Line, d.Chats[p.Chat], d.Devs[p.Dev].Name)
			}
		}
	}
	if checked+pushed == 0 {
		v.notApplicable("no sequences in the history (no acks, allocations, sync results, final lines or pushes)")
	}
	if pushed > 0 {
		v.pass("%s and %s checked, all ≥ 1", plural(checked, "sequence-bearing line"), plural(pushed, "pushed message"))
	} else {
		v.pass("%s checked, all ≥ 1", plural(checked, "sequence-bearing line"))
	}
	return v.result()
}
