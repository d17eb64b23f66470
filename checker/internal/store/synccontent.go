package store

import "github.com/chatseq/chatseq/history"

// SyncClaim is what a sync answer said one returned message carried, by
// StringHash (0: not said), and the sync's completion line.
type SyncClaim struct {
	Chat, Line int32
	Seq, ID    uint64
	Said       Carried
}

// syncContent keeps what answer r said its messages carried (keys,
// senders, payload_hashes), where it said anything, unless the first ack
// at the message's sequence vouches for all of it now: it gave the same
// id as the message's new one, and its persist sent the same key, sender
// and payload hash. In a run most returned messages were acknowledged
// before the read, so few are kept (a service that alters them, all).
func (l *Log) syncContent(chat int32, line int32, r *history.SyncResult) {
	if len(r.Keys)+len(r.Senders)+len(r.PayloadHashes) == 0 {
		return
	}
	for i, seq := range r.Seqs {
		id := SyncIDAt(r, i)
		key, sender, payload := at(r.Keys, i), at(r.Senders, i), at(r.PayloadHashes, i)
		if key == "" && sender == "" && payload == "" {
			continue
		}
		l.SyncClaimed++
		c := SyncClaim{Chat: chat, Line: line, Seq: seq, ID: id, Said: Carried{Key: StringHash(key), Sender: StringHash(sender), Payload: StringHash(payload)}}
		if a := l.acked.At(chat, seq); a != nil && a.created && a.MidHash == id &&
			(c.Said.Key == 0 || c.Said.Key == a.keyHash) && (c.Said.Payload == 0 || c.Said.Payload == a.payload) && (sender == "" || l.isSender(sender, a.sender)) {
			continue
		}
		l.SyncClaims = append(l.SyncClaims, c)
	}
}

// isSender: sender is the interned sender id.
func (l *Log) isSender(sender string, id uint32) bool {
	got, ok := l.senderIDs[sender]
	return ok && got == id
}

func at(ss []string, i int) string {
	if i < len(ss) {
		return ss[i]
	}
	return ""
}

// Carried is what a message carried, or was said to: StringHash of its
// key, sender and payload hash, 0 where not known or not said.
type Carried struct{ Key, Sender, Payload uint64 }

// Differs says how what a read or push said a message carried differs
// from what it was sent with, field by field where both say ("": they
// agree).
func Differs(said, sent Carried) string {
	switch {
	case said.Key != 0 && sent.Key != 0 && said.Key != sent.Key:
		return "another key"
	case said.Payload != 0 && sent.Payload != 0 && said.Payload != sent.Payload:
		return "another content (payload hash)"
	case said.Sender != 0 && sent.Sender != 0 && said.Sender != sent.Sender:
		return "another sender"
	}
	return ""
}

// SyncIDAt is the hash of the i-th message id sync answer r returned.
func SyncIDAt(r *history.SyncResult, i int) uint64 { return IDHashAt(r.IDHashes, r.MessageIDs, i) }

// IDHashAt is the hash of the i-th message id of a sync answer or a push,
// which the reader gives as hashes (an IDHasher's) or as the ids: 0 when
// there is no i-th.
func IDHashAt(hashes []uint64, ids []string, i int) uint64 {
	switch {
	case i < len(hashes):
		return hashes[i]
	case i < len(ids):
		return StringHash(ids[i])
	}
	return 0
}
