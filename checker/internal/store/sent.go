package store

// SentMsg is what the persist that created a message sent: its
// payload_hash and sender (StringHash of each, 0: not given), and its
// invoke line.
type SentMsg struct {
	Payload, Sender uint64
	Line            int
}

// SentOf maps each message a persist created (acknowledged, not as a
// replay) to what that persist sent, by chat (the Log's) and StringHash
// of the message id; the first such persist of a message wins.
func (x *Index) SentOf() map[ChatMid]SentMsg {
	out := map[ChatMid]SentMsg{}
	for _, o := range x.Acks {
		op := x.Ops.At(o)
		if op.dedup() {
			continue
		}
		k := ChatMid{op.Chat, x.MidHash[op.mid()]}
		if _, ok := out[k]; ok {
			continue
		}
		out[k] = SentMsg{Payload: op.Payload, Sender: StringHash(x.SenderNames[op.aux]), Line: int(op.InvLine)}
	}
	return out
}

// ChatMid is a message id (its StringHash) in a chat.
type ChatMid struct {
	Chat int32
	ID   uint64
}
