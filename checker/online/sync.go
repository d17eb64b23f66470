package online

import (
	"math"
	"slices"

	"github.com/chatseq/chatseq/history"
)

// onlineAcked is, per chat, the earliest ack of each sequence: what a sync
// invoked after it must return (sync_completeness). Sequences are dense
// from 1 in a chat, so they index a slice; one far above the others (a
// corrupt or hostile answer) goes to a map instead.
type onlineAcked struct {
	dense  []onlineSeqAck // by sequence
	sparse map[uint64]onlineSeqAck
	top    uint64 // the highest sequence acked
}

type onlineSeqAck struct {
	done int64  // earliest ack's completion time; noAck if none
	mid  uint64 // its message id's hash
	line int32  // its line
}

const noAck = math.MinInt64

// note records an ack of seq done at done (line) for message id hash mid;
// an earlier one stays, and is returned (ok) if there was one.
func (a *onlineAcked) note(seq uint64, done int64, line int32, mid uint64) (onlineSeqAck, bool) {
	if seq > a.top {
		a.top = seq
	}
	if seq >= uint64(len(a.dense)) {
		if seq > 2*uint64(len(a.dense))+1<<16 {
			if a.sparse == nil {
				a.sparse = map[uint64]onlineSeqAck{}
			}
			first, ok := a.sparse[seq]
			if !ok {
				a.sparse[seq] = onlineSeqAck{done, mid, line}
			}
			return first, ok
		}
		n := len(a.dense)
		a.dense = append(a.dense, make([]onlineSeqAck, int(seq)+1-n+n/2)...)
		for i := n; i < len(a.dense); i++ {
			a.dense[i].done = noAck
		}
	}
	if first := a.dense[seq]; first.done != noAck {
		return first, true
	}
	a.dense[seq] = onlineSeqAck{done, mid, line}
	return onlineSeqAck{}, false
}

// get is the first ack of seq, if any.
func (a *onlineAcked) get(seq uint64) (onlineSeqAck, bool) {
	if seq < uint64(len(a.dense)) {
		f := a.dense[seq]
		return f, f.done != noAck
	}
	f, ok := a.sparse[seq]
	return f, ok
}

// synced judges a sync that completed ok as sync_completeness does (its
// answer strictly ascending, above after, within its limit, and holding
// every message of the chat acknowledged before the sync was invoked with
// a sequence above after, up to its last sequence when the page is full):
// all of it is on the operations' lines. Whether the messages it returned
// exist is left to the check after the run, which has the final state.
func (o *Checker) synced(op openOp, e *history.Event) {
	if o.found[SyncCompleteness] {
		return // only the first violation is reported
	}
	var seqs []uint64
	ids := 0
	if e.Sync != nil {
		seqs = e.Sync.Seqs
		ids = max(len(e.Sync.MessageIDs), len(e.Sync.IDHashes))
	}
	chatName, dl := o.names[op.chat], int(e.Line)
	lines := []int{int(op.line), dl}
	if e.Sync != nil {
		switch {
		case ids != len(seqs):
			o.violate(SyncCompleteness, lines, e.Time, "sync at line %d on chat %q returned %d seqs but %d message_ids", dl, chatName, len(seqs), ids)
			return
		case op.limit > 0 && len(seqs) > op.limit:
			o.violate(SyncCompleteness, lines, e.Time, "sync at line %d on chat %q returned %d messages, above its limit %d", dl, chatName, len(seqs), op.limit)
			return
		}
		for i, s := range seqs {
			if s <= op.after {
				o.violate(SyncCompleteness, lines, e.Time, "sync at line %d on chat %q returned seq %d, not above after=%d", dl, chatName, s, op.after)
				return
			}
			if i > 0 && s <= seqs[i-1] {
				o.violate(SyncCompleteness, lines, e.Time, "sync at line %d on chat %q returned seq %d after %d: not strictly ascending", dl, chatName, s, seqs[i-1])
				return
			}
		}
	}
	acked := &o.acked[op.chat]
	hi := acked.top
	if op.limit > 0 && len(seqs) == op.limit {
		hi = min(hi, seqs[len(seqs)-1]) // a full page answers up to its last sequence
	}
	missed := func(s uint64, a onlineSeqAck) {
		o.violate(SyncCompleteness, []int{int(a.line), int(op.line), dl}, e.Time,
			"sync at line %d on chat %q (after=%d, limit=%d) missed seq %d, acknowledged at line %d before the sync was invoked",
			dl, chatName, op.after, op.limit, s, a.line)
	}
	// Acks are in the file in time order: those before the invoke line
	// are the ones done before it, but for ties, which the time tells.
	j := 0
	for s := op.after + 1; s <= hi && s < uint64(len(acked.dense)); s++ {
		a := acked.dense[s]
		if a.done == noAck || a.done >= op.call {
			continue
		}
		for j < len(seqs) && seqs[j] < s {
			j++
		}
		if j == len(seqs) || seqs[j] != s {
			missed(s, a)
			return
		}
	}
	for s, a := range acked.sparse {
		if s > op.after && s <= hi && a.done < op.call {
			if _, in := slices.BinarySearch(seqs, s); !in {
				missed(s, a)
				return
			}
		}
	}
}
