package store

import "slices"

// SentMsg is what the persist that created a message sent: its
// payload_hash and sender (StringHash of each, 0: not given), and its
// invoke line.
type SentMsg struct {
	Payload, Sender uint64
	Line            int
	// Key is the persist's key (-1: none): sent with the message, it is
	// the message's client_message_id.
	Key int32
}

// SentOf maps each message a persist created (acknowledged, not as a
// replay) to what that persist sent, by chat (the Log's) and StringHash
// of the message id; the first such persist of a message wins: at its
// lowest sequence, the first acknowledged. A
// message acknowledged only as a replay (its creating attempt's answer
// was lost) is, field by field, what its key's persists sent when they
// all sent the same (but those that failed, were answered as a replay
// or came after an ok answer of the key: they wrote nothing), where
// one of them created it: the history's clients
// are its chats' only writers (sole_writer) and it lies above
// initial_counter. Otherwise (a message from before the run or another
// writer's) which one created it, if any, is not known, and it is left
// out; a field they did not all send alike (a key reused with other
// content) is not compared.
func (x *Index) SentOf() map[ChatMid]SentMsg { return x.SentOfSome(nil) }

// SentOfSome is SentOf of the messages in want only (nil: all).
func (x *Index) SentOfSome(want map[ChatMid]bool) map[ChatMid]SentMsg {
	out := map[ChatMid]SentMsg{}
	// The acks come by (chat, seq, call): of a message's creating acks
	// at its lowest sequence, the first acknowledged (by line) wins, as
	// the online check takes it (the sequence's first ack): by call, one
	// invoked first and answered second won, and a push or page showing
	// its content failed online and passed here (a red team's).
	type pick struct {
		k    ChatMid
		done int32
	}
	var run []pick // the messages picked at the current (chat, seq)
	var runChat int32 = -1
	var runSeq uint64
	for _, o := range x.Acks {
		op := x.Ops.At(o)
		if op.Chat != runChat || op.seq != runSeq {
			run, runChat, runSeq = run[:0], op.Chat, op.seq
		}
		if op.dedup() {
			continue
		}
		k := ChatMid{op.Chat, x.MidHash[op.mid()]}
		if want != nil && !want[k] {
			continue
		}
		if _, ok := out[k]; ok {
			i := slices.IndexFunc(run, func(p pick) bool { return p.k == k })
			if i < 0 || run[i].done <= op.DoneLine {
				continue // picked at a lower sequence, or acknowledged first
			}
			run[i].done = op.DoneLine
		} else {
			run = append(run, pick{k, op.DoneLine})
		}
		out[k] = SentMsg{Payload: op.Payload, Sender: StringHash(x.SenderNames[op.aux]), Line: int(op.InvLine), Key: op.Key}
	}
	tried := map[int32]bool{}
	for _, o := range x.Acks {
		op := x.Ops.At(o)
		if !op.dedup() || op.Key < 0 || tried[op.Key] || !x.SoleWriter || op.seq <= x.InitialCounter {
			continue
		}
		tried[op.Key] = true
		k := ChatMid{op.Chat, x.MidHash[op.mid()]}
		if _, ok := out[k]; ok || want != nil && !want[k] {
			continue
		}
		if s, ok := x.sentByKey(op.Key); ok {
			out[k] = s
		}
	}
	return out
}

// sentByKey is, field by field, what every persist of key k that may
// have written its message (not a failed one) sent: its payload hash if
// they all sent one, its sender if they all named one (0 where they
// differ: a key reused with other content still has its one sender), and
// k; false when k has no such persist. The line is the first one's
// invoke.
func (x *Index) sentByKey(k int32) (SentMsg, bool) {
	ops := x.KeyOpsThatMayHaveWritten(k)
	if len(ops) == 0 {
		return SentMsg{}, false
	}
	first := x.Ops.At(ops[0])
	payload, sender := first.Payload, first.aux
	samePayload, sameSender := true, true
	for _, o := range ops[1:] {
		op := x.Ops.At(o)
		samePayload = samePayload && op.Payload == payload
		sameSender = sameSender && op.aux == sender
	}
	s := SentMsg{Line: int(first.InvLine), Key: k}
	if samePayload {
		s.Payload = payload
	}
	if sameSender {
		s.Sender = StringHash(x.SenderNames[sender])
	}
	return s, true
}

// ChatMid is a message id (its StringHash) in a chat.
type ChatMid struct {
	Chat int32
	ID   uint64
}
