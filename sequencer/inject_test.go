package sequencer

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/chatseq/chatseq/store"
)

// allocTracer records the allocations traced.
type allocTracer struct {
	systemClock
	mu    sync.Mutex
	seqs  []uint64
	chats []string
}

func (a *allocTracer) Allocated(chat string, seq uint64, _, _ int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.chats, a.seqs = append(a.chats, chat), append(a.seqs, seq)
}

// Each store error at each call of a persist, what the client sees, and
// what was written: fail when no message or record can have been written,
// info when the write may have happened, and the retry with the same key
// finds what did. A counter ADD that happened is traced: it is a gap the
// checker must explain.
func TestStoreErrorsAreFailOrInfoByWhetherAWriteMayHaveHappened(t *testing.T) {
	type want struct {
		definite bool
		code     string
		counter  uint64   // after the faulted attempt
		messages []uint64 // after it
		traced   []uint64 // allocations traced by it
		retrySeq uint64   // the retry's answer
		dedup    bool     // whether the retry is answered from the record
	}
	throttled, internal := store.CodeThrottled, store.CodeInternalError
	cases := []struct {
		fault StoreFault
		want  want
	}{
		{StoreFault{Kind: StoreThrottled, Call: CallLookup}, want{true, throttled, 0, nil, nil, 1, false}},
		{StoreFault{Kind: StoreThrottled, Call: CallMembership}, want{true, throttled, 0, nil, nil, 1, false}},
		{StoreFault{Kind: StoreThrottled, Call: CallAllocate}, want{true, throttled, 0, nil, nil, 1, false}},
		{StoreFault{Kind: StoreThrottled, Call: CallTransact}, want{true, throttled, 1, nil, []uint64{1}, 2, false}},
		{StoreFault{Kind: StoreInternalError, Call: CallLookup, Applied: true}, want{true, internal, 0, nil, nil, 1, false}},
		{StoreFault{Kind: StoreInternalError, Call: CallMembership}, want{true, internal, 0, nil, nil, 1, false}},
		{StoreFault{Kind: StoreInternalError, Call: CallAllocate}, want{false, internal, 0, nil, nil, 1, false}},
		{StoreFault{Kind: StoreInternalError, Call: CallAllocate, Applied: true}, want{false, internal, 1, nil, []uint64{1}, 2, false}},
		{StoreFault{Kind: StoreInternalError, Call: CallTransact}, want{false, internal, 1, nil, []uint64{1}, 2, false}},
		{StoreFault{Kind: StoreInternalError, Call: CallTransact, Applied: true}, want{false, internal, 1, []uint64{1}, []uint64{1}, 1, true}},
		{StoreFault{Kind: TxnCanceledOther, Call: CallTransact}, want{true, CodeTransactionCanceled, 1, nil, []uint64{1}, 2, false}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("kind%d/call%d/applied=%v", tc.fault.Kind, tc.fault.Call, tc.fault.Applied), func(t *testing.T) {
			f := newFixture(t, Config{})
			f.chatAt(0)
			tr := &allocTracer{}
			_, err := f.core.Persist(f.ctx, Request{Chat: "A", Key: "k", Sender: "alice", Content: "hi", Faults: FaultPlan{StoreError: tc.fault}}, tr)
			var serr *Error
			if !errors.As(err, &serr) {
				t.Fatalf("the faulted persist answered %v, want an error", err)
			}
			if serr.Definite != tc.want.definite || serr.Code != tc.want.code {
				t.Fatalf("got %s (definite %v), want %s (definite %v)", serr.Code, serr.Definite, tc.want.code, tc.want.definite)
			}
			if got := f.counter(); got != tc.want.counter {
				t.Errorf("counter %d, want %d", got, tc.want.counter)
			}
			if got := f.messageSeqs(); !equalSeqs(got, tc.want.messages) {
				t.Errorf("messages %v, want %v", got, tc.want.messages)
			}
			if !slices.Equal(tr.seqs, tc.want.traced) {
				t.Errorf("traced allocations %v, want %v", tr.seqs, tc.want.traced)
			}
			out, err := f.persist("k", FaultPlan{})
			if err != nil || out.Seq != tc.want.retrySeq || out.Dedup != tc.want.dedup {
				t.Fatalf("the retry answered %+v, %v; want seq %d, dedup %v", out.Result, err, tc.want.retrySeq, tc.want.dedup)
			}
		})
	}
}

// Under occ a transaction cancelled by a conflict is a lost round, retried;
// its counter read failing is a read: fail. An applied transaction behind
// a 500 allocated, and is traced.
func TestStoreErrorsUnderOCC(t *testing.T) {
	f := newFixture(t, Config{Strategy: Optimistic})
	f.chatAt(0)
	out, err := f.persist("a", FaultPlan{StoreError: StoreFault{Kind: TxnCanceledOther, Call: CallTransact}})
	if err != nil || out.Seq != 1 || out.Attempts != 2 {
		t.Fatalf("a conflict-cancelled occ round answered %+v (attempts %d), %v; want seq 1 on the second round", out.Result, out.Attempts, err)
	}
	_, err = f.persist("b", FaultPlan{StoreError: StoreFault{Kind: StoreInternalError, Call: CallAllocate}})
	var serr *Error
	if !errors.As(err, &serr) || !serr.Definite || serr.Code != store.CodeInternalError {
		t.Fatalf("occ's counter read failing answered %v, want a definite store_internal_error", err)
	}
	tr := &allocTracer{}
	_, err = f.core.Persist(f.ctx, Request{Chat: "A", Key: "c", Sender: "alice", Faults: FaultPlan{StoreError: StoreFault{Kind: StoreInternalError, Call: CallTransact, Applied: true}}}, tr)
	if !errors.As(err, &serr) || serr.Definite {
		t.Fatalf("occ's applied transaction behind a 500 answered %v, want unknown", err)
	}
	if f.counter() != 2 || !slices.Equal(tr.seqs, []uint64{2}) {
		t.Fatalf("counter %d and traced %v, want 2 and [2]", f.counter(), tr.seqs)
	}
}

// ADR-004 §10's first row: a crash before step 3 writes nothing and
// allocates nothing; the client, whose connection dropped, sees info; its
// retry allocates 1 (no gap).
func TestCrashBeforeAllocateWritesNothing(t *testing.T) {
	for _, strategy := range []Strategy{TwoPhase, Optimistic} {
		f := newFixture(t, Config{Strategy: strategy})
		f.chatAt(0)
		tr := &allocTracer{}
		_, err := f.core.Persist(f.ctx, Request{Chat: "A", Key: "k", Sender: "alice", Faults: FaultPlan{CrashBeforeAllocate: true}}, tr)
		var serr *Error
		if !errors.As(err, &serr) || serr.Definite || serr.Code != CodeCrashBeforeAllocate {
			t.Fatalf("%s: got %v, want an unknown-outcome crash_before_allocate", strategy, err)
		}
		if f.counter() != 0 || len(f.messageSeqs()) != 0 || len(tr.seqs) != 0 {
			t.Fatalf("%s: counter %d, messages %v, traced %v; want nothing", strategy, f.counter(), f.messageSeqs(), tr.seqs)
		}
		out, err := f.persist("k", FaultPlan{})
		if err != nil || out.Seq != 1 || out.Dedup {
			t.Fatalf("%s: retry got %+v, %v; want a new sequence 1", strategy, out.Result, err)
		}
	}
}
