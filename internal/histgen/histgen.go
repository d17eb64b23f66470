// Package histgen writes simulated histories of a valid ADR-004 sequencer
// (two-phase: allocate a sequence, then commit the message) in the chatseq
// history format, straight to an io.Writer. It exists for the checker's
// scale targets: a history of millions of persists is generated in seconds
// and never held in memory, so the repository keeps the generator rather
// than the files.
//
// The simulation is the one checker/gen_test.go runs in memory, made to
// stream: W writer and R reader processes, one process stepping per tick,
// so that up to W+R operations overlap. A persist is an invoke, an allocate
// trace (the counter hands out the next sequence), a commit (the message
// becomes visible to syncs; no line) and an acknowledgement (ok), or a crash
// after allocating (info crash_after_allocate: the sequence stays a gap and
// the client retries the key) or after committing (info
// crash_after_persist: the retry is answered as a replay, dedup=true). A
// writer also re-sends its last acknowledged key now and then (a replay).
// Commits land out of sequence order whenever two writers' allocations
// overlap, as in the real design, so syncs see late commits below their
// cursor. A sync returns exactly the committed messages above its cursor
// at the instant it completes, ascending, at most its limit.
//
// Memory is O(writers + readers × chats) plus 8 bytes per allocated
// sequence (the key each committed message holds, needed for the final
// tables and drawn at random, so it cannot be recomputed): about 40 MB for
// five million persists. Output is buffered 1 MiB at a time.
package histgen

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Config describes a simulated run.
type Config struct {
	// Persists is the number of persist operations, retries and replays
	// included.
	Persists int
	// Chats the operations spread over, uniformly unless Zipf. Ignored
	// when Hot.
	Chats int
	// Zipf, above 1, draws each operation's chat from a Zipf distribution
	// of that exponent (chat-0000 the busiest: at 1.1 over 200 chats it
	// takes a fifth of the operations), as real traffic is skewed; 0 draws
	// uniformly.
	Zipf float64
	// Hot puts every operation on one chat.
	Hot bool
	// Writers and Readers are the concurrent processes that persist and
	// sync. Their process ids are 0..Writers-1 and then the readers.
	Writers, Readers int
	// SyncShare is the fraction of all operations that are syncs, in [0, 1).
	SyncShare float64
	// SyncLimit is every sync's page size (at least 1).
	SyncLimit int
	// CrashAfterAllocate is the chance that a persist crashes after its
	// allocation, before committing (info crash_after_allocate; the
	// sequence becomes a gap and the client retries the key).
	CrashAfterAllocate float64
	// CrashAfterPersist is the chance that a persist crashes after
	// committing, before answering (info crash_after_persist; the retry is
	// answered as a replay).
	CrashAfterPersist float64
	// Replay is the chance that a writer's next persist re-sends the key it
	// last had acknowledged (answered dedup=true with the original message).
	Replay float64
	// Seed makes the run: equal configs write equal bytes.
	Seed int64
	// Partitions, above 0, publishes each committed message as an event
	// when it commits, on topic partition chat mod Partitions at that
	// partition's next offset, and writes the final events table: events
	// reach the topic in commit order, which is out of sequence order
	// whenever two writers' allocations overlap. 0 writes no events.
	Partitions int
	// FullPages makes syncs heavy: a reader with fewer than SyncLimit
	// committed messages above its cursor starts its sync lower, where a
	// full page lies above (a client opening a chat at its last page), so
	// pages are nearly all full.
	FullPages bool
	// StaleSync breaks the history in one place only linearizability can
	// see: one sync, in the last quarter of the run, misses a message that
	// an earlier finished sync had returned and whose persist had not been
	// acknowledged when this sync was invoked (so sync_completeness, which
	// only requires messages acknowledged before the invoke, passes). It
	// needs readers and a sync share above zero.
	StaleSync bool
}

// Default is the configuration the histgen command starts from.
func Default() Config {
	return Config{
		Persists:           100_000,
		Chats:              100,
		Writers:            64,
		Readers:            8,
		SyncShare:          0.10,
		SyncLimit:          100,
		CrashAfterAllocate: 0.01,
		CrashAfterPersist:  0.01,
		Replay:             0.02,
		Seed:               1,
	}
}

// Profiles are the shapes a checker meets in practice, which the
// defaults do not make: the names Profile takes.
var Profiles = []string{"zipf", "heavy-sync"}

// Profile returns the configuration of a named profile (Profiles):
//
//   - zipf: 2M persists over 200 chats drawn from a Zipf distribution
//     (exponent 1.1), syncs as by default, and events over 16 partitions
//     that reach the topic in commit order, out of sequence order;
//   - heavy-sync: 1M persists on one hot chat from 64 writers, with 105k
//     syncs of limit 100, nearly all full (10M returned entries).
//
// Its fields may be changed afterwards (the tests shrink Persists).
func Profile(name string) (Config, error) {
	c := Default()
	switch name {
	case "zipf":
		c.Persists, c.Chats, c.Zipf, c.Partitions = 2_000_000, 200, 1.1, 16
	case "heavy-sync":
		// 1M persists and a 0.095 share make 104,972 syncs.
		c.Persists, c.Hot, c.Writers, c.SyncShare, c.SyncLimit, c.FullPages = 1_000_000, true, 64, 0.095, 100, true
	default:
		return Config{}, fmt.Errorf("unknown profile %q (profiles: %s)", name, strings.Join(Profiles, ", "))
	}
	return c, nil
}

// Limits of the encoding: a key packs its writer above 40 bits of counter,
// a message id packs its chat above 40 bits of sequence.
const (
	maxWriters = 1 << 20
	maxChats   = 1 << 24
	maxSeq     = 1 << 40
	// maxPartitions keeps a partition number an int32, as the format's.
	maxPartitions = 1 << 20
)

func (c Config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Persists < 0 || c.Persists >= maxSeq {
		bad("persists must be from 0 to %d, got %d", maxSeq-1, c.Persists)
	}
	if !c.Hot && (c.Chats < 1 || c.Chats > maxChats) {
		bad("chats must be from 1 to %d, got %d", maxChats, c.Chats)
	}
	if !(c.Zipf == 0 || c.Zipf > 1) || math.IsInf(c.Zipf, 0) {
		bad("zipf exponent must be 0 (uniform) or above 1, got %v", c.Zipf)
	}
	if c.Partitions < 0 || c.Partitions > maxPartitions {
		bad("partitions must be from 0 to %d, got %d", maxPartitions, c.Partitions)
	}
	if c.FullPages && (c.Readers == 0 || c.SyncShare == 0) {
		bad("full pages need readers and a sync share above 0")
	}
	if c.Writers < 1 || c.Writers > maxWriters {
		bad("writers must be from 1 to %d, got %d", maxWriters, c.Writers)
	}
	if c.Readers < 0 || c.Readers > maxWriters {
		bad("readers must be from 0 to %d, got %d", maxWriters, c.Readers)
	}
	if !(c.SyncShare >= 0 && c.SyncShare < 1) {
		bad("sync share must be in [0, 1), got %v", c.SyncShare)
	}
	if c.SyncShare > 0 && c.Readers == 0 {
		bad("a sync share of %v needs readers", c.SyncShare)
	}
	if c.SyncLimit < 1 {
		bad("sync limit must be at least 1, got %d", c.SyncLimit)
	}
	for _, r := range []struct {
		name string
		p    float64
	}{{"crash after allocate", c.CrashAfterAllocate}, {"crash after persist", c.CrashAfterPersist}, {"replay", c.Replay}} {
		if !(r.p >= 0 && r.p <= 1) {
			bad("%s chance must be in [0, 1], got %v", r.name, r.p)
		}
	}
	if c.StaleSync && (c.Readers == 0 || c.SyncShare == 0) {
		bad("a stale sync needs readers and a sync share above 0")
	}
	return errors.Join(errs...)
}

// Result says what Generate wrote.
type Result struct {
	Lines int   // lines written, header and final lines included
	Bytes int64 // bytes written
	// Operations by kind and outcome.
	Persists, Syncs int
	// Returned counts the entries all syncs returned.
	Returned int
	// Events counts the final events lines (Config.Partitions).
	Events int
	Dedup  int // persists answered as replays (dedup=true)
	CrashesAfterAllocate,
	CrashesAfterPersist int
	// Messages committed (each has a final messages and idempotency
	// line); Gaps are sequences allocated and never committed.
	Messages, Gaps int
	// LateCommits counts messages committed below a sequence that a sync
	// had already returned without them: the checker's late_commits, which
	// it reports as a warning. With StaleSync the broken sync can add one.
	LateCommits int
	// Stale is the broken sync, when Config.StaleSync.
	Stale *Stale
}

// Stale locates the one broken sync of a StaleSync history. Lines count
// from 1, the header being line 1.
type Stale struct {
	Chat string
	// Seq is the message the sync missed.
	Seq uint64
	// InvokeLine and OKLine are the broken sync's two lines.
	InvokeLine, OKLine int
	// EarlierSyncLine is the ok line of a sync that had returned Seq and
	// finished before the broken one was invoked.
	EarlierSyncLine int
	// PersistInvokeLine and PersistAckLine are the persist that committed
	// Seq: invoked before, and acknowledged after, the broken sync's invoke.
	PersistInvokeLine, PersistAckLine int
}

func (s *Stale) String() string {
	return fmt.Sprintf("the sync at lines %d-%d on chat %q misses seq %d, which the sync ending at line %d had returned; its persist (line %d) was acknowledged only at line %d",
		s.InvokeLine, s.OKLine, s.Chat, s.Seq, s.EarlierSyncLine, s.PersistInvokeLine, s.PersistAckLine)
}

// Generate simulates the run cfg describes and writes its history to w:
// the header, the operations and allocate traces in time order, then the
// final counters, messages and idempotency tables.
func Generate(w io.Writer, cfg Config) (Result, error) {
	if err := cfg.validate(); err != nil {
		return Result{}, err
	}
	g := newGen(w, cfg)
	g.run()
	if g.err != nil {
		return g.res, g.err
	}
	if cfg.StaleSync && g.res.Stale == nil {
		return g.res, errors.New("the run ended before a stale sync could be placed (it needs a sync, late in the run, by a reader behind a message another sync returned while its persist was unacknowledged): raise persists or readers")
	}
	return g.res, nil
}
