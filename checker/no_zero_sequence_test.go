package checker

import (
	"testing"
)

func TestNoZeroSequence(t *testing.T) {
	cases := map[string]func(b *hb) int{
		"ack": func(b *hb) int {
			b.invoke(1, "A", "k1")
			return b.ok(1, "A", "k1", 0, "m")
		},
		"allocation": func(b *hb) int {
			b.invoke(1, "A", "k1")
			return b.alloc(1, "A", 0)
		},
		"sync": func(b *hb) int {
			b.syncInvoke(1, "A", 0, 5)
			return b.syncOKIDs(1, "A", []uint64{0}, []string{"m"})
		},
		"final idempotency": func(b *hb) int {
			b.send(1, "A", "k1", 1)
			return b.idem("A", "k1", 0, "m-k1")
		},
		"final event": func(b *hb) int {
			b.send(1, "A", "k1", 1)
			return b.event("A", 0, "m-k1", 0, 0)
		},
		// A pushed sequence 0 passed: pushes were not counted (found by
		// an outside tester).
		"push": func(b *hb) int {
			b.join("A", "u1")
			b.connect("d1", "u1")
			b.send(1, "A", "k1", 1)
			return b.pushIDs("d1", "A", []uint64{0, 1}, []string{"m0", "m-k1"}, false)
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			b := newHB()
			line := build(b)
			mustFail(t, b.check(t), NameNoZeroSequence, line)
		})
	}
	must(t, validHistory().check(t), NameNoZeroSequence, Pass)
	b := newHB()
	b.invoke(1, "A", "k1")
	b.fail(1, "A", "k1", "not_a_member")
	mustContain(t, mustNA(t, b.check(t), NameNoZeroSequence).Reason, "no sequences in the history")
}
