package target

import (
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
)

// Completion is how a client records an operation that ended with err: ok,
// fail when it certainly had no effect, info when its outcome is unknown;
// and the error code.
func Completion(err error) (history.Kind, string) {
	if err == nil {
		return history.KindOK, ""
	}
	serr := sequencer.AsError(err)
	if serr.Definite {
		return history.KindFail, serr.Code
	}
	return history.KindInfo, serr.Code
}

// SyncResultOf is what a sync returned, as a history records it.
func SyncResultOf(msgs []store.Message) *history.SyncResult {
	r := &history.SyncResult{Seqs: make([]uint64, len(msgs)), MessageIDs: make([]string, len(msgs))}
	for i, m := range msgs {
		r.Seqs[i], r.MessageIDs[i] = m.Seq, m.MessageID
	}
	return r
}
