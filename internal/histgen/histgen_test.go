package histgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

// generate writes cfg's history to memory and reads it back; the reader
// must accept it without a warning.
func generate(t *testing.T, cfg Config) (Result, *history.History, []byte) {
	t.Helper()
	var buf bytes.Buffer
	res, err := Generate(&buf, cfg)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	data := slices.Clone(buf.Bytes())
	if res.Bytes != int64(len(data)) || res.Lines != bytes.Count(data, []byte("\n")) {
		t.Fatalf("result says %d lines, %d bytes; wrote %d lines, %d bytes", res.Lines, res.Bytes, bytes.Count(data, []byte("\n")), len(data))
	}
	h, err := history.Read(&buf, "gen.jsonl")
	if err != nil {
		t.Fatalf("reading the generated history: %v", err)
	}
	if len(h.Warnings) > 0 {
		t.Fatalf("reader warnings: %+v", h.Warnings)
	}
	return res, h, data
}

// The generated histories are valid ADR-004 runs: read back and checked
// with the default options, every invariant the contract requires passes
// (linearizability included) and the others are n/a, the checker's figures are
// the generator's own, and its one warning is the late commits the
// generator counted.
func TestGeneratedHistoriesPassEveryInvariant(t *testing.T) {
	hot := func(persists int, seed int64) Config {
		c := Default()
		c.Persists, c.Hot, c.Seed = persists, true, seed
		return c
	}
	chats := func(persists, chats int, seed int64) Config {
		c := Default()
		c.Persists, c.Chats, c.Seed = persists, chats, seed
		return c
	}
	stormy := hot(2000, 3)
	stormy.Writers, stormy.Readers, stormy.SyncLimit = 8, 3, 5
	stormy.CrashAfterAllocate, stormy.CrashAfterPersist, stormy.Replay = 0.08, 0.05, 0.1
	syncHeavy := chats(3000, 40, 4)
	syncHeavy.SyncShare, syncHeavy.SyncLimit = 0.4, 10
	for _, cfg := range []Config{hot(3000, 1), hot(3000, 2), chats(4000, 20, 1), chats(4000, 200, 2), stormy, syncHeavy} {
		name := fmt.Sprintf("chats=%d", cfg.Chats)
		if cfg.Hot {
			name = "hot"
		}
		t.Run(fmt.Sprintf("%s/writers=%d/seed=%d", name, cfg.Writers, cfg.Seed), func(t *testing.T) {
			res, h, _ := generate(t, cfg)
			r := checker.Check(h, checker.Options{})
			for _, inv := range r.Invariants {
				if inv.Status != checker.Pass {
					t.Errorf("%s = %s: %s (lines %v)", inv.Name, inv.Status, inv.Detail, inv.Lines)
				}
			}
			var na []string
			for _, n := range r.NotApplicable {
				na = append(na, n.Name)
			}
			slices.Sort(na)
			// No readers and ADR-004's contract (no event order promised):
			// catch_up_completeness and event_order are n/a too; and no
			// persist ends fail (the crashes are unknown outcomes); no
			// receivers and no membership, so the delivery invariants and
			// send_authorization and read_authorization are n/a.
			want := []string{checker.NameCatchUpCompleteness, checker.NameEventCompleteness, checker.NameEventOrder, checker.NameFailHasNoEffect, checker.NameGapless, checker.NameKeyReuse,
				checker.NameEventualVisibility, checker.NameIdenticalOrder, checker.NameDeliveryStateConsistency, checker.NamePushAuthorization, checker.NameStreamContinuity, checker.NameStreamCompleteness,
				checker.NameSendAuthorization, checker.NameReadAuthorization}
			slices.Sort(want)
			if !slices.Equal(na, want) {
				t.Errorf("not applicable: %v, want %v", na, want)
			}
			if len(r.Invariants)+len(r.NotApplicable) != len(checker.InvariantNames) {
				t.Errorf("%d invariants judged and %d n/a of %d", len(r.Invariants), len(r.NotApplicable), len(checker.InvariantNames))
			}
			if r.Valid == nil || !*r.Valid {
				t.Errorf("verdict not valid")
			}

			late := fmt.Sprintf("late commits below a cursor: %d messages ", res.LateCommits)
			if res.LateCommits == 0 || len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], late) {
				t.Errorf("want one warning starting %q, got %q", late, r.Warnings)
			}

			nchats := cfg.Chats
			if cfg.Hot {
				nchats = 1
			}
			s := r.Stats
			for _, c := range []struct {
				name      string
				got, want int
			}{
				{"chats", s.Chats, nchats},
				{"persists", s.Persists, cfg.Persists},
				{"syncs", s.Syncs, res.Syncs},
				{"messages", s.Messages, res.Messages},
				{"gaps", s.Gaps, res.Gaps},
				{"gaps by crash_after_allocate", s.GapCauses["crash_after_allocate"], res.Gaps},
				{"dedup", s.Dedup, res.Dedup},
				{"crash_after_allocate", s.ErrorCodes["crash_after_allocate"], res.CrashesAfterAllocate},
				{"crash_after_persist", s.ErrorCodes["crash_after_persist"], res.CrashesAfterPersist},
				{"late commits", s.LateCommits, res.LateCommits},
				{"unfinished", s.Unfinished, 0},
				{"chats linearizability decided", s.LinearizabilityChats, nchats},
			} {
				if c.got != c.want {
					t.Errorf("checker counts %d %s, generator %d", c.got, c.name, c.want)
				}
			}
			// Every kind of event occurs, in the proportions asked for.
			if res.Gaps == 0 || res.Dedup == 0 || res.CrashesAfterPersist == 0 {
				t.Errorf("a kind of event never occurred: %+v", res)
			}
			if share := float64(res.Syncs) / float64(res.Syncs+res.Persists); math.Abs(share-cfg.SyncShare) > 0.005 {
				t.Errorf("syncs are %.3f of operations, want %.3f", share, cfg.SyncShare)
			}
			if h.Header.Contract.Gaps != history.GapsAllowed || h.Header.Contract.KeyReuse != history.KeyReuseReturnOriginal ||
				!h.Header.HasSeed || h.Header.Seed != cfg.Seed || h.Header.Extra["generator"] == "" {
				t.Errorf("header %+v", h.Header)
			}
			checkShape(t, cfg, h)
		})
	}
}

// checkShape checks what the checker does not need to hold but a
// realistic run has: strictly increasing times, operations that overlap,
// commits out of sequence order, and syncs that return what they may.
func checkShape(t *testing.T, cfg Config, h *history.History) {
	t.Helper()
	outstanding, most, outOfOrder := 0, 0, 0
	lastAck := map[string]uint64{}
	for i, e := range h.Events {
		if i > 0 && e.Time <= h.Events[i-1].Time {
			t.Fatalf("line %d: time %d after %d", e.Line, e.Time, h.Events[i-1].Time)
		}
		switch {
		case e.Kind == history.KindInvoke:
			outstanding++
			most = max(most, outstanding)
		case e.Kind.IsCompletion():
			outstanding--
		}
		switch {
		case e.Kind == history.KindOK && e.F == history.FPersist && !e.Dedup:
			if e.Seq < lastAck[e.Chat] {
				outOfOrder++
			}
			lastAck[e.Chat] = max(lastAck[e.Chat], e.Seq)
		case e.Kind == history.KindOK && e.F == history.FSync:
			if len(e.Sync.Seqs) > cfg.SyncLimit {
				t.Fatalf("line %d: %d seqs, above the limit", e.Line, len(e.Sync.Seqs))
			}
		}
	}
	if outstanding != 0 {
		t.Errorf("%d operations left outstanding", outstanding)
	}
	if most < (cfg.Writers+cfg.Readers)/2 {
		t.Errorf("at most %d operations overlap, of %d processes", most, cfg.Writers+cfg.Readers)
	}
	if outOfOrder == 0 {
		t.Errorf("every persist was acknowledged in sequence order")
	}
}

// A stale sync breaks the history where only linearizability can see it:
// sync_completeness passes, linearizability fails and names the sync.
func TestStaleSyncFailsOnlyLinearizability(t *testing.T) {
	for _, c := range []struct {
		writers, readers int
		seed             int64
	}{
		// Small enough for porcupine too (--lin-checker porcupine): it has
		// to exhaust every ordering up to the broken sync to prove there
		// is none, which with 64 writers it cannot within its budgets.
		{8, 2, 1}, {8, 2, 2},
		{64, 8, 1},
	} {
		t.Run(fmt.Sprintf("writers=%d/seed=%d", c.writers, c.seed), func(t *testing.T) {
			cfg := Default()
			cfg.Persists, cfg.Hot, cfg.Writers, cfg.Readers, cfg.Seed, cfg.StaleSync = 2000, true, c.writers, c.readers, c.seed, true
			res, h, data := generate(t, cfg)
			st := res.Stale
			if st == nil {
				t.Fatal("no stale sync reported")
			}
			lines := strings.Split(string(data), "\n")
			if res.Lines != len(lines)-1 || st.OKLine != st.InvokeLine+1 ||
				!(st.PersistInvokeLine < st.EarlierSyncLine && st.EarlierSyncLine < st.InvokeLine && st.InvokeLine < st.PersistAckLine) {
				t.Fatalf("stale sync %+v out of order", st)
			}
			// "Late in the history": placed once three quarters of the
			// persists were invoked.
			if ops := len(h.Events); float64(st.InvokeLine-1) < 0.7*float64(ops) {
				t.Errorf("the stale sync is at line %d of %d operation lines", st.InvokeLine, ops)
			}
			for _, want := range []struct {
				line int
				text string
			}{
				{st.InvokeLine, `"type":"invoke","process":`},
				{st.OKLine, `"type":"ok","process":`},
				{st.EarlierSyncLine, `"f":"sync"`},
				{st.PersistInvokeLine, `"type":"invoke"`},
				{st.PersistAckLine, fmt.Sprintf(`"seq":%d,`, st.Seq)},
			} {
				if !strings.Contains(lines[want.line-1], want.text) {
					t.Errorf("line %d is %s, want it to hold %s", want.line, lines[want.line-1], want.text)
				}
			}
			earlier := eventAt(t, h, st.EarlierSyncLine)
			broken, invoked := eventAt(t, h, st.OKLine), eventAt(t, h, st.InvokeLine)
			if !slices.Contains(earlier.Sync.Seqs, st.Seq) || slices.Contains(broken.Sync.Seqs, st.Seq) || invoked.After >= st.Seq ||
				eventAt(t, h, st.PersistAckLine).Kind != history.KindOK {
				t.Fatalf("stale sync %+v: the earlier sync returned %v, the broken one after %d returned %v", st, earlier.Sync.Seqs, invoked.After, broken.Sync.Seqs)
			}

			opts := []checker.Options{{}} // the exact checker
			if c.writers <= 8 {
				opts = append(opts, checker.Options{Porcupine: true})
			}
			for _, opt := range opts {
				r := checker.Check(h, opt)
				for _, inv := range r.Invariants {
					switch {
					case inv.Name == checker.NameLinearizability:
						named := strings.Contains(inv.Detail, fmt.Sprint(st.OKLine)) || strings.Contains(inv.Detail, fmt.Sprint(st.InvokeLine))
						if inv.Status != checker.Fail || !slices.Contains(inv.Lines, st.OKLine) || !named {
							t.Errorf("porcupine=%v: linearizability = %s, lines %v: %s; want a failure naming line %d", opt.Porcupine, inv.Status, inv.Lines, inv.Detail, st.OKLine)
						}
					case inv.Status != checker.Pass:
						t.Errorf("porcupine=%v: %s = %s: %s", opt.Porcupine, inv.Name, inv.Status, inv.Detail)
					}
				}
				if res, ok := r.Result(checker.NameSyncCompleteness); !ok || res.Status != checker.Pass {
					t.Errorf("sync_completeness not judged passing: %+v", res)
				}
				if r.Stats.LateCommits != res.LateCommits {
					t.Errorf("checker counts %d late commits, generator %d", r.Stats.LateCommits, res.LateCommits)
				}
			}
		})
	}
}

func eventAt(t *testing.T, h *history.History, line int) *history.Event {
	t.Helper()
	i, ok := slices.BinarySearchFunc(h.Events, line, func(e history.Event, l int) int { return e.Line - l })
	if !ok {
		t.Fatalf("no event at line %d", line)
	}
	return &h.Events[i]
}

// A run too short or too quiet for a stale sync says so.
func TestStaleSyncWithoutAChance(t *testing.T) {
	cfg := Default()
	cfg.Persists, cfg.Hot, cfg.Writers, cfg.Readers, cfg.StaleSync = 40, true, 2, 1, true
	if _, err := Generate(io.Discard, cfg); err == nil || !strings.Contains(err.Error(), "stale sync") {
		t.Fatalf("err = %v", err)
	}
}

// Equal configs write equal bytes; another seed writes other bytes.
func TestDeterministicPerSeed(t *testing.T) {
	for _, hot := range []bool{true, false} {
		cfg := Default()
		cfg.Persists, cfg.Hot, cfg.Chats, cfg.StaleSync, cfg.Seed = 3000, hot, 30, true, 7
		var a, b, c bytes.Buffer
		ra, err := Generate(&a, cfg)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := Generate(&b, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) || *ra.Stale != *rb.Stale {
			t.Fatalf("hot=%v: two runs of seed 7 differ (%d and %d bytes; stale %+v and %+v)", hot, a.Len(), b.Len(), ra.Stale, rb.Stale)
		}
		ra.Stale, rb.Stale = nil, nil
		if ra != rb {
			t.Fatalf("results differ: %+v, %+v", ra, rb)
		}
		cfg.Seed = 8
		if _, err := Generate(&c, cfg); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Fatalf("hot=%v: seeds 7 and 8 wrote the same history", hot)
		}
	}
}

// The generator streams: what it allocates is a small fraction of what it
// writes (8 bytes per sequence for the final tables, and its buffers).
func TestStreamsWithoutHoldingTheHistory(t *testing.T) {
	cfg := Default()
	cfg.Persists = 200_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Generate(io.Discard, cfg)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	perPersist := float64(alloc) / float64(cfg.Persists)
	t.Logf("%d bytes written, %d allocated (%.1f per persist)", res.Bytes, alloc, perPersist)
	// The keys of 200k messages, grown by doubling, are under 32 bytes a
	// persist; three 1 MiB buffers another 16.
	if perPersist > 64 || alloc > uint64(res.Bytes)/8 {
		t.Fatalf("allocated %d bytes (%.1f per persist) to write %d", alloc, perPersist, res.Bytes)
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ limit int }

var errFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, errFull
	}
	w.limit -= len(p)
	return len(p), nil
}

// A write error stops the generator and is returned, with the bytes that
// were written.
func TestWriteErrorIsReturned(t *testing.T) {
	cfg := Default()
	cfg.Persists = 50_000
	res, err := Generate(&failingWriter{limit: 3 << 20}, cfg)
	if !errors.Is(err, errFull) || res.Bytes != 3<<20 {
		t.Fatalf("err = %v, %d bytes written", err, res.Bytes)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Persists = -1 }, "persists"},
		{func(c *Config) { c.Chats = 0 }, "chats"},
		{func(c *Config) { c.Writers = 0 }, "writers"},
		{func(c *Config) { c.Readers = -1 }, "readers"},
		{func(c *Config) { c.SyncShare = 1 }, "sync share"},
		{func(c *Config) { c.Readers = 0 }, "needs readers"},
		{func(c *Config) { c.SyncLimit = 0 }, "sync limit"},
		{func(c *Config) { c.CrashAfterAllocate = 1.5 }, "crash after allocate"},
		{func(c *Config) { c.CrashAfterPersist = math.NaN() }, "crash after persist"},
		{func(c *Config) { c.Replay = -0.1 }, "replay"},
		{func(c *Config) { c.SyncShare, c.StaleSync = 0, true }, "stale sync needs"},
	} {
		cfg := Default()
		c.edit(&cfg)
		var buf bytes.Buffer
		if _, err := Generate(&buf, cfg); err == nil || !strings.Contains(err.Error(), c.want) || buf.Len() > 0 {
			t.Errorf("config %+v: err = %v, %d bytes written; want an error about %q and nothing written", cfg, err, buf.Len(), c.want)
		}
	}
	// Hot ignores chats.
	cfg := Default()
	cfg.Hot, cfg.Chats, cfg.Persists = true, 0, 10
	if _, err := Generate(io.Discard, cfg); err != nil {
		t.Fatal(err)
	}
}
