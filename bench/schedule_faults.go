package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
)

// Timed fault kinds.
const (
	// KafkaOutage: every publish in the window fails.
	KafkaOutage = "kafka-outage"
	// StoreLatency: every store call in the window is delayed by Latency.
	StoreLatency = "store-latency"
	// StoreStall: every store call in the window blocks until it ends.
	StoreStall = "store-stall"
	// DeleteCounter: at At the counter of chat Chat is deleted (an
	// operator's mistake; ADR-004's SEV-2).
	DeleteCounter = "delete-counter"
	// Store errors in a window (ADR-004's core only; §10's "DynamoDB
	// unavailable"): StoreThrottle refuses every store call (nothing
	// applied); StoreInternalError fails every call with a 500 (a
	// transaction is applied first on a fixed coin per write; a counter
	// ADD never is); TxnCanceledOther cancels every transaction for a
	// reason other than its condition (nothing applied).
	StoreThrottle      = "store-throttle"
	StoreInternalError = "store-internal-error"
	TxnCanceledOther   = "txn-canceled-other"
)

// storeErrorKinds are the timed faults that fail store calls.
var storeErrorKinds = []string{StoreThrottle, StoreInternalError, TxnCanceledOther}

// IsStoreError reports whether kind fails store calls (ADR-004's core
// only).
func IsStoreError(kind string) bool { return slices.Contains(storeErrorKinds, kind) }

// TimedKinds lists every timed fault kind.
func TimedKinds() []string {
	return append([]string{KafkaOutage, StoreLatency, StoreStall, DeleteCounter, KillServer}, storeErrorKinds...)
}

// TimedFault is a fault on the run's clock.
type TimedFault struct {
	Kind    string
	At      time.Duration // from the start of the writers
	For     time.Duration // window length (outage, latency, stall)
	Latency time.Duration // StoreLatency only
	Chat    int           // DeleteCounter only: the chat's index
}

func (f TimedFault) validate(chats int) error {
	switch f.Kind {
	case KafkaOutage, StoreStall, StoreThrottle, StoreInternalError, TxnCanceledOther:
		if f.For <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration", f.Kind, f.At)
		}
	case StoreLatency:
		if f.For <= 0 || f.Latency <= 0 {
			return fmt.Errorf("%s at %s needs a positive duration and latency", f.Kind, f.At)
		}
	case KillServer:
	case DeleteCounter:
		if f.Chat < 0 || f.Chat >= chats {
			return fmt.Errorf("%s names chat %d, but the run has chats 0..%d", f.Kind, f.Chat, chats-1)
		}
	default:
		return fmt.Errorf("unknown timed fault %q (known: %s)", f.Kind, strings.Join(TimedKinds(), ", "))
	}
	if f.At < 0 {
		return fmt.Errorf("%s: at must not be negative, got %s", f.Kind, f.At)
	}
	return nil
}

// MaxFaultWithoutDuration bounds a stall's end and a store latency in a run
// bounded by --ops alone, which has no end to measure them against: a typo
// of 1h for 1s, or a latency of 2562047h, would otherwise hold the run for
// as long.
const MaxFaultWithoutDuration = time.Hour

// OutlastsRun says why f cannot be carried out within a run of the given
// duration (0: bounded by --ops alone), or returns "": a window whose end
// overflows the clock, a fault that starts after the run is over, a stall
// still on when the writers stop (every call in flight would wait for its
// end), or a store latency longer than the run.
func (f TimedFault) OutlastsRun(duration time.Duration) string {
	name := f.ScheduleName()
	if f.For > 0 && f.At > math.MaxInt64-f.For {
		return fmt.Sprintf("%s at %s for %s ends beyond the clock's range", name, f.At, f.For)
	}
	end, bound, bounded := f.At+f.For, duration, "the "+duration.String()+" run"
	if duration <= 0 {
		bound, bounded = MaxFaultWithoutDuration, "the "+MaxFaultWithoutDuration.String()+" a run without --duration allows"
	} else if f.At >= duration {
		return fmt.Sprintf("%s at %s starts when the %s run is over: it would never happen", name, f.At, duration)
	}
	switch {
	case f.Kind == StoreStall && end > bound:
		return fmt.Sprintf("%s from %s to %s outlasts %s: the calls in flight when the writers stop would wait for its end", name, f.At, end, bounded)
	case f.Kind == StoreLatency && f.Latency > bound:
		return fmt.Sprintf("%s at %s delays each store call by %s, longer than %s", name, f.At, f.Latency, bounded)
	}
	return ""
}

// ScheduleName is the fault's name in the schedule language of scenario
// files and --schedule: its kind with underscores (store_stall).
func (f TimedFault) ScheduleName() string { return strings.ReplaceAll(f.Kind, "-", "_") }

func (f TimedFault) active(elapsed time.Duration) bool {
	return elapsed >= f.At && elapsed < f.At+f.For
}

// runClock is the run's start, set when the writers begin.
type runClock struct{ start atomic.Int64 }

func (c *runClock) begin() { c.start.Store(time.Now().UnixNano()) }
func (c *runClock) elapsed() time.Duration {
	return time.Duration(time.Now().UnixNano() - c.start.Load())
}

// outagePublisher fails publishes inside Kafka outage windows.
type outagePublisher struct {
	inner   sequencer.Publisher
	elapsed func() time.Duration
	outages []TimedFault
}

var errKafkaOutage = fmt.Errorf("kafka outage (scheduled fault)")

func (p *outagePublisher) Publish(ctx context.Context, ev sequencer.MessagePersisted) error {
	el := p.elapsed()
	for _, o := range p.outages {
		if o.active(el) {
			return errKafkaOutage
		}
	}
	return p.inner.Publish(ctx, ev)
}

// slowStore delays store calls inside latency and stall windows and fails
// them inside store error windows.
type slowStore struct {
	store.Store
	elapsed func() time.Duration
	windows []TimedFault
}

// storeWindowKinds are the timed faults slowStore applies.
var storeWindowKinds = append([]string{StoreLatency, StoreStall}, storeErrorKinds...)

// enter applies the window the run is in to one call: it waits out a
// latency or a stall, or returns the store error window's kind.
func (s *slowStore) enter(ctx context.Context) (errKind string) {
	el := s.elapsed()
	for _, w := range s.windows {
		if !w.active(el) {
			continue
		}
		if IsStoreError(w.Kind) {
			return w.Kind
		}
		d := w.Latency
		if w.Kind == StoreStall {
			d = w.At + w.For - el
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		return ""
	}
	return ""
}

// failCall is the error a call op fails with in a store error window of
// kind, nil when kind does not touch it (a cancelled transaction is only
// ever a transaction).
func failCall(kind, op string) error {
	switch kind {
	case StoreThrottle:
		return store.Throttled(op)
	case StoreInternalError:
		return store.InternalError(op)
	}
	return nil
}

func (s *slowStore) GetIdempotency(ctx context.Context, chat, key string, consistent bool) (store.IdempotencyRecord, bool, error) {
	if err := failCall(s.enter(ctx), "GetItem idempotency_keys"); err != nil {
		return store.IdempotencyRecord{}, false, err
	}
	return s.Store.GetIdempotency(ctx, chat, key, consistent)
}

func (s *slowStore) IsMember(ctx context.Context, chat, user string) (bool, error) {
	if err := failCall(s.enter(ctx), "GetItem chat_memberships"); err != nil {
		return false, err
	}
	return s.Store.IsMember(ctx, chat, user)
}

// IncrementCounter fails before applying in an internal error window: the
// client still cannot know, and no sequence is handed out that the
// history could not trace.
func (s *slowStore) IncrementCounter(ctx context.Context, chat string) (uint64, error) {
	if err := failCall(s.enter(ctx), "UpdateItem chat_counters ADD"); err != nil {
		return 0, err
	}
	return s.Store.IncrementCounter(ctx, chat)
}

func (s *slowStore) GetCounter(ctx context.Context, chat string, consistent bool) (store.Counter, error) {
	if err := failCall(s.enter(ctx), "GetItem chat_counters"); err != nil {
		return store.Counter{}, err
	}
	return s.Store.GetCounter(ctx, chat, consistent)
}

func (s *slowStore) PutCounter(ctx context.Context, c store.Counter, cond store.Condition) error {
	if err := failCall(s.enter(ctx), "PutItem chat_counters"); err != nil {
		return err
	}
	return s.Store.PutCounter(ctx, c, cond)
}

// TransactWrite in an internal error window is applied first when the
// write's coin says so; occ's transactions, which allocate, never are
// (their allocation could not be traced).
func (s *slowStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	switch kind := s.enter(ctx); kind {
	case TxnCanceledOther:
		return store.CanceledOther(len(items))
	case StoreInternalError:
		if appliedCoin(items) {
			_ = s.Store.TransactWrite(ctx, items)
		}
		return failCall(kind, "TransactWriteItems")
	case StoreThrottle:
		return failCall(kind, "TransactWriteItems")
	}
	return s.Store.TransactWrite(ctx, items)
}

func (s *slowStore) QueryMessages(ctx context.Context, q store.Query) ([]store.Message, error) {
	if err := failCall(s.enter(ctx), "Query messages"); err != nil {
		return nil, err
	}
	return s.Store.QueryMessages(ctx, q)
}

// appliedCoin is a fair coin fixed by a persist's transaction (its key and
// sequence), so a rerun decides alike; false for a transaction that sets
// the counter.
func appliedCoin(items []store.TxItem) bool {
	h := uint64(14695981039346656037)
	for _, it := range items {
		switch {
		case it.PutCounter != nil:
			return false
		case it.PutIdempotency != nil:
			h = fnv1a(it.PutIdempotency.Chat+"/"+it.PutIdempotency.Key) ^ it.PutIdempotency.Seq
		}
	}
	return h%2 == 0
}

// scheduleCounterDeletions deletes counters at their times until ctx ends.
func scheduleCounterDeletions(ctx context.Context, t Target, cfg Config) {
	for _, f := range cfg.Timed {
		if f.Kind != DeleteCounter {
			continue
		}
		go func(f TimedFault) {
			timer := time.NewTimer(f.At)
			defer timer.Stop()
			select {
			case <-ctx.Done():
			case <-timer.C:
				_ = t.DeleteCounter(context.WithoutCancel(ctx), chatID(cfg.ChatPrefix, f.Chat))
			}
		}(f)
	}
}
