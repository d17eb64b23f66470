package checker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// validHistory is a small clean run: two writers racing on chat A, one on
// chat B, a retry answered as a replay, and a reader.
func validHistory() *hb {
	b := newHB()
	b.invoke(1, "A", "k1")
	b.invoke(2, "A", "k2")
	b.alloc(1, "A", 1)
	b.alloc(2, "A", 2)
	b.commit("A", "k2", 2, "m-k2")
	b.ok(2, "A", "k2", 2, "m-k2")
	b.commit("A", "k1", 1, "m-k1")
	b.ok(1, "A", "k1", 1, "m-k1")
	b.send(3, "B", "k3", 1)
	b.invoke(2, "A", "k2") // a retry
	b.dedup(2, "A", "k2", 2, "m-k2")
	b.syncInvoke(4, "A", 0, 10)
	b.syncOK(4, "A", 1, 2)
	b.dump(true)
	return b
}

func TestValidHistoryPassesEverything(t *testing.T) {
	r := validHistory().check(t)
	mustAllPass(t, r)
	if len(r.Invariants)+len(r.NotApplicable) != len(InvariantNames) {
		t.Fatalf("%d judged + %d n/a, want %d", len(r.Invariants), len(r.NotApplicable), len(InvariantNames))
	}
	mustNA(t, r, NameGapless)
	mustNA(t, r, NameKeyReuse)
	if r.Contract.Events != history.EventsAtLeastOnce || r.Contract.Gaps != history.GapsAllowed || r.Contract.KeyReuse != history.KeyReuseReturnOriginal {
		t.Fatalf("contract = %+v", r.Contract)
	}
	s := r.Stats
	if s.Operations != 5 || s.Persists != 4 || s.Syncs != 1 || s.OK != 5 || s.Dedup != 1 || s.Allocations != 3 || s.Gaps != 0 || s.Messages != 3 {
		t.Fatalf("stats = %+v", s)
	}
	text := reportText(r)
	for _, want := range []string{"verdict: VALID", "sequence_uniqueness", "PASS", "gapless", "n-a"} {
		mustContain(t, text, want)
	}
}

func TestReportJSONShape(t *testing.T) {
	r := validHistory().check(t)
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back["valid"] != true {
		t.Fatalf("valid = %v", back["valid"])
	}
	inv := back["invariants"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "status", "detail", "lines"} {
		if _, ok := inv[k]; !ok {
			t.Fatalf("invariant JSON lacks %q: %s", k, raw)
		}
	}
	if inv["lines"] == nil {
		t.Fatalf("lines must be [] not null: %s", raw)
	}
	na := back["not_applicable"].([]any)[0].(map[string]any)
	if na["name"] == "" || na["reason"] == "" {
		t.Fatalf("not_applicable JSON: %s", raw)
	}

	// Unknown but no failure: valid is null and the exit code 3 (here an
	// invariant required but without evidence: no final messages lines).
	b := newHB()
	b.send(1, "A", "k1", 1)
	u := Check(&b.h, Options{Require: []string{NameAckImpliesPersistence}})
	if u.Valid != nil || u.ExitCode() != 3 {
		t.Fatalf("no finals: valid=%v exit=%d", u.Valid, u.ExitCode())
	}
	raw, _ = json.Marshal(u)
	if !strings.Contains(string(raw), `"valid":null`) {
		t.Fatalf("valid must marshal as null: %s", raw)
	}
	mustContain(t, reportText(u), "verdict: UNKNOWN")
}
