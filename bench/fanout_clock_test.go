package bench

import (
	"hash/maphash"
	"testing"
	"time"
)

// Fan-out is timed on chatseq's clock where it knows the message's send:
// a service clock 300 ms ahead, created_at stamped 300 ms late, made 300 ms
// of real fan-out read as ~10 ms, and fan_out.p99 < 100ms passed (an
// outside tester's). A created_at inside the send's window is kept.
func TestFanOutIsTimedFromTheSendWhereCreatedAtFallsOutside(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	base := time.Now()
	for _, c := range []struct {
		name         string
		createdAt    time.Time // as the service stamps it
		receiptAfter time.Duration
		wantLatency  time.Duration // from the window's nearer end, or createdAt inside it
		wantOutside  int64
	}{
		{"clock ahead", base.Add(ms(310)), ms(310), ms(300), 2},
		{"clock behind", base.Add(-ms(500)), ms(310), ms(310), 2},
		{"honest", base.Add(ms(5)), ms(310), ms(305), 0},
		{"no created_at", time.Time{}, ms(310), ms(300), 0},
	} {
		tally := newReceiverTally(2, time.Second, nil)
		tally.acked("c", 1, base, base.Add(ms(10))) // sent at 0, ok at 10 ms
		now := base.Add(c.receiptAfter)
		tally.firstReceipt("c", 1, c.createdAt, now)
		tally.firstReceipt("c", 1, c.createdAt, now)
		fan, full := tally.histograms()
		tolerance := float64(ms(1))
		if got := float64(fan.Max()); got < float64(c.wantLatency)-tolerance || got > float64(c.wantLatency)+tolerance {
			t.Errorf("%s: fan-out %s, want %s", c.name, time.Duration(fan.Max()), c.wantLatency)
		}
		if full.TotalCount() != 1 {
			t.Errorf("%s: %d fully visible, want 1", c.name, full.TotalCount())
		}
		if n := tally.createdOutside.Load(); n != c.wantOutside {
			t.Errorf("%s: created_outside %d, want %d", c.name, n, c.wantOutside)
		}
		if n := tally.createdAhead.Load(); n != 0 {
			t.Errorf("%s: created_ahead %d, want 0 (the receipt came after the ok)", c.name, n)
		}
		for i := range tally.shards {
			if n := len(tally.shards[i].sent["c"]); n != 0 {
				t.Errorf("%s: a fully visible message keeps its send window", c.name)
			}
		}
	}
}

// A chat's send windows are bounded: a message fully visible before its
// ok came (no receipt left to time) keeps its window only until the
// chat's sequence is sendWindowsKept past it.
func TestSendWindowsAreBounded(t *testing.T) {
	tally := newReceiverTally(1, time.Second, nil)
	now := time.Now()
	for seq := uint64(1); seq <= 3*sendWindowsKept; seq++ {
		tally.acked("c", seq, now, now)
	}
	n := 0
	for i := range tally.shards {
		n += len(tally.shards[i].sent["c"])
	}
	if n > sendWindowsKept {
		t.Fatalf("%d send windows kept for one chat, want at most %d", n, sendWindowsKept)
	}
}

// A chat's send windows stay bounded whatever its sequences: one whose
// message was fully visible before its ok, in a chat stepping its
// sequence by 3 (gaps allowed), was kept for the whole run (only the
// window exactly sendWindowsKept back was dropped at each ack).
func TestSendWindowsStayBoundedOverGaps(t *testing.T) {
	tally := newReceiverTally(1, time.Second, nil)
	now := time.Now()
	for i := range uint64(100_000) {
		seq := 3*i + 1
		tally.firstReceipt("c", seq, now, now) // fully visible before its ok
		tally.acked("c", seq, now, now)
	}
	sh := &tally.shards[maphash.String(visibilitySeed, "c")%histShards]
	if n := len(sh.sent["c"]); n > 2*sendWindowsKept+1 {
		t.Fatalf("%d send windows kept after 100,000 messages, want at most %d", n, 2*sendWindowsKept+1)
	}
}
