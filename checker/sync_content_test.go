package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

// syncOKSaying is a sync ok whose answer says what each message carried.
func (b *hb) syncOKSaying(p int, chat string, seqs []uint64, keys, senders, payloads []string) int {
	ids := make([]string, len(seqs))
	for i, s := range seqs {
		ids[i] = b.idAt(chat, s)
	}
	return b.add(history.Event{Kind: history.KindOK, Process: p, F: history.FSync, Chat: chat,
		Sync: &history.SyncResult{Seqs: seqs, MessageIDs: ids, Keys: keys, Senders: senders, PayloadHashes: payloads}})
}

// A sync answer that shows a message with another key, sender or content
// than its persist sent fails sync_completeness, whether the message was
// acknowledged before the read (vouched for as the line is read) or
// after it (compared once the file is read); as sent, it passes.
func TestSyncContentIsWhatThePersistSent(t *testing.T) {
	cases := []struct {
		name                 string
		key, sender, payload string
		want                 string // "" passes
	}{
		{"as sent", "k2", "u1", "h:k2", ""},
		{"some fields unsaid", "", "u1", "", ""},
		{"another key", "k1", "u1", "h:k2", "another key"},
		{"another sender", "k2", "u9", "h:k2", "another sender"},
		{"other content", "k2", "u1", "h:k1", "another content"},
	}
	for _, c := range cases {
		for _, ackedFirst := range []bool{true, false} {
			name := c.name + "/acknowledged after the read"
			if ackedFirst {
				name = c.name + "/acknowledged before the read"
			}
			t.Run(name, func(t *testing.T) {
				b := newHB()
				b.send(1, "A", "k1", 1)
				var inv, so int
				if ackedFirst {
					inv = b.send(1, "A", "k2", 2).invoke
					b.syncInvoke(2, "A", 1, 10)
					so = b.syncOKSaying(2, "A", []uint64{2}, []string{c.key}, []string{c.sender}, []string{c.payload})
				} else {
					inv = b.invoke(1, "A", "k2")
					b.alloc(1, "A", 2)
					b.commit("A", "k2", 2, "m-k2")
					b.syncInvoke(2, "A", 1, 10)
					so = b.syncOKSaying(2, "A", []uint64{2}, []string{c.key}, []string{c.sender}, []string{c.payload})
					b.ok(1, "A", "k2", 2, "m-k2")
				}
				b.dump(false)
				if c.want == "" {
					res := must(t, b.check(t), NameSyncCompleteness, Pass)
					mustContain(t, res.Detail, "key, sender or content hash given for 1 returned message: 1 compared")
					return
				}
				res := mustFail(t, b.check(t), NameSyncCompleteness, so, inv)
				mustContain(t, res.Detail, c.want)
			})
		}
	}
}
