package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestAckImpliesPersistence(t *testing.T) {
	t.Run("overwritten", func(t *testing.T) {
		// An unconditional Put at a reused sequence replaced the acked
		// message: ADR-004's literal "some message at that sequence" holds.
		b := newHB()
		l := b.send(1, "A", "k1", 1)
		b.counter("A", 1)
		m := b.msg("A", 1, "m-other", "k2")
		res := mustFail(t, b.check(t), NameAckImpliesPersistence, l.ok, m)
		mustContain(t, res.Detail, `holds "m-other"`)
	})
	t.Run("missing", func(t *testing.T) {
		b := newHB()
		b.send(1, "A", "k1", 1)
		l := b.send(1, "A", "k2", 2)
		b.counter("A", 2)
		b.msg("A", 1, "m-k1", "k1")
		mustFail(t, b.check(t), NameAckImpliesPersistence, l.ok)
	})
	// A message stored with other content than its persist sent fails,
	// where the final line gives the stored content's payload_hash: a
	// service that altered every message passed with no device to see
	// it pushed (an outside tester's). A replay's content is not its
	// message's (a key reused with other content gets the original).
	withContent := func(held string) (*hb, sendLines, int) {
		b := newHB()
		l := b.send(1, "A", "k1", 1)
		b.invokeHash(1, "A", "k1", "h:other")
		b.dedup(1, "A", "k1", 1, "m-k1")
		b.counter("A", 1)
		m := b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 1, MessageID: "m-k1", Key: "k1", PayloadHash: held})
		return b, l, m
	}
	t.Run("stored with other content", func(t *testing.T) {
		b, l, m := withContent("h:altered")
		res := mustFail(t, b.check(t), NameAckImpliesPersistence, l.invoke, l.ok, m)
		mustContain(t, res.Detail, "other content than that persist sent")
	})
	t.Run("stored as sent", func(t *testing.T) {
		b, _, _ := withContent("h:k1")
		res := must(t, b.check(t), NameAckImpliesPersistence, Pass)
		mustContain(t, res.Detail, "stored content compared with what was sent for 1 ack that created its message")
	})
	// Likewise its sender, under key_scope chat too, where a key is the
	// chat's whoever sends it: a service that stored every message as
	// sent by its chat's first member passed (an outside tester's). A
	// replay by another sender shares the message and is not compared.
	withSender := func(held string) (*hb, sendLines, int) {
		b := newHB()
		l := b.send(1, "A", "k1", 1) // sent as u1
		b.invoke(2, "A", "k1")
		b.dedup(2, "A", "k1", 1, "m-k1") // u2's replay
		b.counter("A", 1)
		m := b.final(history.Final{Table: history.TableMessages, Chat: "A", Seq: 1, MessageID: "m-k1", Key: "k1", Sender: held})
		return b, l, m
	}
	t.Run("stored under another sender", func(t *testing.T) {
		b, l, m := withSender("u2")
		res := mustFail(t, b.check(t), NameAckImpliesPersistence, l.invoke, l.ok, m)
		mustContain(t, res.Detail, `by sender "u1", but the final table holds it as sent by "u2"`)
	})
	t.Run("stored under its sender", func(t *testing.T) {
		b, _, _ := withSender("u1")
		must(t, b.check(t), NameAckImpliesPersistence, Pass)
	})
	t.Run("passes", func(t *testing.T) {
		must(t, validHistory().check(t), NameAckImpliesPersistence, Pass)
	})
	t.Run("n/a", func(t *testing.T) {
		b := newHB()
		b.send(1, "A", "k1", 1)
		b.counter("A", 1)
		na := mustNA(t, b.check(t), NameAckImpliesPersistence)
		mustContain(t, na.Reason, "1 ack but no final messages lines")
		b = newHB()
		b.invoke(1, "A", "k1")
		b.info(1, "A", "k1", "timeout")
		b.msg("A", 1, "m-k1", "k1")
		na = mustNA(t, b.check(t), NameAckImpliesPersistence)
		mustContain(t, na.Reason, "no acknowledged persists")
	})
}
