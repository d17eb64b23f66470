package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Timing is the Raft timing of the in-process cluster. With the in-memory
// transport a round trip costs microseconds, so elections can be quick;
// the defaults leave room for a loaded 2-core machine and the race
// detector. Snapshots are frequent so that a run of seconds has nodes
// restart from a snapshot plus a log suffix, not only from a full log.
type Timing struct {
	Heartbeat, Election, LeaderLease, Commit time.Duration
	SnapshotInterval                         time.Duration
	SnapshotThreshold                        uint64 // entries since the last snapshot
}

// DefaultTiming is what runs use unless told otherwise.
var DefaultTiming = Timing{
	Heartbeat: 100 * time.Millisecond, Election: 100 * time.Millisecond, LeaderLease: 100 * time.Millisecond,
	Commit: 5 * time.Millisecond, SnapshotInterval: time.Second, SnapshotThreshold: 4096,
}

// node is one ledger server: its Raft instance and the stores that outlive
// a crash (the log, the stable store, snapshots), and what does not (the
// state machine, rebuilt from snapshot and log on restart, and the leader
// cache, which simply starts empty).
type node struct {
	index  int
	id     raft.ServerID
	addr   raft.ServerAddress
	logs   *raft.InmemStore
	stable *raft.InmemStore
	snaps  *raft.InmemSnapshotStore

	mu    sync.Mutex // guards the fields below
	raft  *raft.Raft // nil while crashed
	trans *raft.InmemTransport
	fsm   *fsm
	cache *leaderCache
	seqs  map[string]uint64 // propose-time-sequence: the leader's own counters

	readTerm atomic.Uint64 // the term whose read barrier has been applied
}

// live returns the node's Raft and state if it is running.
func (n *node) live() (*raft.Raft, *fsm, *leaderCache, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.raft, n.fsm, n.cache, n.raft != nil
}

// cluster is three ledger servers in process over Raft's in-memory
// transport.
type cluster struct {
	nodes  []*node
	timing Timing
	newFSM func() *fsm
	cache  func() *leaderCache

	topo sync.Mutex   // serialises crashes, restarts and partitions
	cut  map[int]bool // nodes cut off from the others
}

func startCluster(size int, timing Timing, newFSM func() *fsm, newCache func() *leaderCache) (*cluster, error) {
	c := &cluster{timing: timing, newFSM: newFSM, cache: newCache, cut: map[int]bool{}}
	var servers []raft.Server
	for i := 0; i < size; i++ {
		n := &node{
			index: i, id: raft.ServerID(fmt.Sprintf("node%d", i)), addr: raft.ServerAddress(fmt.Sprintf("ledger-node-%d", i)),
			logs: raft.NewInmemStore(), stable: raft.NewInmemStore(), snaps: raft.NewInmemSnapshotStore(),
		}
		c.nodes = append(c.nodes, n)
		servers = append(servers, raft.Server{ID: n.id, Address: n.addr, Suffrage: raft.Voter})
	}
	conf := raft.Configuration{Servers: servers}
	for _, n := range c.nodes {
		if err := raft.BootstrapCluster(c.raftConfig(n), n.logs, n.stable, n.snaps, c.newTransport(n), conf); err != nil {
			return nil, fmt.Errorf("ledger: bootstrapping %s: %w", n.id, err)
		}
	}
	for _, n := range c.nodes {
		if err := c.boot(n); err != nil {
			c.shutdown()
			return nil, err
		}
	}
	return c, nil
}

func (c *cluster) raftConfig(n *node) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = n.id
	rc.HeartbeatTimeout = c.timing.Heartbeat
	rc.ElectionTimeout = c.timing.Election
	rc.LeaderLeaseTimeout = c.timing.LeaderLease
	rc.CommitTimeout = c.timing.Commit
	if c.timing.SnapshotInterval > 0 {
		rc.SnapshotInterval = c.timing.SnapshotInterval
		rc.SnapshotThreshold = c.timing.SnapshotThreshold
		rc.TrailingLogs = c.timing.SnapshotThreshold / 2
	}
	rc.Logger = hclog.NewNullLogger()
	return rc
}

// newTransport makes the node's transport (bootstrapping only writes to
// the stores, so its transport is thrown away).
func (c *cluster) newTransport(n *node) *raft.InmemTransport {
	_, t := raft.NewInmemTransport(n.addr)
	return t
}

// boot starts n's Raft with a fresh state machine and cache, and connects
// it to every running peer that is not cut off. Called with topo held, or
// before the cluster is shared.
func (c *cluster) boot(n *node) error {
	trans := c.newTransport(n)
	f := c.newFSM()
	r, err := raft.NewRaft(c.raftConfig(n), f, n.logs, n.stable, n.snaps, trans)
	if err != nil {
		return fmt.Errorf("ledger: starting %s: %w", n.id, err)
	}
	n.mu.Lock()
	n.raft, n.trans, n.fsm, n.cache, n.seqs = r, trans, f, c.cache(), map[string]uint64{}
	n.mu.Unlock()
	n.readTerm.Store(0)
	if !c.cut[n.index] {
		c.link(n)
	}
	return nil
}

// link connects n with every running, reachable peer, both ways.
func (c *cluster) link(n *node) {
	n.mu.Lock()
	nt := n.trans
	n.mu.Unlock()
	for _, p := range c.nodes {
		if p == n || c.cut[p.index] {
			continue
		}
		p.mu.Lock()
		pt := p.trans
		running := p.raft != nil
		p.mu.Unlock()
		if !running {
			continue
		}
		nt.Connect(p.addr, pt)
		pt.Connect(n.addr, nt)
	}
}

// unlink disconnects n from every peer, both ways: its RPCs fail at once,
// like a refused connection.
func (c *cluster) unlink(n *node) {
	n.mu.Lock()
	nt := n.trans
	n.mu.Unlock()
	for _, p := range c.nodes {
		if p == n {
			continue
		}
		p.mu.Lock()
		pt := p.trans
		p.mu.Unlock()
		if pt != nil {
			pt.Disconnect(n.addr)
		}
		if nt != nil {
			nt.Disconnect(p.addr)
		}
	}
}

// crash stops node i abruptly: its log and snapshots survive, its state
// machine and cache do not.
func (c *cluster) crash(i int) error {
	c.topo.Lock()
	defer c.topo.Unlock()
	n := c.nodes[i]
	n.mu.Lock()
	r := n.raft
	n.mu.Unlock()
	if r == nil {
		return nil
	}
	c.unlink(n)
	err := r.Shutdown().Error()
	n.mu.Lock()
	n.raft = nil
	n.mu.Unlock()
	return err
}

// restart boots a crashed node i; a running one is left alone.
func (c *cluster) restart(i int) error {
	c.topo.Lock()
	defer c.topo.Unlock()
	n := c.nodes[i]
	if _, _, _, up := n.live(); up {
		return nil
	}
	return c.boot(n)
}

// cutOff disconnects node i from the others until heal.
func (c *cluster) cutOff(i int) {
	c.topo.Lock()
	defer c.topo.Unlock()
	c.cut[i] = true
	c.unlink(c.nodes[i])
}

// heal reconnects every cut-off node.
func (c *cluster) heal() {
	c.topo.Lock()
	defer c.topo.Unlock()
	for i := range c.cut {
		delete(c.cut, i)
		if _, _, _, up := c.nodes[i].live(); up {
			c.link(c.nodes[i])
		}
	}
}

// leader returns a running node that believes it leads, preferring the
// highest term (a cut-off leader believes it for a while), or nil.
func (c *cluster) leader() *node {
	var best *node
	var bestTerm uint64
	for _, n := range c.nodes {
		r, _, _, up := n.live()
		if !up || r.State() != raft.Leader {
			continue
		}
		if t := r.CurrentTerm(); best == nil || t > bestTerm {
			best, bestTerm = n, t
		}
	}
	return best
}

// errNoLeader: no node led within the wait.
var errNoLeader = errors.New("no leader elected")

// waitLeader polls for a leader until ctx ends or wait passes.
func (c *cluster) waitLeader(ctx context.Context, wait time.Duration) (*node, error) {
	deadline := time.Now().Add(wait)
	for {
		if n := c.leader(); n != nil {
			return n, nil
		}
		if time.Now().After(deadline) {
			return nil, errNoLeader
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// shutdown stops every node.
func (c *cluster) shutdown() {
	c.topo.Lock()
	defer c.topo.Unlock()
	for _, n := range c.nodes {
		n.mu.Lock()
		r := n.raft
		n.raft = nil
		n.mu.Unlock()
		if r != nil {
			_ = r.Shutdown().Error()
		}
	}
}

// converge restarts crashed nodes, heals cuts, and waits until every node
// has applied everything the leader has, so their state machines can be
// compared.
func (c *cluster) converge(ctx context.Context, wait time.Duration) (*node, error) {
	c.heal()
	for i := range c.nodes {
		if err := c.restart(i); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(wait)
	for {
		n, err := c.waitLeader(ctx, time.Until(deadline))
		if err != nil {
			return nil, err
		}
		r, f, _, up := n.live()
		// A barrier returns once the leader's state machine has applied
		// everything before it; the others then have to reach the same
		// entry.
		if up && awaitFuture(ctx, r, r.Barrier(time.Until(deadline)), time.Until(deadline)) == nil {
			if err := c.caughtUp(ctx, f.index(), deadline); err != nil {
				return nil, err
			}
			return n, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("ledger: no leader could apply a barrier within %s", wait)
		}
	}
}

// caughtUp waits until every node's state machine has applied index.
func (c *cluster) caughtUp(ctx context.Context, index uint64, deadline time.Time) error {
	for {
		behind := ""
		for _, n := range c.nodes {
			_, f, _, up := n.live()
			if !up {
				behind = string(n.id) + " is down"
				break
			}
			if a := f.index(); a < index {
				behind = fmt.Sprintf("%s applied %d of %d", n.id, a, index)
				break
			}
		}
		if behind == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ledger: nodes did not catch up: %s", behind)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// awaitFuture waits for a Raft future. hashicorp/raft never answers a
// future still queued for the leader loop when the node shuts down, so a
// crash of the node ends the wait too (for an entry, an unknown outcome:
// it may yet commit), as do ctx and timeout.
func awaitFuture(ctx context.Context, r *raft.Raft, f raft.Future, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return context.DeadlineExceeded
		case <-tick.C:
			if r.State() == raft.Shutdown {
				return raft.ErrRaftShutdown
			}
		}
	}
}
