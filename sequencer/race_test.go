package sequencer

import (
	"context"
	"sync"
	"testing"
	"time"
)

// raceTwins sends key "k" twice at once, each with its party of one race,
// and returns both outcomes.
func raceTwins(t *testing.T, f *fixture) [2]Outcome {
	t.Helper()
	parties := NewRace(2)
	var outs [2]Outcome
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := f.persist("k", FaultPlan{Race: parties[i]})
			if err != nil {
				t.Errorf("twin %d: %v", i, err)
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	return outs
}

// Twins of one key always overlap: both look up before either writes, so
// each allocates and the idempotency condition settles the race (ADR-004
// scenario 4), on every try rather than when the scheduler happens to
// interleave them.
func TestRacedTwinsBothMissTheRecord(t *testing.T) {
	for i := 0; i < 50; i++ {
		f := newFixture(t, Config{})
		f.chatAt(0)
		outs := raceTwins(t, f)
		if outs[0].Allocated == 0 || outs[1].Allocated == 0 {
			t.Fatalf("try %d: a twin answered from the record without allocating: %+v", i, outs)
		}
		if outs[0].Seq != outs[1].Seq || outs[0].MessageID != outs[1].MessageID || outs[0].Dedup == outs[1].Dedup {
			t.Fatalf("try %d: twins answered %+v and %+v, want one message, one of them deduplicated", i, outs[0].Result, outs[1].Result)
		}
		if got := f.messageSeqs(); len(got) != 1 {
			t.Fatalf("try %d: messages %v, want one", i, got)
		}
	}
}

// The race is what exposes an unconditional idempotency put: both twins
// write, two messages for one key.
func TestRacedTwinsExposeUnconditionalIdempotency(t *testing.T) {
	for i := 0; i < 20; i++ {
		f := newFixture(t, Config{Variant: UnconditionalIdempotency})
		f.chatAt(0)
		outs := raceTwins(t, f)
		if outs[0].Seq == outs[1].Seq {
			t.Fatalf("try %d: both twins answered seq %d: the broken put was not exposed", i, outs[0].Seq)
		}
		if got := f.messageSeqs(); len(got) != 2 {
			t.Fatalf("try %d: messages %v, want two for one key", i, got)
		}
	}
}

// A party that ends without looking up (a crash, a store error) releases
// the other at once; a party's second Arrive does not wait; nil is no race.
func TestRaceLeaveReleasesAndNilIsNoRace(t *testing.T) {
	parties := NewRace(2)
	released := make(chan struct{})
	go func() {
		parties[0].Arrive(context.Background())
		close(released)
	}()
	select {
	case <-released:
		t.Fatal("Arrive returned before the other party arrived or left")
	case <-time.After(20 * time.Millisecond):
	}
	parties[1].Leave()
	select {
	case <-released:
	case <-time.After(RaceMaxWait / 2):
		t.Fatal("Leave did not release the waiting party")
	}
	start := time.Now()
	parties[0].Arrive(context.Background()) // already arrived
	var none *RaceParty
	none.Arrive(context.Background())
	none.Leave()
	if d := time.Since(start); d > RaceMaxWait/2 {
		t.Fatalf("a second Arrive or a nil party waited %s", d)
	}
}
