package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestGapless(t *testing.T) {
	forbidden := history.Contract{Gaps: history.GapsForbidden}
	b := newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k3", 3)
	d := b.dump(false)
	res := mustFail(t, b.check(t), NameGapless, d.msg["m-k1"], d.msg["m-k3"])
	mustContain(t, res.Detail, "no message at seq 2")

	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.dump(false)
	must(t, b.check(t), NameGapless, Pass)

	// Without the final table: a hole below an ack needs an operation of
	// unknown outcome to fill it.
	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	l := b.send(1, "A", "k3", 3)
	mustFail(t, b.check(t), NameGapless, l.ok)

	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k2")
	b.info(2, "A", "k2", "timeout")
	b.send(1, "A", "k3", 3)
	must(t, b.check(t), NameGapless, Pass)
}
