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

// start counts one operation started lag after its intended start, late
// past threshold (its writer's interval there). Threshold keeps the
// largest: under --stages the interval changes with the rate.
func (l *Lateness) start(lag, threshold time.Duration) {
	l.Started++
	l.Threshold = max(l.Threshold, threshold)
	l.MaxLag = max(l.MaxLag, lag)
	if lag > threshold {
		l.Late++
	}
}

// pace is an open loop's schedule of one writer's intended starts.
type pace interface {
	// intended is the writer's op-th start on the recorder's clock, and
	// the lag past which it is late; false: none before the run ends.
	intended(op int) (at int64, threshold time.Duration, ok bool)
	// due counts the writer's starts before until.
	due(until int64) int64
}

// steadyPace is --rate's: a start every interval from first (the run's
// start plus the writer's phase).
type steadyPace struct {
	first    int64
	interval time.Duration
}

func (p steadyPace) intended(op int) (int64, time.Duration, bool) {
	return p.first + int64(op)*int64(p.interval), lateThreshold(p.interval), true
}

func (p steadyPace) due(until int64) int64 {
	if until <= p.first {
		return 0
	}
	return (until-p.first-1)/int64(p.interval) + 1
}

// rampedPace is --stages': writer w of n takes the run's starts w, w+n, …
type rampedPace struct {
	ramp  *Ramp
	start int64 // the run's start
	w, n  int
}

func (p rampedPace) intended(op int) (int64, time.Duration, bool) {
	k := int64(p.w) + int64(op)*int64(p.n)
	at, ok := p.ramp.Start(k)
	if !ok {
		return 0, 0, false
	}
	next, ok := p.ramp.Start(k + int64(p.n))
	if !ok {
		next = p.ramp.Duration()
	}
	return p.start + int64(at), lateThreshold(next - at), true
}

func (p rampedPace) due(until int64) int64 {
	return p.ramp.DueFor(p.w, p.n, time.Duration(until-p.start))
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
