package histgen

import (
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

// The profiles, shrunk, are valid runs (every judged invariant passes) and
// have the shape they are named for: under zipf one chat takes over a
// tenth of the operations and events reach the topic out of sequence order
// (counted here from the events lines, and the checker counts as many);
// under heavy-sync the pages are nearly all full.
func TestProfilesAreValidAndHaveTheirShape(t *testing.T) {
	for _, name := range Profiles {
		t.Run(name, func(t *testing.T) {
			cfg, err := Profile(name)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Persists = 20_000
			res, h, _ := generate(t, cfg)
			r := checker.Check(h, checker.Options{})
			for _, inv := range r.Invariants {
				if inv.Status != checker.Pass {
					t.Errorf("%s = %s: %s (lines %v)", inv.Name, inv.Status, inv.Detail, inv.Lines)
				}
			}
			if r.Valid == nil || !*r.Valid {
				t.Fatalf("verdict not valid")
			}
			if r.Stats.LateCommits != res.LateCommits {
				t.Errorf("checker counts %d late commits, generator %d", r.Stats.LateCommits, res.LateCommits)
			}
			switch name {
			case "zipf":
				ops := map[string]int{}
				for _, e := range h.Events {
					if e.Kind == history.KindInvoke {
						ops[e.Chat]++
					}
				}
				busiest, total := 0, 0
				for _, n := range ops {
					busiest, total = max(busiest, n), total+n
				}
				if len(ops) < cfg.Chats/2 || busiest*10 <= total {
					t.Errorf("%d chats, the busiest with %d of %d operations: want most of %d chats and over a tenth on one", len(ops), busiest, total, cfg.Chats)
				}
				late := outOfOrderEvents(t, h)
				if late == 0 || res.Events != res.Messages {
					t.Errorf("%d events out of sequence order of %d for %d messages: want some, one a message", late, res.Events, res.Messages)
				}
				if r.Stats.EventsOutOfOrder != late {
					t.Errorf("checker counts %d events out of order, the events lines %d", r.Stats.EventsOutOfOrder, late)
				}
			case "heavy-sync":
				syncs, returned := 0, 0
				for _, e := range h.Events {
					if e.Kind == history.KindOK && e.F == history.FSync {
						syncs++
						returned += len(e.Sync.Seqs)
					}
				}
				if syncs != res.Syncs || returned != res.Returned {
					t.Errorf("%d syncs returned %d entries; the generator says %d and %d", syncs, returned, res.Syncs, res.Returned)
				}
				if syncs < cfg.Persists/20 || returned*10 < syncs*cfg.SyncLimit*9 {
					t.Errorf("%d syncs returned %d entries: want heavy syncs, nearly all of %d", syncs, returned, cfg.SyncLimit)
				}
			}
		})
	}
}

// outOfOrderEvents counts the events lines that come, in their
// partition's offset order, after an event of a higher sequence of their
// chat (no message is published twice here).
func outOfOrderEvents(t *testing.T, h *history.History) int {
	t.Helper()
	type chatPart struct {
		chat string
		part int32
	}
	top, lastOffset := map[chatPart]uint64{}, map[chatPart]int64{}
	late := 0
	for _, f := range h.Finals {
		if f.Table != history.TableEvents {
			continue
		}
		k := chatPart{f.Chat, f.Partition}
		if last, ok := lastOffset[k]; ok && f.Offset <= last {
			t.Fatalf("events of %v not in offset order: offset %d after %d", k, f.Offset, last)
		}
		lastOffset[k] = f.Offset
		if f.Seq < top[k] {
			late++
		}
		top[k] = max(top[k], f.Seq)
	}
	return late
}

func TestProfileNamesAreChecked(t *testing.T) {
	if _, err := Profile("uniform"); err == nil {
		t.Errorf("Profile(%q) took an unknown name", "uniform")
	}
	bad := Default()
	bad.Zipf = 0.5
	if _, err := Generate(nil, bad); err == nil {
		t.Errorf("a zipf exponent of 0.5 was taken (it must be above 1)")
	}
}
