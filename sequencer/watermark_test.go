package sequencer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

// heldStore holds the commit of the message at sequence hold until
// release closes, so a test can make 12 commit before 11.
type heldStore struct {
	store.Store
	hold    uint64
	held    chan struct{} // closed once the held commit is waiting
	release chan struct{}
	once    sync.Once
}

func (s *heldStore) TransactWrite(ctx context.Context, items []store.TxItem) error {
	for _, it := range items {
		if it.PutMessage != nil && it.PutMessage.Seq == s.hold {
			s.once.Do(func() { close(s.held) })
			<-s.release
		}
	}
	return s.Store.TransactWrite(ctx, items)
}

// lateCommit starts a persist that gets sequence 11 and holds its commit,
// then a second that gets 12 and commits. It returns the second's answer
// channel, and a release for the first.
func lateCommitCore(t *testing.T, variant Variant) (f *fixture, first, second chan error, release func()) {
	t.Helper()
	hs := &heldStore{Store: memstore.New(), hold: 11, held: make(chan struct{}), release: make(chan struct{})}
	f = newFixture(t, Config{Store: hs, Variant: variant})
	f.chatAt(10)
	first, second = make(chan error, 1), make(chan error, 1)
	go func() { _, err := f.persist("k11", FaultPlan{}); first <- err }()
	<-hs.held
	go func() { _, err := f.persist("k12", FaultPlan{}); second <- err }()
	// 12's commit lands while 11's is held.
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(f.messageSeqs(), 12) {
		if time.Now().After(deadline) {
			t.Fatal("sequence 12 never committed")
		}
		time.Sleep(time.Millisecond)
	}
	return f, first, second, sync.OnceFunc(func() { close(hs.release) })
}

func syncSeqs(t *testing.T, f *fixture, after uint64) []uint64 {
	t.Helper()
	msgs, err := f.core.Sync(f.ctx, "A", after, 100)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, m := range msgs {
		seqs = append(seqs, m.Seq)
	}
	return seqs
}

// As written, a sync returns 12 while 11 is still committing: a reader
// whose cursor moves to 12 never asks for 11.
func TestAsWrittenSyncPassesACommitInFlight(t *testing.T) {
	f, first, second, release := lateCommitCore(t, Correct)
	defer release()
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if got := syncSeqs(t, f, 10); !slices.Equal(got, []uint64{12}) {
		t.Fatalf("sync after 10 = %v, want [12] (11 still committing)", got)
	}
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if got := syncSeqs(t, f, 12); len(got) != 0 {
		t.Fatalf("the reader's next sync after 12 = %v: 11 is lost to it", got)
	}
}

// The watermark: while 11 commits, a sync serves nothing at or above 11,
// and 12's ACK waits; once 11 has committed both are served, in order.
func TestSyncWatermarkServesBelowTheCommitInFlight(t *testing.T) {
	f, first, second, release := lateCommitCore(t, SyncWatermark)
	defer release()
	if got := syncSeqs(t, f, 10); len(got) != 0 {
		t.Fatalf("sync after 10 = %v while 11 commits, want nothing", got)
	}
	select {
	case err := <-second:
		t.Fatalf("12 was acknowledged (%v) while 11 was committing: a sync after that ACK would not return it", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if got := syncSeqs(t, f, 10); !slices.Equal(got, []uint64{11, 12}) {
		t.Fatalf("sync after 10 = %v, want [11 12]", got)
	}
}

// A sequence whose transaction never commits (a crash after step 3, a lost
// idempotency race) stops holding the watermark once its call ends.
func TestSyncWatermarkReleasesAbandonedSequences(t *testing.T) {
	f := newFixture(t, Config{Variant: SyncWatermark})
	f.chatAt(0)
	if _, err := f.persist("k1", FaultPlan{CrashAfterAllocate: true}); err == nil {
		t.Fatal("the crash after allocate did not fail")
	}
	if _, err := f.persist("k1", FaultPlan{CrashInPersist: true}); err == nil {
		t.Fatal("the crash in persist did not fail")
	}
	out, err := f.persist("k1", FaultPlan{})
	if err != nil || out.Seq != 3 {
		t.Fatalf("retry: %+v, %v", out, err)
	}
	if got := syncSeqs(t, f, 0); !slices.Equal(got, []uint64{3}) {
		t.Fatalf("sync = %v, want [3]: gaps 1 and 2 must not hold it", got)
	}
	// A chat the core has not seen starts at its counter.
	if err := f.core.CreateChat(f.ctx, "B", []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.PutCounter(f.ctx, store.Counter{Chat: "B", Value: 7}, store.Unconditional); err != nil {
		t.Fatal(err)
	}
	out, err = f.core.Persist(f.ctx, Request{Chat: "B", Key: "b", Sender: "alice", Content: "b"}, nil)
	if err != nil || out.Seq != 8 {
		t.Fatalf("first persist on B: %+v, %v", out, err)
	}
}

func TestChatMarkArithmetic(t *testing.T) {
	m := &chatMark{seen: 10}
	m.changed.L = &m.mu
	f1 := m.begin()
	if w := m.watermark(); f1 != 10 || w != 11 {
		t.Fatalf("a call under way from 10: floor %d, mark %d, want 10, 11", f1, w)
	}
	f2 := m.begin()
	m.allocated(f2, 12, true) // the second call's answer came first
	if w := m.watermark(); w != 11 {
		t.Fatalf("12 in flight, a call from 10 under way: mark %d, want 11", w)
	}
	m.allocated(f1, 11, true)
	m.resolve(12)
	if w := m.watermark(); w != 11 {
		t.Fatalf("11 in flight: mark %d, want 11", w)
	}
	done := make(chan struct{})
	go func() { m.waitPast(12); close(done) }()
	select {
	case <-done:
		t.Fatal("waitPast(12) returned while 11 was in flight")
	case <-time.After(20 * time.Millisecond):
	}
	m.resolve(11)
	<-done
	if w := m.watermark(); w != 13 {
		t.Fatalf("nothing in flight after 12: mark %d, want 13", w)
	}
	f3 := m.begin()
	m.allocated(f3, 0, false) // a failed call leaves nothing in flight
	if w := m.watermark(); w != 13 || len(m.floors) != 0 {
		t.Fatalf("after a failed call: mark %d, floors %v", w, m.floors)
	}
}

// Under concurrency (run with -race): writers, twins racing on one key,
// crashes, and syncs all at once; no sync ever returns a sequence above
// one that commits later, and every acknowledged message is below the
// watermark by the time its ACK returns.
func TestSyncWatermarkUnderConcurrency(t *testing.T) {
	f := newFixture(t, Config{Variant: SyncWatermark})
	f.chatAt(0)
	const writers, sends = 8, 200
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var syncErr error
	var readerDone sync.WaitGroup
	readerDone.Add(1)
	go func() {
		defer readerDone.Done()
		var cursor uint64
		var got []uint64
		for {
			select {
			case <-stop:
				// Everything has ended: catch up page by page; the
				// reader's view must be the table.
				for {
					seqs := syncSeqs(t, f, cursor)
					if len(seqs) == 0 {
						break
					}
					got = append(got, seqs...)
					cursor = seqs[len(seqs)-1]
				}
				if want := f.messageSeqs(); !slices.Equal(got, want) {
					syncErr = fmt.Errorf("the reader received %d messages, the table holds %d: a cursor passed a late commit", len(got), len(want))
				}
				return
			default:
			}
			seqs := syncSeqs(t, f, cursor)
			got = append(got, seqs...)
			if n := len(seqs); n > 0 {
				cursor = seqs[n-1]
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range sends {
				key := fmt.Sprintf("w%d-%d", w, i)
				faults := FaultPlan{CrashAfterAllocate: i%17 == 0, CrashInPersist: i%23 == 0, CrashInPersistCommitted: i%2 == 0}
				out, err := f.persist(key, faults)
				if err != nil {
					out, err = f.persist(key, FaultPlan{})
				}
				if err != nil {
					t.Errorf("%s: %v", key, err)
					return
				}
				// Read-your-writes: the acknowledged message is served.
				if seqs := syncSeqs(t, f, out.Seq-1); len(seqs) == 0 || seqs[0] != out.Seq {
					t.Errorf("%s acknowledged as %d, but a sync after %d returned %v", key, out.Seq, out.Seq-1, seqs)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readerDone.Wait()
	if syncErr != nil {
		t.Fatal(syncErr)
	}
}

// Option B has no allocation apart from its commit: the watermark would
// wait for nothing, so the combination is refused rather than run as a
// plain optimistic core under the watermark's name.
func TestSyncWatermarkRefusesOptimisticAllocation(t *testing.T) {
	_, err := New(Config{Store: memstore.New(), Variant: SyncWatermark, Strategy: Optimistic})
	if err == nil {
		t.Fatal("sync-watermark with strategy occ was accepted")
	}
	if v, ok := ParseVariant("sync-watermark"); !ok || v != SyncWatermark {
		t.Fatalf("ParseVariant(sync-watermark) = %q, %v", v, ok)
	}
}
