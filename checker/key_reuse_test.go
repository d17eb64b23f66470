package checker

import (
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestKeyReuse(t *testing.T) {
	reject := history.Contract{KeyReuse: history.KeyReuseReject}
	t.Run("replayed instead of rejected", func(t *testing.T) {
		b := newHBContract(reject)
		i1 := b.invokeHash(1, "A", "k", "h1")
		b.alloc(1, "A", 1)
		o1 := b.ok(1, "A", "k", 1, "m-k")
		i2 := b.invokeHash(2, "A", "k", "h2")
		o2 := b.dedup(2, "A", "k", 1, "m-k")
		mustFail(t, b.check(t), NameKeyReuse, i1, o1, i2, o2)
	})
	t.Run("acked as new instead of rejected", func(t *testing.T) {
		b := newHBContract(reject)
		i1 := b.invokeHash(1, "A", "k", "h1")
		o1 := b.ok(1, "A", "k", 1, "m-1")
		i2 := b.invokeHash(2, "A", "k", "h2")
		o2 := b.ok(2, "A", "k", 2, "m-2")
		mustFail(t, b.check(t), NameKeyReuse, i1, o1, i2, o2)
	})
	t.Run("retry of the same content rejected", func(t *testing.T) {
		b := newHBContract(reject)
		i1 := b.invokeHash(1, "A", "k", "h1")
		o1 := b.ok(1, "A", "k", 1, "m-k")
		i2 := b.invokeHash(2, "A", "k", "h1")
		f2 := b.fail(2, "A", "k", "idempotency_key_reused")
		res := mustFail(t, b.check(t), NameKeyReuse, i1, o1, i2, f2)
		mustContain(t, res.Detail, "same content")
	})
	t.Run("rejected though never used", func(t *testing.T) {
		b := newHBContract(reject)
		i := b.invokeHash(1, "A", "k", "h1")
		f := b.fail(1, "A", "k", "idempotency_key_reused")
		mustFail(t, b.check(t), NameKeyReuse, i, f)
	})
	t.Run("passes", func(t *testing.T) {
		b := newHBContract(reject)
		b.invokeHash(1, "A", "k", "h1")
		b.ok(1, "A", "k", 1, "m-k")
		b.invokeHash(2, "A", "k", "h2")
		b.fail(2, "A", "k", "idempotency_key_reused")
		b.invokeHash(3, "A", "k", "h1")
		b.dedup(3, "A", "k", 1, "m-k")
		// A rejection may also follow content of unknown outcome.
		b.invokeHash(1, "A", "q", "h1")
		b.info(1, "A", "q", "timeout")
		b.invokeHash(2, "A", "q", "h2")
		b.fail(2, "A", "q", "idempotency_key_reused")
		must(t, b.check(t), NameKeyReuse, Pass)
	})
	t.Run("n/a without payload hashes", func(t *testing.T) {
		b := newHBContract(reject)
		b.invokeHash(1, "A", "k", "")
		b.ok(1, "A", "k", 1, "m-k")
		b.invokeHash(2, "A", "k", "")
		b.dedup(2, "A", "k", 1, "m-k")
		na := mustNA(t, b.check(t), NameKeyReuse)
		mustContain(t, na.Reason, "no persist carries a payload_hash")
	})
	t.Run("unknown when some payload hashes are missing", func(t *testing.T) {
		b := newHBContract(reject)
		b.invokeHash(1, "A", "k", "h1")
		b.ok(1, "A", "k", 1, "m-k")
		b.invokeHash(2, "A", "k", "")
		b.dedup(2, "A", "k", 1, "m-k")
		res := must(t, b.check(t), NameKeyReuse, Unknown)
		mustContain(t, res.Detail, "1 persist of reused keys without payload_hash")
	})
	t.Run("n/a without operations", func(t *testing.T) {
		b := newHBContract(reject)
		mustContain(t, mustNA(t, b.check(t), NameKeyReuse).Reason, "no operations")
	})
}
