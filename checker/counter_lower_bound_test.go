package checker

import (
	"strings"
	"testing"
)

func TestCounterLowerBound(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)
	c := b.counter("A", 1)
	m1 := b.msg("A", 1, "m-k1", "k1")
	m2 := b.msg("A", 1, "m-x", "x")
	res := mustFail(t, b.check(t), NameCounterLowerBound, c, m1, m2)
	mustContain(t, res.Detail, "2 final messages but the counter is 1")

	must(t, validHistory().check(t), NameCounterLowerBound, Pass)
	// Without the messages table the operations' keys are counted.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.counter("A", 1)
	must(t, b.check(t), NameCounterLowerBound, Pass)
	b = newHB()
	b.send(1, "A", "k1", 1)
	mustContain(t, mustNA(t, b.check(t), NameCounterLowerBound).Reason, "no final counters lines")
}

// A rejection of a key as reused (key_reuse: reject) proves the key's
// message exists, so a counter of 0 cannot stand (oracle seed 744565:
// it passed every invariant); without the rejection, or under
// return-original, where the refusal is a fail like any other, it can.
func TestCounterLowerBoundCountsTheKeysTheOperationsProve(t *testing.T) {
	const broken = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"fail","process":1,"f":"persist","time":6,"error":"idempotency_key_reused"}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k1","payload_hash":"hk1x"}
{"type":"final","table":"counters","chat":"c1","value":0}
{"type":"table_read","table":"counters","lines":1}
`
	res := mustFail(t, mustExact(t, broken), NameCounterLowerBound, 3, 5)
	mustContain(t, res.Detail, "a message of each of 1 key")
	must(t, mustExact(t, strings.Replace(broken, `"value":0`, `"value":1`, 1)), NameCounterLowerBound, Pass)
	must(t, mustExact(t, strings.Replace(broken, `"key_reuse":"reject"`, `"key_reuse":"return-original"`, 1)), NameCounterLowerBound, Pass)
}
