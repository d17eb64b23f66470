package delivery

import (
	"bytes"
	"testing"
)

// A seed names one history: the cross-check's report gives seeds to rerun
// with DELIVERY_ORACLE_SEED, and the shrinker and the examples rely on a
// history judged twice being judged alike. Ranging over a map in the
// generator or a judge breaks that silently (a count moves by one between
// runs); this catches it on the first seeds.
func TestDeliveryDeterminism(t *testing.T) {
	n := uint64(envInt("DELIVERY_ORACLE_DETERMINISM_N", 300))
	for s := uint64(1); s <= n; s++ {
		a, b := generate(s), generate(s)
		if !bytes.Equal(a.d.encode(), b.d.encode()) {
			t.Errorf("seed %d with mutations %q generated two different histories", s, a.mutations)
			continue
		}
		ja, jb := judge(a.d), judge(b.d)
		for _, inv := range invariants {
			if ja[inv] != jb[inv] {
				t.Errorf("seed %d: the oracle judged %s %s (%s), then %s (%s)", s, inv, ja[inv].status, ja[inv].reason, jb[inv].status, jb[inv].reason)
			}
		}
	}
}
