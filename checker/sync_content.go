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
	for _, c := range x.SyncClaims {
		s, ok := sent[store.ChatMid{Chat: c.Chat, ID: c.ID}]
		if !ok {
			uncompared++
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
