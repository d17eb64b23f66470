package checker

import (
	"slices"
	"testing"
	"time"

	"github.com/chatseq/chatseq/history"
)

// Stats give the highest acknowledged sequence (a sync's sequences do not
// count) and, per interval, the allocations and the gaps among them: an
// allocation whose sequence no final message holds, on a chat whose
// counter survived.
func TestStatsMaxAckedSeqAndIntervalGaps(t *testing.T) {
	b := newHB()
	b.send(1, "A", "k1", 1)      // allocation at time 20
	b.invoke(2, "A", "k2")       // 40
	b.alloc(2, "A", 2)           // 50: a gap
	b.info(2, "A", "k2", "boom") // 60
	b.send(1, "B", "k3", 7)      // B's counter goes missing
	b.syncInvoke(3, "A", 0, 10)
	b.syncOK(3, "A", 1)
	b.counter("A", 2)
	b.counterMissing("B")
	b.msg("A", 1, "m-k1", "k1")
	r := Check(&b.h, Options{Interval: 50 * time.Nanosecond})
	if r.Stats.MaxAckedSeq != 7 {
		t.Fatalf("max acked seq %d, want 7", r.Stats.MaxAckedSeq)
	}
	var times []int64
	for _, e := range b.h.Events {
		if e.Kind == history.KindTrace {
			times = append(times, e.Time)
		}
	}
	if !slices.Equal(times, []int64{20, 50, 80}) {
		t.Fatalf("trace times %v: the test's buckets assume 20, 50, 80", times)
	}
	if !slices.Equal(r.Stats.IntervalAllocations, []int64{1, 2}) || !slices.Equal(r.Stats.IntervalGaps, []int64{0, 1}) {
		t.Fatalf("per interval: allocations %v gaps %v, want [1 2] and [0 1]", r.Stats.IntervalAllocations, r.Stats.IntervalGaps)
	}
	if r := Check(&b.h, Options{}); r.Stats.IntervalAllocations != nil {
		t.Fatal("intervals counted without Options.Interval")
	}
}
