package scenarios

import (
	"strings"
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
	wantError(t, es, 2, `broken: racy-counter: target ledger has no variant "racy-counter"`, "propose-time-sequence")

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
	if sc.Variant != sequencer.Variant("propose-time-sequence") {
		t.Fatalf("broken = %q", sc.Variant)
	}
}

// variant: names a design that keeps a promise, broken: a bug; broken:
// naming a design is the old spelling, which still runs it with a note.
func TestVariantSpellsADesignAndBrokenABug(t *testing.T) {
	const head = "name: v\nops: 10\nexpect: pass\n"
	sc, err := Decode([]byte(head+"variant: sync-watermark\n"), "x.yaml")
	if err != nil || sc.Variant != sequencer.SyncWatermark || !sc.Design || len(sc.Notes) != 0 {
		t.Fatalf("variant: sync-watermark: %+v, %v", sc, err)
	}
	sc, err = Decode([]byte(head+"broken: sync-watermark\n"), "x.yaml")
	if err != nil || sc.Variant != sequencer.SyncWatermark || !sc.Design || len(sc.Notes) != 1 ||
		!strings.HasPrefix(sc.Notes[0], "x.yaml:4: broken: sync-watermark: ") || !strings.Contains(sc.Notes[0], "variant: sync-watermark says so") {
		t.Fatalf("broken: sync-watermark: %+v, %v", sc, err)
	}
	sc, err = Decode([]byte(head+"broken: racy-counter\n"), "x.yaml")
	if err != nil || sc.Variant != sequencer.RacyCounter || sc.Design || len(sc.Notes) != 0 {
		t.Fatalf("broken: racy-counter: %+v, %v", sc, err)
	}
	wantError(t, decodeErrors(t, head+"variant: racy-counter\n"), 4, "variant: racy-counter: racy-counter is a bug", "select it with broken: racy-counter")
	wantError(t, decodeErrors(t, head+"broken: racy-counter\nvariant: sync-watermark\n"), 5, "give broken or variant, not both")
	wantError(t, decodeErrors(t, head+"strategy: occ\nvariant: sync-watermark\n"), 5, "variant: sync-watermark waits", "use strategy two-phase")
}
