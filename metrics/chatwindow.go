package metrics

import "time"

// chatWindow turns a run's running message counts per chat into §12's
// messages_per_chat_per_minute for its hottest chat, over the last minute
// (since the run began while it is younger). It keeps a copy of the counts
// about every second of the last minute, taken when scraped.
type chatWindow struct {
	snaps []chatSnap // oldest first; the first is the window's start
}

type chatSnap struct {
	at     time.Time
	counts []int64
}

const (
	chatWindowSpan = time.Minute
	chatSnapEvery  = time.Second
)

// start puts the window's first snapshot, every count 0, at t.
func (w *chatWindow) start(t time.Time, chats int) {
	w.snaps = []chatSnap{{at: t, counts: make([]int64, chats)}}
}

// perMinute is the most new messages one chat got per minute between the
// window's start and now, when the counts are counts.
func (w *chatWindow) perMinute(now time.Time, counts []int64) float64 {
	cut := now.Add(-chatWindowSpan)
	for len(w.snaps) >= 2 && !w.snaps[1].at.After(cut) {
		w.snaps = w.snaps[1:]
	}
	base := w.snaps[0]
	var most int64
	for c, n := range counts {
		if c < len(base.counts) {
			n -= base.counts[c]
		}
		most = max(most, n)
	}
	if last := w.snaps[len(w.snaps)-1]; now.Sub(last.at) >= chatSnapEvery {
		w.snaps = append(w.snaps, chatSnap{at: now, counts: append([]int64(nil), counts...)})
	}
	elapsed := now.Sub(base.at)
	if elapsed <= 0 {
		return 0
	}
	return float64(most) * float64(time.Minute) / float64(elapsed)
}
