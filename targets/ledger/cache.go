package ledger

import (
	"container/list"
	"sync"
	"time"
)

// cacheEntry is a cached WriteSuccess with the payload hash it answered.
type cacheEntry struct {
	scope       string
	seq         uint64
	messageID   string
	payloadHash []byte
	expires     time.Time
}

// leaderCache is the ADR's idempotency cache on one node: key → result and
// payload hash, with a TTL and at most max entries (least recently used
// evicted first; the ADR's TinyLFU admission is not modelled: it could
// only refuse more). It lives in the node's memory: a restarted node, or a
// node that just became leader, starts with it empty.
type leaderCache struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	ll    *list.List // front: most recently used
	items map[string]*list.Element
}

func newLeaderCache(ttl time.Duration, max int) *leaderCache {
	return &leaderCache{ttl: ttl, max: max, ll: list.New(), items: map[string]*list.Element{}}
}

// get returns the live entry for scope.
func (c *leaderCache) get(scope string, now time.Time) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[scope]
	if !ok {
		return cacheEntry{}, false
	}
	e := el.Value.(*cacheEntry)
	if !now.Before(e.expires) {
		c.ll.Remove(el)
		delete(c.items, scope)
		return cacheEntry{}, false
	}
	c.ll.MoveToFront(el)
	return *e, true
}

// put caches a result (step 6).
func (c *leaderCache) put(e cacheEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.expires = now.Add(c.ttl)
	if el, ok := c.items[e.scope]; ok {
		*el.Value.(*cacheEntry) = e
		c.ll.MoveToFront(el)
		return
	}
	c.items[e.scope] = c.ll.PushFront(&e)
	for c.ll.Len() > c.max {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.items, old.Value.(*cacheEntry).scope)
	}
}

// len is the number of entries (tests).
func (c *leaderCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}
