package sequencer

import (
	"sort"
	"strconv"
	"sync"
	"testing"
)

func TestOptimisticAllocationUnderContention(t *testing.T) {
	f := newFixture(t, Config{Strategy: Optimistic})
	f.chatAt(0)
	const writers = 16
	var wg sync.WaitGroup
	seqs := make([]uint64, writers)
	attempts := make([]int, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := f.persist("k"+strconv.Itoa(i), FaultPlan{})
			if err != nil {
				t.Error(err)
			}
			seqs[i], attempts[i] = out.Seq, out.Attempts
		}()
	}
	wg.Wait()
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("optimistic sequences %v, want 1..%d without gaps", seqs, writers)
		}
	}
	if f.counter() != writers {
		t.Fatalf("counter %d, want %d", f.counter(), writers)
	}
	for _, a := range attempts {
		if a < 1 {
			t.Fatalf("attempts %v: every persist makes at least one", attempts)
		}
	}
}

func TestOptimisticRetryIsAnsweredFromTheRecord(t *testing.T) {
	f := newFixture(t, Config{Strategy: Optimistic})
	f.chatAt(5)
	first, err := f.persist("k", FaultPlan{})
	if err != nil || first.Seq != 6 || first.Attempts != 1 {
		t.Fatalf("first persist %+v, %v; want 6 in one attempt", first, err)
	}
	again, err := f.persist("k", FaultPlan{})
	if err != nil || again.Seq != 6 || !again.Dedup {
		t.Fatalf("retry %+v, %v; want cached 6", again.Result, err)
	}
}

func TestUnknownStrategyRejected(t *testing.T) {
	f := newFixture(t, Config{})
	if _, err := New(Config{Store: f.store, Strategy: "pessimistic"}); err == nil {
		t.Fatal("an unknown strategy was accepted")
	}
}
