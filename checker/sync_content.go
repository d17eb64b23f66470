package checker

import "github.com/chatseq/chatseq/checker/internal/store"

// syncContent judges what sync answers said their messages carried (a
// sync ok line's keys, senders, payload_hashes) against what the persist
// that created each message sent, by the rule identical_order applies to
// a push's content (store.SentOf): a read that shows a message with
// another key, sender or content than it was sent with fails
// sync_completeness. What the first ack at a sequence vouched for as the
// line was read is not kept (store.SyncClaim); the rest is compared here.
// It returns how many answered messages said what they carried, and how
// many of those could not be compared (no persist known to have created
// the message).
func (x *index) syncContent(v *verdict) (said, uncompared int) {
	said = x.SyncClaimed
	if len(x.SyncClaims) == 0 {
		return said, 0
	}
	want := make(map[store.ChatMid]bool, len(x.SyncClaims))
	for _, c := range x.SyncClaims {
		want[store.ChatMid{Chat: c.Chat, ID: c.ID}] = true
	}
	sent := x.SentOfSome(want)
	var stored map[store.ChatMid]storedMsg
	var replayed map[store.ChatMid]replayedKey
	for _, c := range x.SyncClaims {
		s, ok := sent[store.ChatMid{Chat: c.Chat, ID: c.ID}]
		if !ok {
			// No persist is known to have created it: a replay that
			// answered with it says its key, and the final messages table,
			// where it stores the message at that sequence, what it
			// carries; a message carries one key, sender and content
			// however it is read.
			if stored == nil {
				stored, replayed = x.storedAs(want), x.replayedKeys(want)
			}
			r, byReplay := replayed[store.ChatMid{Chat: c.Chat, ID: c.ID}]
			f, byTable := stored[store.ChatMid{Chat: c.Chat, ID: c.ID}]
			byTable = byTable && f.seq == c.Seq
			switch {
			case !byReplay && !byTable:
				uncompared++
			case byReplay && c.Said.Key != 0 && c.Said.Key != r.key:
				// A replay's answer names the message as its key's, whoever
				// wrote it.
				v.fail([]int{int(c.Line), r.line}, "sync at line %d on chat %q returned seq %d with another key than the replay at line %d answered it for: a message carries one key however it is read",
					c.Line, x.ChatNames[c.Chat], c.Seq, r.line)
			case byTable:
				if why := store.Differs(c.Said, f.carried); why != "" {
					v.fail([]int{int(c.Line), f.line}, "sync at line %d on chat %q returned seq %d with %s than the final messages table stores it with (line %d): a message carries one key, sender and content however it is read",
						c.Line, x.ChatNames[c.Chat], c.Seq, why, f.line)
				}
			}
			continue
		}
		sentWith := store.Carried{Sender: s.Sender, Payload: s.Payload}
		if s.Key >= 0 {
			sentWith.Key = store.StringHash(x.KeyText(s.Key))
		}
		why := store.Differs(c.Said, sentWith)
		if why == "" {
			continue
		}
		v.fail([]int{int(c.Line), s.Line}, "sync at line %d on chat %q returned seq %d with %s than the persist at line %d sent: a read shows a message as it was sent",
			c.Line, x.ChatNames[c.Chat], c.Seq, why, s.Line)
	}
	return said, uncompared
}

// storedMsg is what a final messages line says its message carries, at
// which sequence, on which line.
type storedMsg struct {
	carried store.Carried
	seq     uint64
	line    int
}

// storedAs maps the messages in want to their first final messages line
// (a second is sequence_uniqueness's or idempotency_guarantee's).
func (x *index) storedAs(want map[store.ChatMid]bool) map[store.ChatMid]storedMsg {
	out := map[store.ChatMid]storedMsg{}
	for _, m := range x.Msgs {
		f := x.Fin.At(m)
		k := store.ChatMid{Chat: f.Chat, ID: x.MidHash[f.MessageID]}
		if _, seen := out[k]; seen || !want[k] {
			continue
		}
		c := store.Carried{Payload: x.FinPayload(m)}
		key := x.FinKeyName(f)
		if key == "" {
			key = x.SenderlessKey[m] // its text, under key_scope client
		}
		if key != "" {
			c.Key = store.StringHash(key)
		}
		if sender := x.FinSender(m); sender != store.NoSender {
			c.Sender = store.StringHash(x.SenderNames[sender])
		}
		out[k] = storedMsg{carried: c, seq: f.Seq, line: int(f.Line)}
	}
	return out
}

// replayedKey is the key (StringHash of its text) whose replay answered
// with a message, and that answer's line.
type replayedKey struct {
	key  uint64
	line int
}

// replayedKeys maps the messages in want to the key of their first
// replay's answer, at the sequence it answered.
func (x *index) replayedKeys(want map[store.ChatMid]bool) map[store.ChatMid]replayedKey {
	out := map[store.ChatMid]replayedKey{}
	for _, o := range x.Acks {
		op := x.Ops.At(o)
		if !x.IsDedup(o) || op.Key < 0 {
			continue
		}
		k := store.ChatMid{Chat: op.Chat, ID: x.MidHash[x.AckID(o)]}
		if _, seen := out[k]; seen || !want[k] {
			continue
		}
		out[k] = replayedKey{key: store.StringHash(x.KeyText(op.Key)), line: x.DoneLine(o)}
	}
	return out
}
