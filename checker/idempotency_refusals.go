package checker

import (
	"github.com/chatseq/chatseq/checker/internal/store"
)

// refusedWhenHeld fails, under key_reuse return-original, each persist
// refused as reused (idempotency_key_reused) that was invoked after its
// key was known held: an ok answer of the key, or a sync that returned
// the message an ok answer of the key gave, had completed. ADR-001 gives
// a held key its original sequence, whatever the content; a refusal while
// the key's first persist is still in flight (a service may refuse a
// concurrent duplicate) is not judged. It returns how many it failed.
func (x *index) refusedWhenHeld(v *verdict) int {
	// The keys refused, and the messages their ok answers gave.
	var refused []int32
	shown := map[chatSeqID]int32{} // the earliest sync to return each, -1 none
	for k := int32(0); k < int32(len(x.KeyNames)); k++ {
		ops := x.KeyOps(k)
		refusedOnce := false
		for _, o := range ops {
			refusedOnce = refusedOnce || x.IsRejection(o)
		}
		if !refusedOnce {
			continue
		}
		refused = append(refused, k)
		for _, o := range ops {
			if x.Ops.At(o).Status == store.StOK {
				shown[x.ackedAs(o)] = -1
			}
		}
	}
	if len(refused) == 0 {
		return 0
	}
	x.firstSyncsShowing(shown)
	failed := 0
	for _, k := range refused {
		// When the key was first known held, and by which line.
		heldAt, heldLine, heldBy := int64(store.TimeMax), 0, ""
		for _, o := range x.KeyOps(k) {
			if x.Ops.At(o).Status != store.StOK {
				continue
			}
			if t := x.Ret(o); t < heldAt {
				heldAt, heldLine, heldBy = t, x.DoneLine(o), "acknowledged"
			}
			if y := shown[x.ackedAs(o)]; y >= 0 && x.Ret(y) < heldAt {
				heldAt, heldLine, heldBy = x.Ret(y), x.DoneLine(y), "returned by a sync"
			}
		}
		for _, r := range x.KeyOps(k) {
			if x.IsRejection(r) && x.Call(r) > heldAt {
				failed++
				v.fail(append(x.OpLines(r), heldLine), "chat %q key %q was refused as reused (line %d) after its message was %s (line %d): under key_reuse return-original a held key gets its original sequence",
					x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.DoneLine(r), heldBy, heldLine)
			}
		}
	}
	return failed
}

// chatSeqID is a message by its chat, sequence and message id hash.
type chatSeqID struct {
	chat int32
	seq  uint64
	id   uint64
}

// ackedAs is the message ok persist o was answered with.
func (x *index) ackedAs(o int32) chatSeqID {
	return chatSeqID{x.Ops.At(o).Chat, x.AckSeq(o), x.MidHash[x.AckID(o)]}
}

// firstSyncsShowing sets, for each message in shown, the ok sync that
// returned it first (by its return), reading only the chats shown names.
func (x *index) firstSyncsShowing(shown map[chatSeqID]int32) {
	chats := map[int32]bool{}
	for m := range shown {
		chats[m.chat] = true
	}
	var buf store.SyncBuf
	for c := range chats {
		lo, hi := store.Span(x.SyncSpan, c)
		for _, y := range x.SyncsByChat[lo:hi] {
			seqs, ids, ok := x.SyncResult(y, &buf)
			if !ok || len(ids) != len(seqs) {
				continue
			}
			for i, s := range seqs {
				m := chatSeqID{c, s, ids[i]}
				if first, want := shown[m]; want && (first < 0 || x.Ret(y) < x.Ret(first)) {
					shown[m] = y
				}
			}
		}
	}
}
