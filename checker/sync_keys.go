package checker

import "github.com/chatseq/chatseq/checker/internal/store"

// scopedKey is a key as key_scope scopes it: its text in a chat, and under
// key_scope client its sender (StringHash of each).
type scopedKey struct {
	chat        int32
	key, sender uint64
}

// keyHeld is the message a key was first seen to hold, where, and the
// sender that line names (StringHash; 0: none).
type keyHeld struct {
	seq, id, sender uint64
	line            int
	where           string
}

// shownKeys gathers the keys sync answers said their messages carried (a
// claim the first ack at its sequence did not vouch for: store.SyncClaim),
// scoped; under key_scope client a claim that names no sender is left out.
func (x *index) shownKeys() map[scopedKey]bool {
	out := map[scopedKey]bool{}
	for _, c := range x.SyncClaims {
		if k, ok := x.scopeOf(c.Chat, c.Said.Key, c.Said.Sender); ok {
			out[k] = true
		}
	}
	return out
}

// senderHash is sender s's StringHash, 0 for none.
func (x *index) senderHash(s uint32) uint64 {
	if s == store.NoSender || x.SenderNames[s] == "" {
		return 0
	}
	return store.StringHash(x.SenderNames[s])
}

// senderNamer names a sender by its StringHash ("" for 0 or a hash no
// persist's sender has). Made only to word a failure: the first call
// hashes every sender's name once.
type senderNamer struct {
	x     *index
	names map[uint64]string
}

func (n *senderNamer) name(h uint64) string {
	if h == 0 {
		return ""
	}
	if n.names == nil {
		n.names = make(map[uint64]string, len(n.x.SenderNames))
		for _, name := range n.x.SenderNames {
			if name != "" {
				n.names[store.StringHash(name)] = name
			}
		}
	}
	return n.names[h]
}

func (x *index) scopeOf(chat int32, key, sender uint64) (scopedKey, bool) {
	switch {
	case key == 0:
		return scopedKey{}, false
	case !x.ClientScope():
		return scopedKey{chat: chat, key: key}, true
	case sender == 0:
		return scopedKey{}, false
	}
	return scopedKey{chat: chat, key: key, sender: sender}, true
}

// syncKeysHoldOneMessage fails a key that a sync shows on a message other
// than the one its ok answers or its final messages line give it, or that
// syncs show on two messages: a key holds one message however it is read
// (idempotency_guarantee). It returns how many keys syncs showed.
func (x *index) syncKeysHoldOneMessage(v *verdict) int {
	shown := x.shownKeys()
	if len(shown) == 0 {
		return 0
	}
	// Only the chats a shown key is in: the keys' strings are hashed
	// there alone, not for every ack of the history.
	chats := map[int32]bool{}
	for k := range shown {
		chats[k.chat] = true
	}
	held := map[scopedKey]keyHeld{}
	for _, o := range x.Acks {
		op := x.Ops.At(o)
		if op.Key < 0 || !chats[op.Chat] {
			continue
		}
		k, ok := x.scopeOf(op.Chat, store.StringHash(x.KeyText(op.Key)), store.StringHash(x.SenderNames[op.Sender()]))
		if _, seen := held[k]; !ok || seen || !shown[k] {
			continue
		}
		held[k] = keyHeld{x.AckSeq(o), x.MidHash[x.AckID(o)], x.senderHash(op.Sender()), x.DoneLine(o), "the ok answer"}
	}
	for _, m := range x.Msgs {
		f := x.Fin.At(m)
		if !chats[f.Chat] {
			continue
		}
		key, sender := x.FinKeyName(f), uint64(0)
		if s := x.FinSender(m); s != store.NoSender {
			sender = store.StringHash(x.SenderNames[s])
		}
		k, ok := x.scopeOf(f.Chat, store.StringHash(key), sender)
		if _, seen := held[k]; key == "" || !ok || seen || !shown[k] {
			continue
		}
		held[k] = keyHeld{f.Seq, x.MidHash[f.MessageID], sender, int(f.Line), "the final messages line"}
	}
	named := senderNamer{x: x}
	for _, c := range x.SyncClaims {
		k, ok := x.scopeOf(c.Chat, c.Said.Key, c.Said.Sender)
		if !ok {
			continue
		}
		h, seen := held[k]
		if !seen {
			held[k] = keyHeld{c.Seq, c.ID, c.Said.Sender, int(c.Line), "a sync"}
			continue
		}
		if h.seq != c.Seq || h.id != c.ID {
			v.fail([]int{h.line, int(c.Line)}, "chat %q: the sync at line %d shows seq %d with a key that %s at line %d gives seq %d: a key holds one message however it is read%s",
				x.ChatNames[c.Chat], c.Line, c.Seq, h.where, h.line, h.seq, twoSendersText(named.name(h.sender), named.name(c.Said.Sender)))
		}
	}
	return len(shown)
}

// failedKeysShown fails a key that only persists that ended fail used
// (rejections of a reused key aside) when a sync shows it on a message
// above initial_counter: the fail took an effect (fail_has_no_effect). It
// returns how many such keys it looked for in the syncs.
func (x *index) failedKeysShown(v *verdict, isRejection func(int32) bool) int {
	firstShown := map[scopedKey]store.SyncClaim{}
	for _, c := range x.SyncClaims {
		if k, ok := x.scopeOf(c.Chat, c.Said.Key, c.Said.Sender); ok && c.Seq > x.InitialCounter {
			if _, seen := firstShown[k]; !seen {
				firstShown[k] = c
			}
		}
	}
	if len(firstShown) == 0 {
		return 0
	}
	looked := 0
	for k := range int32(len(x.KeyNames)) {
		if !x.onlyFailed(k, isRejection) {
			continue
		}
		ops := x.KeyOps(k)
		looked++
		sk, ok := x.scopeOf(x.KeyChat[k], store.StringHash(x.KeyText(k)), store.StringHash(x.SenderNames[x.Ops.At(ops[0]).Sender()]))
		c, shown := firstShown[sk]
		if !ok || !shown {
			continue
		}
		v.fail(x.failedKeyLines(int(c.Line), ops, isRejection), "chat %q key %q: every persist of the key ended fail (e.g. %s at line %d), yet the sync at line %d shows it on seq %d: a fail must take no effect",
			x.ChatNames[x.KeyChat[k]], x.KeyText(k), x.ErrCode(ops[0]), x.DoneLine(ops[0]), c.Line, c.Seq)
	}
	return looked
}
