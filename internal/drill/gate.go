package drill

import (
	"context"
	"sync"
)

// gate lets the drill stop new operations and wait for those in flight, the
// runbook's "no active writes". Every operation runs between enter and exit.
type gate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	paused bool
	active int
}

func newGate() *gate {
	g := &gate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// enter blocks while the gate is paused, then counts one operation in
// flight. It returns false, counting nothing, if stop closes first.
func (g *gate) enter(stop <-chan struct{}) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.paused {
		select {
		case <-stop:
			return false
		default:
		}
		g.cond.Wait()
	}
	select {
	case <-stop:
		return false
	default:
	}
	g.active++
	return true
}

// enterAlways counts an operation in flight even while paused: the drill's
// own staged operations, which a pause must still wait for.
func (g *gate) enterAlways() {
	g.mu.Lock()
	g.active++
	g.mu.Unlock()
}

func (g *gate) exit() {
	g.mu.Lock()
	g.active--
	g.cond.Broadcast()
	g.mu.Unlock()
}

// hold stops new operations without waiting for those in flight.
func (g *gate) hold() {
	g.mu.Lock()
	g.paused = true
	g.mu.Unlock()
}

// pause stops new operations and waits until none is in flight, or ctx
// ends (then the gate stays paused and the error is returned).
func (g *gate) pause(ctx context.Context) error {
	g.hold()
	// sync.Cond cannot wait on a context: wake the waiter when ctx ends.
	stopWake := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stopWake()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.active > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.cond.Wait()
	}
	return nil
}

func (g *gate) resume() {
	g.mu.Lock()
	g.paused = false
	g.cond.Broadcast()
	g.mu.Unlock()
}

// wake releases writers blocked in enter so they can see stop.
func (g *gate) wake() {
	g.mu.Lock()
	g.cond.Broadcast()
	g.mu.Unlock()
}
