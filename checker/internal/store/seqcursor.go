package store

import (
	"cmp"
	"github.com/chatseq/chatseq/checker/internal/columns"
)

// SeqCursor looks (seq, message id) pairs up in a view sorted by chat and
// sequence (acks, msgs, events). Asked in that same order, each look-up
// gallops on from the last, so a pass over another such view is a merge:
// a binary search for each of a 10 s run's million acks and messages
// missed the cache at every step.
type SeqCursor struct {
	view, spans []int32
	seqOf       func(int32) uint64
	idOf        func(int32) uint32
	chat        int32
	part        []int32 // the chat's share of view
	from        int
}

func NewSeqCursor(view, spans []int32, seqOf func(int32) uint64, idOf func(int32) uint32) *SeqCursor {
	return &SeqCursor{view: view, spans: spans, seqOf: seqOf, idOf: idOf, chat: -1}
}

func (x *Index) EventCursor() *SeqCursor {
	return NewSeqCursor(x.Events, x.EventSpan, x.FinSeq, x.FinID)
}

func (x *Index) MsgCursor() *SeqCursor { return NewSeqCursor(x.Msgs, x.MsgSpan, x.FinSeq, x.FinID) }

func (x *Index) AckCursor() *SeqCursor { return NewSeqCursor(x.Acks, x.AckSpan, x.AckSeq, x.AckID) }

func (x *Index) FinSeq(f int32) uint64 { return x.Fin.At(f).Seq }

func (x *Index) FinID(f int32) uint32 { return x.Fin.At(f).MessageID }

// Has reports whether chat's share of the view holds (seq, id).
func (c *SeqCursor) Has(chat int32, seq uint64, id uint32) bool {
	if chat != c.chat {
		lo, hi := Span(c.spans, chat)
		c.chat, c.part, c.from = chat, c.view[lo:hi], 0
	}
	i, _ := columns.SearchFrom(c.part, c.from, seq, func(e int32, s uint64) int { return cmp.Compare(c.seqOf(e), s) })
	c.from = i
	for ; i < len(c.part) && c.seqOf(c.part[i]) == seq; i++ {
		if c.idOf(c.part[i]) == id {
			return true
		}
	}
	return false
}
