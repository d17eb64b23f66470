package scenarios

import (
	"context"
	"sync"

	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/targets"
	// Registers target: postgres and target: ledger for scenario files.
	_ "github.com/chatseq/chatseq/targets/all"
)

// TargetCache keeps targets open across the scenarios of one run.
// Starting DynamoDB Local takes seconds, so the scenarios (and a shrink's
// many runs) share one server, each run with chat ids of its own. The
// embedded store is never shared: a fresh one costs nothing and keeps
// every scenario's state its own.
type TargetCache struct {
	mu     sync.Mutex
	opened map[string]*targets.Opened
}

// NewTargetCache returns an empty cache; Close it when the run is over.
func NewTargetCache() *TargetCache { return &TargetCache{opened: map[string]*targets.Opened{}} }

// open returns the named target and whether it may hold other runs'
// chats (so this run needs chat ids of its own), and a release function.
func (c *TargetCache) open(ctx context.Context, name string, o targets.Options) (t *targets.Opened, shared bool, release func(), err error) {
	if c == nil || name == storeopen.Memory {
		t, err = targets.Open(ctx, name, o)
		if err != nil {
			return nil, false, nil, err
		}
		return t, !t.Fresh, func() { t.Close() }, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.opened[name]; ok {
		return t, true, func() {}, nil
	}
	t, err = targets.Open(ctx, name, o)
	if err != nil {
		return nil, false, nil, err
	}
	c.opened[name] = t
	return t, true, func() {}, nil
}

// Close closes every target opened through the cache.
func (c *TargetCache) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for name, t := range c.opened {
		if err := t.Close(); err != nil && first == nil {
			first = err
		}
		delete(c.opened, name)
	}
	return first
}
