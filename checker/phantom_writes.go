package checker

import (
	"fmt"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// What no_phantom_messages finds beside a key no persist sent, under
// sole_writer, where every message above initial_counter is one of the
// history's persists': a message stored as none of its key's persists
// sent it, and more messages without a key than persists could have made.

// storedAsNoneSent fails each final message above initial_counter whose
// key no ack created (no persist of it answered ok as new: the answers
// were lost, or only replays came back) and which stores another
// payload_hash, or sender, than every persist of its key sent but the
// failed ones, they all sending one: one of them made it, so it holds
// what that one sent. (A
// message an ack created is ack_implies_persistence's to compare.) A
// service that stored altered content under a key whose every send it
// answered 500 passed: a red-team's.
func storedAsNoneSent(v *verdict, x *index) {
	for _, i := range x.Msgs {
		f := x.Fin.At(i)
		if f.Key < 0 || f.Seq <= x.InitialCounter || x.ClientScope() && x.FinSender(i) == store.NoSender {
			// Under key_scope client a line without a sender names no
			// one sender's key, however it is attributed.
			continue
		}
		// A failed persist wrote nothing: the message holds what one
		// of the others sent.
		ops := x.KeyOpsThatMayHaveWritten(f.Key)
		if len(ops) == 0 || createdByAck(x, x.KeyOps(f.Key)) {
			continue
		}
		if held := x.FinPayload(i); held != 0 {
			if sent, one := oneValue(ops, func(o int32) uint64 { return x.Ops.At(o).Payload }); one && sent != 0 && held != sent {
				v.fail([]int{int(x.Ops.At(ops[0]).InvLine), int(f.Line)}, "chat %q seq %d: the final message %q (line %d) of %s stores other content than every persist of its key sent, but those that failed, were answered as a replay or came after an ok answer (its payload_hash differs from theirs, first sent at line %d), and no ack says which made it: under sole_writer one of them did, so it holds what they sent",
					x.ChatNames[f.Chat], f.Seq, x.MidName(f.MessageID), f.Line, x.phantomKey(f), x.Ops.At(ops[0]).InvLine)
				continue
			}
		}
		if held := x.FinSender(i); held != store.NoSender && x.SenderNames[held] != "" {
			if sent, one := oneValue(ops, func(o int32) uint32 { return x.Ops.At(o).Sender() }); one && sent != store.NoSender && x.SenderNames[sent] != "" && held != sent {
				v.fail([]int{int(x.Ops.At(ops[0]).InvLine), int(f.Line)}, "chat %q seq %d: the final message %q (line %d) of %s names sender %q, and every persist of its key but those that failed, were answered as a replay or came after an ok answer was sent by %q (first at line %d), and no ack says which made it: under sole_writer one of them did",
					x.ChatNames[f.Chat], f.Seq, x.MidName(f.MessageID), f.Line, x.phantomKey(f), x.SenderNames[held], x.SenderNames[sent], x.Ops.At(ops[0]).InvLine)
			}
		}
	}
}

// createdByAck reports whether a persist of ops answered ok as new.
func createdByAck(x *index, ops []int32) bool {
	for _, o := range ops {
		if x.Ops.At(o).Status == store.StOK && !x.IsDedup(o) {
			return true
		}
	}
	return false
}

// oneValue is the value every one of ops gives, if they all give one.
func oneValue[T comparable](ops []int32, of func(int32) T) (T, bool) {
	first := of(ops[0])
	for _, o := range ops[1:] {
		if of(o) != first {
			return first, false
		}
	}
	return first, true
}

// keylessBeyondCould fails each chat holding more final messages above
// initial_counter without a key (the table gives none, `""`) at
// sequences no ack holds than it has keys that could have made a message
// no ack names: a key with a persist of unknown outcome, none answered
// ok and no final message of its own. Each such message is one of the
// history's persists' (sole_writer), a key makes one message, and an
// acked key's is at its ack: the rest were written by no persist, or by
// one that failed. They were n/a or unknown ("no key that can be
// attributed"), a failed persist's write among them: a red-team's.
func keylessBeyondCould(v *verdict, x *index) {
	for c := range int32(len(x.ChatNames)) {
		mlo, mhi := store.Span(x.MsgSpan, c)
		var unexplained []int32
		alo, ahi := store.Span(x.AckSpan, c)
		for _, i := range x.Msgs[mlo:mhi] {
			f := x.Fin.At(i)
			if f.Key != store.FinKeyless || f.Seq <= x.InitialCounter {
				continue
			}
			if _, texted := x.SenderlessKey[i]; texted {
				continue // a key text some sender used: attributed to one of them
			}
			for alo < ahi && x.AckSeq(x.Acks[alo]) < f.Seq {
				alo++
			}
			if alo < ahi && x.AckSeq(x.Acks[alo]) == f.Seq {
				continue // the ack's message (its id compared by ack_implies_persistence)
			}
			unexplained = append(unexplained, i)
		}
		if len(unexplained) == 0 {
			continue
		}
		could := keysThatCouldHaveWritten(x, c)
		if len(unexplained) <= could {
			continue
		}
		f := x.Fin.At(unexplained[0])
		v.fail([]int{int(f.Line)}, "chat %q: the final messages table holds %s above initial_counter without a key at sequences no ack holds (the first: seq %d, %q, line %d), but only %s could have made a message no ack names (a persist of unknown outcome, none answered ok, no final message of its own), and the history says its clients are the chat's only writers (sole_writer): the others are phantom writes, or a failed persist's",
			x.ChatNames[c], plural(len(unexplained), "final message"), f.Seq, x.MidName(f.MessageID), f.Line, plural(could, "key"))
	}
}

// keysThatCouldHaveWritten counts chat c's keys with a persist of unknown
// outcome, none answered ok, and no final messages line of their own.
func keysThatCouldHaveWritten(x *index, c int32) int {
	olo, ohi := store.Span(x.OpChatSpan, c)
	seen := map[int32]bool{}
	could := 0
	for _, o := range x.OpsByChat[olo:ohi] {
		op := x.Ops.At(o)
		if op.Fn != store.FnPersist || op.Key < 0 || seen[op.Key] {
			continue
		}
		seen[op.Key] = true
		unknown, ok := false, false
		for _, p := range x.KeyOps(op.Key) {
			switch x.Ops.At(p).Status {
			case store.StInfo, store.StOpen:
				unknown = true
			case store.StOK:
				ok = true
			}
		}
		if unknown && !ok && x.KeyMsg[op.Key] < 0 {
			could++
		}
	}
	return could
}

// unknownWriters counts the persists of chat c (the Log's number) that
// may have made a message no ack names: its keys that
// keysThatCouldHaveWritten counts, and its persists without a key of
// unknown outcome (each makes one message at most).
func unknownWriters(x *index, c int32) int {
	could := keysThatCouldHaveWritten(x, c)
	olo, ohi := store.Span(x.OpChatSpan, c)
	for _, o := range x.OpsByChat[olo:ohi] {
		if op := x.Ops.At(o); op.Fn == store.FnPersist && op.Key < 0 && (op.Status == store.StInfo || op.Status == store.StOpen) {
			could++
		}
	}
	return could
}

// beyondUnknownWriters says, under sole_writer, why n sequences of chat
// c above initial_counter that no ack holds, shown by what (pushes,
// events), are more than its persists could have made ("" when they are
// not): the history's clients are its chats' only writers, so each such
// message is one a persist of unknown outcome made. A sync's answer is
// linearizability's to judge (it places each persist in time); pushes
// and events are judged by count alone, which any one order could meet.
// Without it a device pushed, or a topic holding, a message no client
// could have written passed, though a sync showing it failed (an outside
// tester's).
func beyondUnknownWriters(x *index, c int32, n int, what string) string {
	if !x.SoleWriter || n == 0 {
		return ""
	}
	could := 0
	if c >= 0 {
		could = unknownWriters(x, c)
	}
	if n <= could {
		return ""
	}
	return fmt.Sprintf("%s %s above initial_counter that no ack holds, but the chat's persists of unknown outcome could have made only %d (a key makes one message), and the history says its clients are the chat's only writers (sole_writer): the others were written by no client, or by a failed persist",
		what, plural(n, "sequence"), could)
}
