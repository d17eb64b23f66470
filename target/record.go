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

// SyncResultOf is what a sync returned, as a history records it, with
// what each message carried where the read said it (its key, sender and
// content's PayloadHash): the check compares them with what was sent, so
// a service whose pages show a message altered fails.
func SyncResultOf(msgs []store.Message) *history.SyncResult {
	r := &history.SyncResult{Seqs: make([]uint64, len(msgs)), MessageIDs: make([]string, len(msgs))}
	for i, m := range msgs {
		r.Seqs[i], r.MessageIDs[i] = m.Seq, m.MessageID
		said(&r.Keys, len(msgs), i, m.Key)
		said(&r.Senders, len(msgs), i, m.Sender)
		if !m.ContentUnknown {
			r.PayloadHashes = sized(r.PayloadHashes, len(msgs))
			r.PayloadHashes[i] = PayloadHash(m.Content)
		}
	}
	return r
}

// said sets (*ss)[i] to v, making *ss n long at the first v given.
func said(ss *[]string, n, i int, v string) {
	if v != "" {
		*ss = sized(*ss, n)
		(*ss)[i] = v
	}
}

func sized(ss []string, n int) []string {
	if ss == nil {
		ss = make([]string, n)
	}
	return ss
}
