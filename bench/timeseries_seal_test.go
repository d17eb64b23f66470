package bench

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/chatseq/chatseq/history"
)

// A long run's intervals, sealed (their histograms encoded) while the
// progress line moves past them, come out of the run exactly as they
// would have held open: every step's histogram encodes to the same bytes
// (the same buckets and counts), with the same counts, late updates into
// sealed intervals included. Without sealing nothing is encoded while the
// run goes, and the test fails.
func TestSealedIntervalsComeOutAsHeld(t *testing.T) {
	var now int64
	clock := func() int64 { return now }
	sealing, held := newLatencies(), newLatencies()
	sealing.begin(clock, IntervalLength)
	held.begin(clock, IntervalLength)
	rng := rand.New(rand.NewPCG(30, 3))
	sealedDuring := 0
	run := 90 * time.Second
	if raceEnabled {
		run = 20 * time.Second
	}
	for now < int64(run) {
		now += int64(time.Duration(rng.IntN(2000)) * time.Microsecond)
		var values [stepCount]int64
		for step := range values {
			if rng.IntN(4) > 0 {
				values[step] = 1 + rng.Int64N(int64(50*time.Millisecond))
			}
		}
		at := now
		if rng.IntN(500) == 0 { // an update read on the clock long before
			at = max(0, now-int64(5*time.Second))
		}
		op := opCounts{kind: history.KindOK}
		w := rng.IntN(histShards)
		sealing.shard(w).record(at, values, op)
		held.shard(w).record(at, values, op)
		if rng.IntN(100) == 0 {
			sealing.progress(now)
			s := sealing.series
			s.mu.Lock()
			for _, d := range s.intervals {
				if d.hists[0] == nil {
					sealedDuring++
				}
			}
			s.mu.Unlock()
		}
	}
	if sealedDuring == 0 {
		t.Fatal("no interval was sealed while the run went")
	}
	sealing.totals()
	held.totals()
	got, _ := sealing.intervals(run)
	want, _ := held.intervals(run)
	if len(got) != len(want) {
		t.Fatalf("%d intervals sealed, %d held", len(got), len(want))
	}
	for i := range want {
		if got[i].Counts.Operations != want[i].Counts.Operations || got[i].Start != want[i].Start || got[i].Length != want[i].Length {
			t.Fatalf("interval %d: %+v sealed, %+v held", i, got[i].Counts, want[i].Counts)
		}
		for _, step := range Steps() {
			g, err := got[i].Latency[step].Encode()
			if err != nil {
				t.Fatal(err)
			}
			w, _ := want[i].Latency[step].Encode()
			if !bytes.Equal(g, w) || got[i].Latency[step].TotalCount() != want[i].Latency[step].TotalCount() {
				t.Fatalf("interval %d, %s: %d values sealed, %d held, encodings differ", i, step, got[i].Latency[step].TotalCount(), want[i].Latency[step].TotalCount())
			}
		}
	}
}
