package sequencer

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"

	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

// recordingPublisher keeps what was published, failing while fail is set.
type recordingPublisher struct {
	mu     sync.Mutex
	events []MessagePersisted
	fail   bool
}

func (p *recordingPublisher) Publish(_ context.Context, ev MessagePersisted) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		return errors.New("broker unavailable")
	}
	p.events = append(p.events, ev)
	return nil
}

type fixture struct {
	t     *testing.T
	ctx   context.Context
	store store.Store
	pub   *recordingPublisher
	core  *Core
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), pub: &recordingPublisher{}}
	if cfg.Store == nil {
		cfg.Store = memstore.New()
	}
	f.store = cfg.Store
	cfg.Publisher = f.pub
	core, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.core = core
	return f
}

// chatAt creates chat "A" with member "alice" and its counter at value.
func (f *fixture) chatAt(value uint64) {
	f.t.Helper()
	if err := f.core.CreateChat(f.ctx, "A", []string{"alice"}); err != nil {
		f.t.Fatal(err)
	}
	if err := f.store.PutCounter(f.ctx, store.Counter{Chat: "A", Value: value}, store.Unconditional); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) persist(key string, faults FaultPlan) (Outcome, error) {
	return f.core.Persist(f.ctx, Request{Chat: "A", Key: key, Sender: "alice", Content: "hi " + key, Faults: faults}, nil)
}

func (f *fixture) counter() uint64 {
	f.t.Helper()
	c, err := f.store.GetCounter(f.ctx, "A", true)
	if err != nil || c.Missing {
		f.t.Fatalf("counter: %+v, %v", c, err)
	}
	return c.Value
}

func (f *fixture) messageSeqs() []uint64 {
	f.t.Helper()
	msgs, err := f.store.QueryMessages(f.ctx, store.Query{Chat: "A"})
	if err != nil {
		f.t.Fatal(err)
	}
	seqs := make([]uint64, len(msgs))
	for i, m := range msgs {
		seqs[i] = m.Seq
	}
	return seqs
}

func equalSeqs(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ADR-004 Appendix D, scenario 1.
func TestScenario1BasicAllocation(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(10)
	out, err := f.persist("uuid-1", FaultPlan{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Seq != 11 || out.Dedup {
		t.Fatalf("response %+v, want sequence 11 not deduplicated", out.Result)
	}
	if got := f.counter(); got != 11 {
		t.Fatalf("sequence_counter = %d, want 11", got)
	}
	if got := f.messageSeqs(); !equalSeqs(got, []uint64{11}) {
		t.Fatalf("messages %v, want [11]", got)
	}
	rec, ok, _ := f.store.GetIdempotency(f.ctx, "A", "uuid-1", true)
	if !ok || rec.Seq != 11 || rec.MessageID != out.MessageID {
		t.Fatalf("idempotency record %+v (present %v), want sequence 11 and %s", rec, ok, out.MessageID)
	}
	if len(f.pub.events) != 1 || f.pub.events[0].Seq != 11 {
		t.Fatalf("published %+v, want one event for 11", f.pub.events)
	}
}

// Scenario 2.
func TestScenario2IdempotentRetry(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(10)
	first, err := f.persist("uuid-1", FaultPlan{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.persist("uuid-1", FaultPlan{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Seq != 11 || !again.Dedup || again.MessageID != first.MessageID {
		t.Fatalf("retry answered %+v, want the cached 11 (%s) deduplicated", again.Result, first.MessageID)
	}
	if got := f.counter(); got != 11 {
		t.Fatalf("sequence_counter = %d after a retry, want 11", got)
	}
	if got := f.messageSeqs(); !equalSeqs(got, []uint64{11}) {
		t.Fatalf("messages %v, want [11]", got)
	}
}

// Scenario 3.
func TestScenario3ConcurrentWriters(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(10)
	var wg sync.WaitGroup
	seqs := make([]uint64, 3)
	for i, key := range []string{"uuid-1", "uuid-2", "uuid-3"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := f.persist(key, FaultPlan{})
			if err != nil {
				t.Error(err)
			}
			seqs[i] = out.Seq
		}()
	}
	wg.Wait()
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	if !equalSeqs(seqs, []uint64{11, 12, 13}) {
		t.Fatalf("sequences %v, want 11, 12, 13", seqs)
	}
	if got := f.counter(); got != 13 {
		t.Fatalf("sequence_counter = %d, want 13", got)
	}
}

// pausingStore holds the first TransactWrite of a chosen key until release
// is closed, to force ADR-004 scenario 4's interleaving.
type pausingStore struct {
	store.Store
	key      string
	reached  chan struct{}
	release  chan struct{}
	pausedMu sync.Mutex
	paused   bool
}

func (s *pausingStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	s.pausedMu.Lock()
	first := !s.paused && items[0].PutIdempotency != nil && items[0].PutIdempotency.Key == s.key
	if first {
		s.paused = true
	}
	s.pausedMu.Unlock()
	if first {
		close(s.reached)
		<-s.release
	}
	return s.Store.TransactWrite(ctx, items)
}

// Scenario 4: A allocates 11, B (same key) allocates 12 and commits first,
// A's transaction fails on the idempotency condition: both answer 12.
func TestScenario4IdempotencyRace(t *testing.T) {
	ps := &pausingStore{Store: memstore.New(), key: "uuid-xyz", reached: make(chan struct{}), release: make(chan struct{})}
	f := newFixture(t, Config{Store: ps})
	f.chatAt(10)
	var a Outcome
	var aErr error
	done := make(chan struct{})
	go func() {
		a, aErr = f.persist("uuid-xyz", FaultPlan{})
		close(done)
	}()
	<-ps.reached
	b, err := f.persist("uuid-xyz", FaultPlan{})
	if err != nil {
		t.Fatal(err)
	}
	close(ps.release)
	<-done
	if aErr != nil {
		t.Fatal(aErr)
	}
	if a.Allocated != 11 || b.Allocated != 12 {
		t.Fatalf("allocations A=%d B=%d, want 11 and 12", a.Allocated, b.Allocated)
	}
	if b.Seq != 12 || b.Dedup || a.Seq != 12 || !a.Dedup || a.MessageID != b.MessageID {
		t.Fatalf("A answered %+v, B answered %+v; want both 12, A deduplicated", a.Result, b.Result)
	}
	if got := f.counter(); got != 12 {
		t.Fatalf("sequence_counter = %d, want 12", got)
	}
	if got := f.messageSeqs(); !equalSeqs(got, []uint64{12}) {
		t.Fatalf("messages %v, want only 12 (11 is a gap)", got)
	}
}

// Scenario 5.
func TestScenario5FailureAfterAllocation(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(10)
	_, err := f.persist("uuid-1", FaultPlan{CrashAfterAllocate: true})
	var serr *Error
	if !errors.As(err, &serr) || serr.Code != CodeCrashAfterAllocate || serr.Definite {
		t.Fatalf("crash answered %v, want an unknown-outcome crash_after_allocate", err)
	}
	if got := f.counter(); got != 11 {
		t.Fatalf("after the crash sequence_counter = %d, want 11", got)
	}
	out, err := f.persist("uuid-1", FaultPlan{})
	if err != nil || out.Seq != 12 || out.Dedup {
		t.Fatalf("retry answered %+v, %v; want a new sequence 12", out.Result, err)
	}
	if got := f.messageSeqs(); !equalSeqs(got, []uint64{12}) {
		t.Fatalf("messages %v, want [12] with 11 a gap", got)
	}
}

// Scenario 6.
func TestScenario6NewChatFirstMessage(t *testing.T) {
	f := newFixture(t, Config{})
	if err := f.core.CreateChat(f.ctx, "A", []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	out, err := f.persist("uuid-1", FaultPlan{})
	if err != nil || out.Seq != 1 {
		t.Fatalf("first message got %+v, %v; want sequence 1", out.Result, err)
	}
}

// Scenario 7.
func TestScenario7CounterMissing(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(10)
	if err := f.store.DeleteCounter(f.ctx, "A"); err != nil {
		t.Fatal(err)
	}
	out, err := f.persist("uuid-1", FaultPlan{})
	var serr *Error
	if !errors.As(err, &serr) || serr.Code != CodeCounterMissing || !serr.Definite {
		t.Fatalf("got %v, want a definite counter_missing", err)
	}
	if out.Allocated != 0 {
		t.Fatalf("allocated %d with no counter", out.Allocated)
	}
	c, _ := f.store.GetCounter(f.ctx, "A", true)
	if !c.Missing {
		t.Fatalf("the counter was recreated (%d): ADR-004 forbids auto-creation", c.Value)
	}
	if got := f.messageSeqs(); len(got) != 0 {
		t.Fatalf("messages %v persisted without a counter", got)
	}
}
