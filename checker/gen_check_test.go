package checker

import "testing"

// A simulated concurrent ADR-004 run is valid: every invariant passes,
// including porcupine on the whole history, and gaps are all explained.
func TestGeneratedHistoriesAreValid(t *testing.T) {
	for _, cfg := range []genConfig{
		{chats: 1, writers: 16, readers: 2, ops: 4000, crash: 0.02, crashCommitted: 0.02, replay: 0.05, limit: 20, events: true, seed: 1},
		{chats: 50, writers: 64, readers: 4, ops: 10000, crash: 0.05, crashCommitted: 0.02, replay: 0.1, limit: 5, events: true, seed: 2},
		{chats: 1, writers: 64, readers: 4, ops: 25000, crash: 0.01, crashCommitted: 0.01, replay: 0.02, limit: 50, events: true, seed: 3},
	} {
		r := Check(generate(cfg), Options{})
		mustAllPass(t, r)
		if r.Stats.Gaps == 0 || r.Stats.GapCauses["crash_after_allocate"] != r.Stats.Gaps || r.Stats.Dedup == 0 || r.Stats.ErrorCodes["crash_after_persist"] == 0 {
			t.Fatalf("stats = %+v", r.Stats)
		}
		if r.Stats.LinearizabilityChats != cfg.chats {
			t.Fatalf("porcupine decided %d of %d chats", r.Stats.LinearizabilityChats, cfg.chats)
		}
	}
}
