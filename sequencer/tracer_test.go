package sequencer

import (
	"testing"
	"time"
)

type recordingTracer struct{ systemClock }

func TestOrWallClockKeepsAGivenTracerAndClocksANilOne(t *testing.T) {
	given := &recordingTracer{}
	if got := OrWallClock(given); got != Tracer(given) {
		t.Fatalf("a given tracer was replaced by %T", got)
	}
	clock := OrWallClock(nil)
	if clock == nil {
		t.Fatal("a nil tracer stayed nil")
	}
	before := clock.Now()
	time.Sleep(time.Millisecond)
	if after := clock.Now(); after-before < int64(time.Millisecond) {
		t.Fatalf("the wall clock moved %d ns across a 1 ms sleep", after-before)
	}
}
