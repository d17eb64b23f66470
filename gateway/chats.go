package gateway

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// chatIndex is what the gateway knows of each chat: its members, and the
// highest sequence delivered.
type chatIndex struct {
	mu    sync.RWMutex
	chats map[string]*chatInfo
}

type chatInfo struct {
	members []string // nil: not known yet
	highest atomic.Uint64
}

func (c *chatIndex) lookup(chat string) *chatInfo {
	c.mu.RLock()
	ci := c.chats[chat]
	c.mu.RUnlock()
	if ci != nil {
		return ci
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chats == nil {
		c.chats = map[string]*chatInfo{}
	}
	if ci = c.chats[chat]; ci == nil {
		ci = &chatInfo{}
		c.chats[chat] = ci
	}
	return ci
}

func (c *chatIndex) set(chat string, members []string) {
	ci := c.lookup(chat)
	c.mu.Lock()
	ci.members = slices.Clone(members)
	c.mu.Unlock()
}

// members are chat's members, asked of resolve (and kept) when no one
// named them; nil when they stay unknown. A failed or empty answer is not
// kept: the next message of the chat asks again.
func (c *chatIndex) members(ctx context.Context, chat string, resolve MembersFunc) []string {
	ci := c.lookup(chat)
	c.mu.RLock()
	members := ci.members
	c.mu.RUnlock()
	if members != nil || resolve == nil {
		return members
	}
	found, err := resolve(ctx, chat)
	if err != nil || len(found) == 0 {
		return nil
	}
	c.set(chat, found)
	return found
}

func (c *chatIndex) saw(chat string, seq uint64) {
	h := &c.lookup(chat).highest
	for {
		cur := h.Load()
		if seq <= cur || h.CompareAndSwap(cur, seq) {
			return
		}
	}
}

func (c *chatIndex) highest(chat string) uint64 {
	c.mu.RLock()
	ci := c.chats[chat]
	c.mu.RUnlock()
	if ci == nil {
		return 0
	}
	return ci.highest.Load()
}

// bucketMembers is ForeignPush's broken look-up: the members of every
// chat known to share chat's bucket, chat's own among them.
func (c *chatIndex) bucketMembers(chat string) []string {
	b := bucketOf(chat)
	var out []string
	c.mu.RLock()
	defer c.mu.RUnlock()
	for id, ci := range c.chats {
		if ci.members == nil || bucketOf(id) != b {
			continue
		}
		for _, u := range ci.members {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}
