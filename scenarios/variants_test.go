package scenarios

import (
	"testing"

	"github.com/chatseq/chatseq/sequencer"
)

// broken: names a variant of the scenario's own target, whichever order the
// keys come in.
func TestBrokenMustBelongToTheTarget(t *testing.T) {
	es := decodeErrors(t, `name: wrong-variant
broken: racy-counter
target: ledger
ops: 10
expect: pass
`)
	wantError(t, es, 2, `"racy-counter" is not a variant of target ledger`, "propose-time-sequence")

	sc, err := Decode([]byte(`name: ledger-variant
broken: propose-time-sequence
target: ledger
ops: 10
expect:
  violates: [gapless]
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Broken != sequencer.Variant("propose-time-sequence") {
		t.Fatalf("broken = %q", sc.Broken)
	}
}
