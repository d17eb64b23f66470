// Package drill rehearses ADR-004's SEV-2 counter recovery on a live load and
// records it as a chatseq history, so the checker judges the whole incident:
// writers send to one chat, the drill deletes the chat's counter, sends fail
// with counter_missing, the drill quiesces the writers (the runbook's "no
// active writes"), recovers the counter and lets the writers resume.
//
// Two details make the incident realistic and the drill decisive:
//
//   - a straggler: one persist has allocated its sequence before the deletion
//     and commits only after it (held inside the store until the drill lets
//     it go). Quiescing waits for it, so the recovery counts it; a recovery
//     that does not wait re-issues its sequence (UnsafeRecovery's racing
//     writer);
//   - optional orphans: sequences allocated just before the deletion by
//     persists that crashed before persisting. The runbook restores the
//     highest *persisted* sequence, so it hands those out again.
//
// CounterRecovery passes when the runbook works; UnsafeRecovery passes when
// the checker catches the duplicates a recovery without the prerequisites
// creates.
package drill

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/recovery"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
)

// Config is one drill.
type Config struct {
	Writers int // concurrent writers on the drill's chat
	// Warmup is how many messages are acknowledged before the incident.
	Warmup int
	// After is how many new messages are acknowledged after the recovery
	// before the load stops.
	After int
	// SyncRatio is the share of writer operations that are syncs.
	SyncRatio float64
	// Orphans is how many sequences are allocated just before the deletion
	// by persists that crash before persisting (two-phase only). The
	// runbook re-issues them; see Result.Reissued.
	Orphans  int
	Strategy sequencer.Strategy
	Seed     int64
	// Chat is the drill's chat id; on shared tables use a fresh one.
	Chat        string
	HistoryPath string // where the history is written; required
	Target      string // recorded in the history header (the store kind)
	// Timeout bounds the whole drill; a phase that does not complete in
	// time (no counter_missing seen, no acks after recovery) fails it.
	Timeout time.Duration
	// Recover replaces the runbook's recovery step; nil runs it
	// (recovery.Plan, then recovery.Apply). Tests put broken steps here to
	// show the drill fails them.
	Recover Recoverer
	// CheckOptions are passed to checker.Check.
	CheckOptions checker.Options
	// Hold keeps each phase of the incident going at least this long: the
	// load before the deletion, the outage after it, the load after the
	// recovery; 0 moves on as soon as each phase's count is met. A
	// scraper (--metrics-addr) then sees each phase, and an alert on
	// counter_missing fire and resolve.
	Hold time.Duration
	// Rate paces the writers' operations, in all per second (retries
	// after a failure are paced by their backoff); 0: as fast as they go.
	Rate float64
	// Metrics, if set, exports the drill's figures while it runs.
	Metrics *metrics.Exporter
}

// DefaultConfig is a drill of a few hundred operations.
func DefaultConfig() Config {
	return Config{
		Writers: 4, Warmup: 100, After: 100, SyncRatio: 0.1,
		Strategy: sequencer.TwoPhase, Seed: 1, Chat: "drill-chat",
		HistoryPath: "chatseq-drill.jsonl", Target: "memory", Timeout: 2 * time.Minute,
	}
}

// Validate names the first bad setting, by its command-line flag.
func (c Config) Validate() error {
	strategy, ok := sequencer.ParseStrategy(string(c.Strategy))
	switch {
	case c.Writers < 1:
		return fmt.Errorf("--writers must be at least 1, got %d", c.Writers)
	case c.Warmup < 1:
		return fmt.Errorf("--warmup must be at least 1, got %d", c.Warmup)
	case c.After < 1:
		return fmt.Errorf("--after must be at least 1, got %d", c.After)
	case c.Orphans < 0:
		return fmt.Errorf("--orphans must not be negative, got %d", c.Orphans)
	case c.After <= c.Orphans:
		// Fewer new messages than orphans would leave the final counter
		// below an orphan, which the checker would rightly flag.
		return fmt.Errorf("--after (%d) must exceed --orphans (%d) so every re-issued sequence is used again", c.After, c.Orphans)
	case !(c.SyncRatio >= 0 && c.SyncRatio < 1):
		return fmt.Errorf("--sync-ratio must be in [0,1), got %g", c.SyncRatio)
	case !ok:
		return fmt.Errorf("--strategy must be two-phase or occ, got %q", c.Strategy)
	case strategy == sequencer.Optimistic && c.Orphans > 0:
		return errors.New("--orphans needs --strategy two-phase: under occ a sequence is allocated only by the commit that persists it, so none can be orphaned")
	case c.Chat == "":
		return errors.New("the drill chat id must not be empty")
	case c.HistoryPath == "":
		return errors.New("--history must name a file")
	case c.Timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %s", c.Timeout)
	case !(c.Rate >= 0 && c.Rate <= 1e9):
		return fmt.Errorf("--rate must be between 0 and 1e9 operations/s, got %g", c.Rate)
	case c.Hold < 0:
		return fmt.Errorf("--hold must not be negative, got %s", c.Hold)
	case 3*c.Hold >= c.Timeout:
		return fmt.Errorf("--timeout (%s) must exceed three times --hold (%s): the drill holds three phases", c.Timeout, c.Hold)
	}
	return nil
}

// Recoverer restores chat's counter and returns the value it wrote.
type Recoverer func(ctx context.Context, st store.Store, chat string) (uint64, error)

// Runbook is ADR-004's procedure: Plan (highest persisted sequence, counter
// missing) then Apply (put with attribute_not_exists).
func Runbook(ctx context.Context, st store.Store, chat string) (uint64, error) {
	p, err := recovery.Plan(ctx, st, chat)
	if err != nil {
		return 0, err
	}
	res, err := recovery.Apply(ctx, st, p)
	return res.Value, err
}

// BelowMax restores the counter `by` below the highest persisted sequence,
// as a restore from a backup or point-in-time recovery taken before the
// last messages would: the recovery ADR-004's runbook exists to prevent.
func BelowMax(by uint64) Recoverer {
	return func(ctx context.Context, st store.Store, chat string) (uint64, error) {
		max, err := recovery.MaxPersisted(ctx, st, chat)
		if err != nil {
			return 0, err
		}
		v := max - min(by, max)
		return v, st.PutCounter(ctx, store.Counter{Chat: chat, Value: v}, store.IfAbsent)
	}
}
