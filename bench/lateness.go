package bench

import "time"

// Lateness is how far an open loop fell behind its rate, as k6 counts
// dropped iterations: a writer that cannot keep its schedule starts each
// operation late (latency is still measured from the intended start), and
// when the run's duration ends, the starts that were due and never made
// are unsent. Zero in a closed loop.
type Lateness struct {
	// Threshold: an operation that started more than this after its
	// intended start is late. One interval (the writer is a whole
	// operation behind), and at least MinLateThreshold, so a scheduler's
	// ordinary wake-up delay is not counted.
	Threshold time.Duration
	Started   int64         // operations started on the schedule
	Late      int64         // of them, started more than Threshold late
	MaxLag    time.Duration // the latest start, after its intended one
	Unsent    int64         // intended starts due before the run ended, never made
}

// MinLateThreshold is the least lag counted late.
const MinLateThreshold = time.Millisecond

// lateThreshold is Lateness.Threshold for a writer's interval.
func lateThreshold(interval time.Duration) time.Duration { return max(interval, MinLateThreshold) }

// start counts one operation started lag after its intended start.
func (l *Lateness) start(lag time.Duration) {
	l.Started++
	l.MaxLag = max(l.MaxLag, lag)
	if lag > l.Threshold {
		l.Late++
	}
}

// unsent counts the intended starts from first, every interval, before
// end that were not among the started ones.
func (l *Lateness) unsent(first, end int64, interval time.Duration, started int) {
	if end <= first || interval <= 0 {
		return
	}
	due := (end-first-1)/int64(interval) + 1
	l.Unsent += max(due-int64(started), 0)
}

func (l *Lateness) add(o Lateness) {
	l.Threshold = max(l.Threshold, o.Threshold)
	l.Started += o.Started
	l.Late += o.Late
	l.MaxLag = max(l.MaxLag, o.MaxLag)
	l.Unsent += o.Unsent
}

// FellBehind: the loop did not keep its rate. Any unsent start says so;
// late starts when more than one in a hundred was, so that a run on a
// busy machine with a few delayed wake-ups is not flagged.
func (l Lateness) FellBehind() bool {
	return l.Unsent > 0 || l.Late*100 > l.Started
}
