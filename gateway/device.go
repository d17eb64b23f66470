package gateway

import (
	"context"
	"sync"
	"sync/atomic"
)

// Device is one subscribed device: a bounded queue of the messages routed
// to it, read with Next. A transport reads it in one goroutine and calls
// Close when the device goes away.
type Device struct {
	g      *Gateway
	user   string
	notify chan struct{} // holds a token while the queue may be non-empty
	done   chan struct{} // closed when the device ends

	mu    sync.Mutex
	queue []*Message // queue[head:] wait
	head  int
	// handed counts the messages Next has returned.
	handed uint64
	err    error // why the device ended; nil while it runs
	// held is HoldLast's: each chat's newest message, not yet queued.
	held map[string]*Message
	// lateStart is LateStart's: nothing is queued before this time (Unix
	// nanoseconds), set by the first message routed to the device; 0
	// until then.
	lateStart atomic.Int64
}

// User is the user the device subscribed as.
func (d *Device) User() string { return d.user }

// Done is closed when the device ends (overflow, Close, the gateway's
// Close); Err then says why.
func (d *Device) Done() <-chan struct{} { return d.done }

// Err is why the device ended, nil while it runs.
func (d *Device) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// Queued is how many messages wait in the device's queue.
func (d *Device) Queued() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.queue) - d.head
}

// Backlog is, at one moment, how many messages wait in the device's
// queue and how many Next has returned: once the gateway has been handed
// everything, a reader that took handed messages has had all it will be
// given.
func (d *Device) Backlog() (queued int, handed uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.queue) - d.head, d.handed
}

// Next appends to dst the messages waiting, oldest first and at most
// Config.MaxBatch, waiting for one when none is. It returns the device's
// end (ErrOverflow, ErrClosed) once it has ended, or ctx's error.
func (d *Device) Next(ctx context.Context, dst []*Message) ([]*Message, error) {
	for {
		d.mu.Lock()
		if d.err != nil {
			err := d.err
			d.mu.Unlock()
			return dst, err
		}
		if n := len(d.queue) - d.head; n > 0 {
			take := min(n, d.g.cfg.MaxBatch)
			taken := d.queue[d.head : d.head+take]
			dst = append(dst, taken...)
			clear(taken) // the queue keeps no message a device has taken
			d.head += take
			d.handed += uint64(take)
			if d.head == len(d.queue) {
				d.queue, d.head = d.queue[:0], 0
			} else {
				d.signal() // more wait than one batch
			}
			d.mu.Unlock()
			d.g.stats.deliveries.Add(uint64(take))
			return dst, nil
		}
		d.mu.Unlock()
		select {
		case <-d.notify:
		case <-d.done:
		case <-ctx.Done():
			return dst, ctx.Err()
		}
	}
}

// Close unsubscribes the device; Next then returns ErrClosed.
func (d *Device) Close() {
	d.end(ErrClosed)
	d.g.unsubscribe(d)
}

// push queues m, or ends the device with ErrOverflow when its queue is
// full. It runs under the gateway's read lock, so it never takes the
// gateway's lock itself.
func (d *Device) push(m *Message) {
	d.mu.Lock()
	if d.err != nil {
		if d.err == ErrOverflow {
			d.g.stats.dropped.Add(1)
		}
		d.mu.Unlock()
		return
	}
	if d.g.cfg.Variant == HoldLast {
		// The broken gateway: m waits for the chat's next message, and
		// the one that waited goes in its place.
		if d.held == nil {
			d.held = map[string]*Message{}
		}
		m, d.held[m.ChatID] = d.held[m.ChatID], m
		if m == nil {
			d.mu.Unlock()
			return
		}
	}
	n := len(d.queue) - d.head
	if n >= d.g.cfg.QueueLimit && d.g.cfg.Variant == SlowDrop {
		d.mu.Unlock() // the broken gateway: m is lost, the device stays open
		d.g.stats.dropped.Add(1)
		return
	}
	if n >= d.g.cfg.QueueLimit {
		d.endLocked(ErrOverflow)
		d.mu.Unlock()
		d.g.stats.overflows.Add(1)
		d.g.stats.dropped.Add(uint64(n) + 1)
		return
	}
	if d.head > 0 && len(d.queue) == cap(d.queue) {
		kept := copy(d.queue, d.queue[d.head:])
		clear(d.queue[kept:])
		d.queue, d.head = d.queue[:kept], 0
	}
	d.queue = append(d.queue, m)
	d.signal()
	d.mu.Unlock()
	d.g.stats.queued.Add(1)
	d.g.stats.sawQueue(n + 1)
}

func (d *Device) signal() {
	select {
	case d.notify <- struct{}{}:
	default:
	}
}

func (d *Device) end(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.endLocked(err)
}

// endLocked ends the device once; the first reason stays.
func (d *Device) endLocked(err error) {
	if d.err != nil {
		return
	}
	d.err = err
	clear(d.queue)
	d.queue, d.head = nil, 0
	close(d.done)
}
