package oracle

import (
	"fmt"
	"math"
)

// storedAsItsKeySent, read from FORMAT.md's sole_writer paragraph: with
// sole_writer, a final message above initial_counter that no ack created
// (no persist of its key answered ok with dedup false: its key's answers
// were lost, or only replays came back) stores the payload_hash and the
// sender its key's persists all sent, where they all sent one (one of
// them made it), those that failed, were answered as a replay or were invoked after an ok answer of the key left out: a fail took no effect, a replay answers with a message an earlier persist made, and after an ok answer the message exists. The key is as key_scope scopes it: under client, the
// line's sender's; a line without a sender under client is not read here
// (any sender's, it names no one key). An entry "" on either side is not
// compared.
func (s *spec) storedAsItsKeySent(chat string, ops []operation) string {
	if !s.soleWriter {
		return ""
	}
	for _, f := range s.finals {
		if f.table != "messages" || f.chat != chat || f.seq <= s.initial || (s.clientScope && !f.hasSender) {
			continue
		}
		var keyOps []operation
		created := false
		known := firstOKAnswer(ops, func(op operation) bool {
			return op.key == f.key && (!s.clientScope || op.sender == f.sender)
		})
		for _, op := range ops {
			if op.key != f.key || s.clientScope && op.sender != f.sender {
				continue
			}
			if op.kind == persistOK && !op.dedup {
				created = true
			}
			// "A fail took no effect" (HISTORY.md): a failed persist
			// made no message, so what it sent says nothing of one.
			// Nor did a persist answered as a replay (its answer is a
			// message an earlier persist made), nor one invoked after
			// an ok answer of the key had shown its message written.
			if op.kind != persistOK && op.kind != persistInfo || op.kind == persistOK && op.dedup || op.invoke > known {
				continue
			}
			keyOps = append(keyOps, op)
		}
		if created || len(keyOps) == 0 {
			continue
		}
		if p, one := allSent(keyOps, func(op operation) string { return op.payload }); one && p != "" && f.payload != "" && f.payload != p {
			return fmt.Sprintf("no_phantom_messages: seq %d %q of key %q, no ack created it, is stored with %q; every persist of its key sent %q", f.seq, f.mid, f.key, f.payload, p)
		}
		if snd, one := allSent(keyOps, func(op operation) string { return op.sender }); one && snd != "" && f.sender != "" && f.sender != snd {
			return fmt.Sprintf("no_phantom_messages: seq %d %q of key %q, no ack created it, is stored as sent by %q; every persist of its key was sent by %q", f.seq, f.mid, f.key, f.sender, snd)
		}
	}
	return ""
}

// firstOKAnswer is when the first persist ok of ops that mine holds
// completed (math.MaxInt64: none).
func firstOKAnswer(ops []operation, mine func(operation) bool) int64 {
	known := int64(math.MaxInt64)
	for _, op := range ops {
		if op.kind == persistOK && mine(op) && op.complete < known {
			known = op.complete
		}
	}
	return known
}

// allSent is the one value every op gives, if they all give the same.
func allSent(ops []operation, of func(operation) string) (string, bool) {
	for _, op := range ops[1:] {
		if of(op) != of(ops[0]) {
			return "", false
		}
	}
	return of(ops[0]), true
}
