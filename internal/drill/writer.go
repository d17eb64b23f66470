package drill

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
)

// retryBackoff spaces a client's retries, so while the counter is gone a
// writer that is not quiesced does not flood the history with failures.
const retryBackoff = 2 * time.Millisecond

// syncLimit is a writer's sync page size.
const syncLimit = 50

// writer is one client sending to the drill's chat. A send that fails is
// retried with the same key, as a client would; after an unknown outcome the
// client continues as a new process (the old one's operation may still take
// effect), as in the bench.
type writer struct {
	id, writers int
	r           *recorder
	gate        *gate
	rnd         *rand.Rand
	syncRatio   float64
	incarnation int
	pid         int
	lastSeq     uint64
	interval    time.Duration // between this writer's operations (Config.Rate); 0: none
	next        time.Time
}

func newWriter(id int, cfg *Config, r *recorder, g *gate) *writer {
	w := &writer{id: id, writers: cfg.Writers, r: r, gate: g, syncRatio: cfg.SyncRatio,
		rnd: rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(id)))}
	if cfg.Rate > 0 {
		w.interval = time.Duration(float64(cfg.Writers) / cfg.Rate * float64(time.Second))
		w.next = time.Now()
	}
	w.pid = w.newPID()
	return w
}

func (w *writer) newPID() int {
	pid := w.id + w.incarnation*w.writers
	w.incarnation++
	return pid
}

func senderID(id int) string { return "writer-" + strconv.Itoa(id) }

// run sends until stop closes. Operations in flight when it closes finish.
func (w *writer) run(ctx context.Context, stop <-chan struct{}) {
	for n := 0; ; n++ {
		if !w.pace(stop) {
			return
		}
		if w.rnd.Float64() < w.syncRatio {
			if !w.gate.enter(stop) {
				return
			}
			if kind, last := w.r.sync(ctx, w.pid, w.lastSeq, syncLimit); kind == history.KindOK {
				w.lastSeq = last
			} else if kind == history.KindInfo {
				w.pid = w.newPID()
			}
			w.gate.exit()
			continue
		}
		if !w.send(ctx, stop, "w"+strconv.Itoa(w.id)+"-"+strconv.Itoa(n)) {
			return
		}
	}
}

// pace waits for the writer's next slot under Config.Rate; false when
// stop closes first.
func (w *writer) pace(stop <-chan struct{}) bool {
	if w.interval <= 0 {
		return true
	}
	w.next = w.next.Add(w.interval)
	d := time.Until(w.next)
	if d <= 0 {
		if -d > w.interval {
			w.next = time.Now() // held (a pause): no burst to catch up
		}
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}

// send delivers one message, retrying its key until it is acknowledged; it
// returns false when stop closes first.
func (w *writer) send(ctx context.Context, stop <-chan struct{}, key string) bool {
	for {
		if !w.gate.enter(stop) || ctx.Err() != nil {
			return false
		}
		out := w.r.persist(ctx, w.pid, sequencer.Request{Key: key, Sender: senderID(w.id)})
		w.gate.exit()
		switch {
		case out.kind == history.KindOK:
			w.lastSeq = max(w.lastSeq, out.seq)
			return true
		case out.kind == history.KindInfo:
			w.pid = w.newPID()
		}
		// Failed (counter_missing while the counter is gone) or unknown:
		// back off before the retry.
		select {
		case <-stop:
			return false
		case <-time.After(retryBackoff):
		}
	}
}
