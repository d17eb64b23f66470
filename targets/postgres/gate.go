package postgres

import (
	"context"
	"errors"
	"time"

	tg "github.com/chatseq/chatseq/target"
)

// errDBDown is what a client sees while the database is down: the
// connection is refused before a statement is sent, so that statement had
// no effect.
var errDBDown = errors.New("database unavailable (scheduled db-down window): connection refused")

// gate applies the run's timed store faults to every database call the
// service makes: a store-latency window delays each call by its latency (a
// slow database); a store-stall window is the design's "Database Down"
// row: each call fails at once, as the API does when "no transaction can
// begin".
type gate struct {
	elapsed func() time.Duration
	windows []tg.TimedFault
}

func newGate(env tg.Env) *gate {
	g := &gate{elapsed: env.Elapsed}
	for _, f := range env.Timed {
		if f.Kind == tg.StoreLatency || f.Kind == tg.StoreStall {
			g.windows = append(g.windows, f)
		}
	}
	return g
}

// active returns the window the run is in, if any.
func (g *gate) active() (tg.TimedFault, bool) {
	if len(g.windows) == 0 || g.elapsed == nil {
		return tg.TimedFault{}, false
	}
	el := g.elapsed()
	for _, w := range g.windows {
		if el >= w.At && el < w.At+w.For {
			return w, true
		}
	}
	return tg.TimedFault{}, false
}

// enter is called before each statement: it waits out a latency window
// and refuses the call in a down window.
func (g *gate) enter(ctx context.Context) error {
	w, ok := g.active()
	if !ok {
		return nil
	}
	if w.Kind == tg.StoreStall {
		return errDBDown
	}
	t := time.NewTimer(w.Latency)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// down reports whether the database is down right now.
func (g *gate) down() bool {
	w, ok := g.active()
	return ok && w.Kind == tg.StoreStall
}
