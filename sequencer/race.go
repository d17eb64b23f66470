package sequencer

import (
	"context"
	"sync"
	"time"
)

// RaceMaxWait bounds how long a racing send waits at the rendezvous for
// its twin: a twin that is not scheduled in that time (a machine under
// load) lets the other go on alone, so a race can fail to overlap but a
// send never hangs.
const RaceMaxWait = time.Second

// Race makes the sends of one key that a client and its twin make at once
// (ADR-004 Appendix D scenario 4) overlap for certain: each arrives after
// its idempotency look-up and waits there until every other party has
// looked up too, or has ended without looking up. So all of them miss the
// record none has written yet and race to the write, whatever the
// scheduler does: the race the correct design must settle (one write wins
// the idempotency condition) and a broken one loses (an unconditional put
// writes twice).
type Race struct {
	mu      sync.Mutex
	pending int
	all     chan struct{} // closed once every party arrived or left
}

// RaceParty is one send's place in a Race; nil is no race.
type RaceParty struct {
	race *Race
	once sync.Once
}

// NewRace returns one party per send of the race.
func NewRace(parties int) []*RaceParty {
	r := &Race{pending: parties, all: make(chan struct{})}
	ps := make([]*RaceParty, parties)
	for i := range ps {
		ps[i] = &RaceParty{race: r}
	}
	return ps
}

// mark counts the party as arrived or left, once; false if it already was.
func (p *RaceParty) mark() bool {
	marked := false
	p.once.Do(func() {
		marked = true
		r := p.race
		r.mu.Lock()
		r.pending--
		if r.pending == 0 {
			close(r.all)
		}
		r.mu.Unlock()
	})
	return marked
}

// Arrive is called once the send has done its idempotency look-up: it
// waits until every other party has too (or left), at most RaceMaxWait.
// Only a party's first Arrive waits.
func (p *RaceParty) Arrive(ctx context.Context) {
	if p == nil {
		return
	}
	if !p.mark() {
		return
	}
	t := time.NewTimer(RaceMaxWait)
	defer t.Stop()
	select {
	case <-p.race.all:
	case <-ctx.Done():
	case <-t.C:
	}
}

// Leave is called when the send ends, on every path: a party that ended
// before its look-up (a crash, a store error) must not hold the others.
func (p *RaceParty) Leave() {
	if p != nil {
		p.mark()
	}
}
