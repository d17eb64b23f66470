package ledger

import (
	"context"
	"sort"
	"sync"
	"time"

	tg "github.com/chatseq/chatseq/target"
)

// nemesis injects the cluster faults: a leader crash (shutdown, restart a
// little later), a leadership transfer with a write in flight, the leader
// cut off from the others for a store-stall window, and a slow leader for
// a store-latency window. Crashes and transfers are rate-limited: at the
// runner's default 1% per send they would otherwise keep the cluster in
// elections, measuring nothing but election time.
type nemesis struct {
	cl  *cluster
	cfg Config
	env tg.Env

	mu           sync.Mutex
	lastCrash    time.Time
	lastTransfer time.Time
	crashes      int
	transfers    int
	cuts         int

	bg   sync.WaitGroup // restarts and the window loop
	quit chan struct{}
	once sync.Once
}

func startNemesis(cl *cluster, cfg Config, env tg.Env) *nemesis {
	n := &nemesis{cl: cl, cfg: cfg, env: env, quit: make(chan struct{})}
	var stalls []tg.TimedFault
	for _, f := range env.Timed {
		if f.Kind == tg.StoreStall {
			stalls = append(stalls, f)
		}
	}
	sort.Slice(stalls, func(i, j int) bool { return stalls[i].At < stalls[j].At })
	if len(stalls) > 0 && env.Elapsed != nil {
		n.bg.Add(1)
		go n.cutLeaderDuring(stalls)
	}
	return n
}

// crashLeader crashes node (the leader a write was just proposed to) and
// schedules its restart, unless a crash happened recently; it reports
// whether it crashed.
func (n *nemesis) crashLeader(nd *node) bool {
	if !n.due(&n.lastCrash, n.cfg.CrashEvery, &n.crashes) {
		return false
	}
	_ = n.cl.crash(nd.index)
	n.bg.Add(1)
	go func() {
		defer n.bg.Done()
		select {
		case <-time.After(n.cfg.RestartAfter):
		case <-n.quit:
		}
		_ = n.cl.restart(nd.index)
	}()
	return true
}

// transferLeadership moves leadership away from nd, unless a transfer
// happened recently.
func (n *nemesis) transferLeadership(nd *node) bool {
	// A node that is down has no leadership to move: it is not a
	// transfer, and not counted as one.
	r, _, _, up := nd.live()
	if !up || !n.due(&n.lastTransfer, n.cfg.TransferEvery, &n.transfers) {
		return false
	}
	// The transfer runs beside the write; its future is not awaited, the
	// write's own future tells what happened to the write.
	r.LeadershipTransfer()
	return true
}

// due is the rate limit of crashes and transfers: if at least every has
// passed since *last, it marks now, counts one and reports true.
func (n *nemesis) due(last *time.Time, every time.Duration, count *int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if time.Since(*last) < every {
		return false
	}
	*last = time.Now()
	*count++
	return true
}

// slow delays a write inside a store-latency window: the leader is slow.
func (n *nemesis) slow(ctx context.Context) {
	el, ok := n.elapsed()
	if !ok {
		return
	}
	for _, f := range n.env.Timed {
		if f.Kind == tg.StoreLatency && el >= f.At && el < f.At+f.For {
			select {
			case <-ctx.Done():
			case <-time.After(f.Latency):
			}
			return
		}
	}
}

// elapsed is the run's clock; false before the writers start (the
// runner's clock reads as decades then).
func (n *nemesis) elapsed() (time.Duration, bool) {
	if n.env.Elapsed == nil {
		return 0, false
	}
	el := n.env.Elapsed()
	return el, el >= 0 && el < 24*time.Hour
}

// cutLeaderDuring cuts the leader off for each store-stall window: it
// keeps believing it leads until its lease runs out, its writes cannot
// commit, and the other two elect a new leader.
func (n *nemesis) cutLeaderDuring(windows []tg.TimedFault) {
	defer n.bg.Done()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	next := 0
	cutUntil := time.Duration(-1)
	for {
		select {
		case <-n.quit:
			return
		case <-tick.C:
		}
		el, ok := n.elapsed()
		if !ok {
			continue
		}
		if cutUntil >= 0 && el >= cutUntil {
			n.cl.heal()
			cutUntil = -1
		}
		if next < len(windows) && el >= windows[next].At && cutUntil < 0 {
			w := windows[next]
			if el >= w.At+w.For {
				next++ // no leader to cut all window long
				continue
			}
			// Between leaders (an election after a crash) the cut waits
			// for the next one.
			if ld := n.cl.leader(); ld != nil {
				n.cl.cutOff(ld.index)
				n.mu.Lock()
				n.cuts++
				n.mu.Unlock()
				cutUntil = w.At + w.For
				next++
			}
		}
		if next == len(windows) && cutUntil < 0 {
			return
		}
	}
}

// stop ends the window loop and waits for pending restarts.
func (n *nemesis) stop() {
	n.once.Do(func() { close(n.quit) })
	n.bg.Wait()
}

// Counts is what the nemesis did in a run.
type Counts struct{ Crashes, Transfers, Cuts int }

func (n *nemesis) counts() Counts {
	n.mu.Lock()
	defer n.mu.Unlock()
	return Counts{Crashes: n.crashes, Transfers: n.transfers, Cuts: n.cuts}
}
