package online

import (
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// syncedAsSent judges what a sync's answer said each returned message
// carried (its key, sender and payload hash, where the line gives them)
// against what the persist that created it sent: the first ack at its
// sequence, of its id, not a replay, as a push's content is judged
// (pushedAsSent). From the first such answer on, what each persist sent
// is kept with its ack (the invokes after it); a message acknowledged before
// that is left to the check after the run, which compares every one. It
// reports whether it found a violation.
func (o *Checker) syncedAsSent(op *openOp, e *history.Event) bool {
	r := e.Sync
	if len(r.Keys)+len(r.Senders)+len(r.PayloadHashes) == 0 {
		return false
	}
	o.syncsSay = true
	acked := &o.acked[op.chat]
	for i, seq := range r.Seqs {
		said := store.Carried{Key: hashAt(r.Keys, i), Sender: hashAt(r.Senders, i), Payload: hashAt(r.PayloadHashes, i)}
		if said == (store.Carried{}) {
			continue
		}
		first, ok := acked.get(seq)
		if !ok {
			o.claim(op.chat, seq, contentClaim{id: store.SyncIDAt(r, i), said: said, line: int32(e.Line)})
			continue
		}
		if first.mid != store.SyncIDAt(r, i) {
			continue
		}
		sent, ok := acked.sentOf(seq)
		if !ok {
			continue
		}
		why := store.Differs(said, sent)
		if why == "" || o.idElsewhere(op.chat, first.mid, seq) {
			continue
		}
		o.violate(SyncCompleteness, []int{e.Line, int(first.line)}, e.Time,
			"sync at line %d on chat %q returned seq %d with %s than the persist acknowledged at line %d sent: a read shows a message as it was sent",
			e.Line, o.names[op.chat], seq, why, first.line)
		return true
	}
	return false
}

func hashAt(ss []string, i int) uint64 {
	if i < len(ss) {
		return store.StringHash(ss[i])
	}
	return 0
}
