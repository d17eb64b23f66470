package checker

import (
	"maps"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameIdenticalOrder is ADR-001's "Per-Chat Total Order": all
// participants in a chat observe messages in identical order.
const NameIdenticalOrder = "identical_order"

// checkIdenticalOrder: no device is pushed a (seq, message_id) of a chat
// that differs from the final messages table (without it, from the
// acknowledgements): another id at the sequence, or, at a sequence it
// holds nothing at, an id it holds at another; nor from what any device
// was pushed at that sequence before; one message id is never pushed at
// two sequences of a chat. With
// the messages table, a pushed sequence the table does not hold (above
// initial_counter) is a message the service never kept. Order of arrival
// is not judged: the transport may reorder, and the client reorders by
// sequence (ADR-001 §6); duplicates are at-least-once. The counterexample
// is the push and the line it disagrees with.
func checkIdenticalOrder(x *index) Result {
	v := newVerdict(NameIdenticalOrder)
	if why := x.ReceiversAbsent(); why != "" {
		v.notApplicable("%s", why)
		return v.result()
	}
	d := x.Delivery
	if d.Pushes.Len() == 0 {
		v.notApplicable("no push line delivered a message (%s, none with a sequence)", plural(d.PushLines, "push line"))
		return v.result()
	}
	ref := x.deliveryReference(d)
	type seen struct {
		id   uint64
		seq  uint64
		line int32
	}
	bySeq := map[chatSeq]seen{}
	byID := map[chatID]seen{}
	compared, contentCompared := 0, 0
	var sent map[store.ChatMid]store.SentMsg
	if d.WithContent > 0 {
		sent = x.SentOf()
	}
	// unheld: per chat, the sequences pushed that no ack holds (without
	// the messages table, under sole_writer), with their first push.
	unheld := map[int32]map[uint64]int32{}
	d.Pushes.Each(func(p *store.Push) {
		cs := chatSeq{p.Chat, p.Seq}
		if r, ok := ref.bySeq[cs]; ok {
			compared++
			if r.id != p.ID {
				v.fail([]int{int(p.Line), int(r.line)}, "the push at line %d gives chat %q seq %d another message id than %s %d (%q)",
					p.Line, d.Chats[p.Chat], p.Seq, ref.source(x), r.line, x.MidName(r.mid))
				return
			}
			if why, line := pushedContent(x, d, sent, p); why != "" {
				v.fail([]int{int(p.Line), line}, "the push at line %d gives chat %q seq %d (%q) %s than the persist at line %d sent: a message is pushed as it was sent",
					p.Line, d.Chats[p.Chat], p.Seq, x.MidName(r.mid), why, line)
				return
			} else if line > 0 {
				contentCompared++
			}
		} else if at, ok := ref.atID(x, d, p.Chat, p.ID); ok {
			// Nothing at this sequence, the message at another: the
			// device would show it where its sender was not told.
			compared++
			v.fail([]int{int(p.Line), int(at.line)}, "the push at line %d gives chat %q seq %d message id %q, which %s %d holds at seq %d",
				p.Line, d.Chats[p.Chat], p.Seq, x.MidName(at.mid), ref.source(x), at.line, at.seq)
			return
		} else if x.HasMessages && p.Seq > x.InitialCounter {
			// Also for a chat no operation or final line names: the
			// table read holds none of its messages.
			v.fail([]int{int(p.Line)}, "the push at line %d gives chat %q seq %d, which the final messages table does not hold", p.Line, d.Chats[p.Chat], p.Seq)
			return
		} else if x.SoleWriter && p.Seq > x.InitialCounter {
			if unheld[p.Chat] == nil {
				unheld[p.Chat] = map[uint64]int32{}
			}
			if _, ok := unheld[p.Chat][p.Seq]; !ok {
				unheld[p.Chat][p.Seq] = p.Line
			}
		}
		if first, ok := bySeq[cs]; !ok {
			bySeq[cs] = seen{id: p.ID, seq: p.Seq, line: p.Line}
		} else if first.id != p.ID {
			v.fail([]int{int(first.line), int(p.Line)}, "the pushes at lines %d and %d give chat %q seq %d two different message ids", first.line, p.Line, d.Chats[p.Chat], p.Seq)
			return
		}
		ci := chatID{p.Chat, p.ID}
		if first, ok := byID[ci]; !ok {
			byID[ci] = seen{id: p.ID, seq: p.Seq, line: p.Line}
		} else if first.seq != p.Seq {
			v.fail([]int{int(first.line), int(p.Line)}, "the pushes at lines %d and %d give one message id of chat %q two sequences, %d and %d", first.line, p.Line, d.Chats[p.Chat], first.seq, p.Seq)
		}
	})
	for c := range int32(len(d.Chats)) {
		seqs := unheld[c]
		if why := beyondUnknownWriters(x, x.LogChat(d, c), len(seqs), "pushes gave"); why != "" {
			first := slices.Min(slices.Collect(maps.Values(seqs)))
			v.fail([]int{int(first)}, "chat %q: %s (the first push of one: line %d)", d.Chats[c], why, first)
		}
	}
	if !x.HasMessages {
		v.note("no final messages lines: pushes compared with the acknowledgements and with each other")
	}
	against := "the final messages table"
	if !x.HasMessages {
		against = "the acknowledgements"
	}
	if contentCompared > 0 {
		v.note("%s carried as their persist sent them (content hash and sender)", plural(contentCompared, "pushed message"))
	}
	v.pass("%s of %s on %s agree with each other and with %s (%d of them compared with it)",
		plural(d.Pushes.Len(), "pushed message"), plural(len(d.Devs), "device"), plural(len(d.Chats), "chat"), against, compared)
	return v.result()
}

// pushedContent compares what a push line says a message carried (its
// payload hash, its sender) with what the persist that created it sent:
// why they differ ("" when they agree) and that persist's invoke line (0:
// nothing to compare, the push or the persist not saying).
func pushedContent(x *index, d *store.Delivery, sent map[store.ChatMid]store.SentMsg, p *store.Push) (why string, line int) {
	if p.Payload == 0 && p.Sender == 0 {
		return "", 0
	}
	lc := x.LogChat(d, p.Chat)
	if lc < 0 {
		return "", 0
	}
	s, ok := sent[store.ChatMid{Chat: lc, ID: p.ID}]
	if !ok {
		return "", 0
	}
	if p.Payload != 0 && s.Payload != 0 || p.Sender != 0 && s.Sender != 0 {
		return store.Differs(store.Carried{Payload: p.Payload, Sender: p.Sender}, store.Carried{Payload: s.Payload, Sender: s.Sender}), s.Line
	}
	return "", 0
}

type chatSeq struct {
	chat int32
	seq  uint64
}

type chatID struct {
	chat int32
	id   uint64
}

// refMsg is what a chat's sequence holds by the final messages table, or
// without it by an acknowledgement.
type refMsg struct {
	id   uint64 // stringHash of its message id, as pushes carry it
	mid  uint32 // the interned id, for messages
	seq  uint64
	line int
}

// deliveryRef is the reference pushes are compared with: each chat's
// sequences to the message (its sequence's first line), and, for a chat
// once asked (atID), its message ids to the message (an id's first): a
// push at a sequence nothing is known at is rare, and a map of every
// message by id doubled the reference's memory.
type deliveryRef struct {
	bySeq map[chatSeq]refMsg
	byID  map[int32]map[uint64]refMsg // by chat, made as asked
}

// source names where the reference comes from.
func (deliveryRef) source(x *index) string {
	if x.HasMessages {
		return "the final messages line"
	}
	return "the ack at line"
}

// deliveryReference maps each pushed chat's sequences to their message.
func (x *index) deliveryReference(d *store.Delivery) deliveryRef {
	ref := deliveryRef{bySeq: map[chatSeq]refMsg{}, byID: map[int32]map[uint64]refMsg{}}
	var buf []store.PersistedMsg
	for c := range d.Chats {
		lc := x.LogChat(d, int32(c))
		if lc < 0 {
			continue
		}
		buf = x.PersistedIn(lc, buf)
		for _, m := range buf {
			k := chatSeq{int32(c), m.Seq}
			if _, ok := ref.bySeq[k]; !ok { // two at one sequence: sequence_uniqueness's failure
				ref.bySeq[k] = refMsg{id: x.MidHash[m.ID], mid: m.ID, seq: m.Seq, line: m.Line}
			}
		}
	}
	return ref
}

// atID is the message with id in chat c by the reference, if it holds
// one (at two sequences: the first; idempotency's failure).
func (r deliveryRef) atID(x *index, d *store.Delivery, c int32, id uint64) (refMsg, bool) {
	ids, ok := r.byID[c]
	if !ok {
		ids = map[uint64]refMsg{}
		if lc := x.LogChat(d, c); lc >= 0 {
			for _, m := range x.PersistedIn(lc, nil) {
				if h := x.MidHash[m.ID]; h != 0 {
					if _, seen := ids[h]; !seen {
						ids[h] = refMsg{id: h, mid: m.ID, seq: m.Seq, line: m.Line}
					}
				}
			}
		}
		r.byID[c] = ids
	}
	m, ok := ids[id]
	return m, ok
}
