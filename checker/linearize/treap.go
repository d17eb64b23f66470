package linearize

import "github.com/chatseq/chatseq/internal/mix"

// A persistent treap: inserting copies only the O(log n) nodes on one path,
// so porcupine can keep thousands of model states that share most of their
// structure. Priorities are a fixed hash of the key, which makes the shape
// a function of the key set alone: two states holding the same entries are
// built of identical shapes whatever the order they were inserted in, so
// equality is a structural walk that stops at shared subtrees.

// entry is one committed message of the linearizability model, stored
// under its sequence in one treap and under its key in the other.
type entry struct {
	seq  uint64 // 0: committed by an operation of unknown outcome, not yet observed
	key  int32  // -1: seen by a sync, its key not yet known
	id   uint64 // hash of the message_id (stringHash); 0: not yet known
	hash uint64 // hash of the payload_hash; 0: not known
}

type tnode struct {
	k    uint64
	e    entry
	pri  uint64
	l, r *tnode
}

// mix64 is SplitMix64's step (its gamma added, then its finalizer): a
// bijection, so distinct keys get
// distinct priorities and the treap's shape is unique.
func mix64(z uint64) uint64 { return mix.Mix64(z + 0x9e3779b97f4a7c15) }

// tput returns n with k set to e, sharing every node off k's path.
func tput(n *tnode, k uint64, e entry) *tnode {
	if n == nil {
		return &tnode{k: k, e: e, pri: mix64(k)}
	}
	c := *n
	switch {
	case k == n.k:
		c.e = e
	case k < n.k:
		c.l = tput(n.l, k, e)
		if c.l.pri > c.pri { // rotate right; c.l is a fresh copy
			l := c.l
			c.l, l.r = l.r, &c
			return l
		}
	default:
		c.r = tput(n.r, k, e)
		if c.r.pri > c.pri { // rotate left
			r := c.r
			c.r, r.l = r.l, &c
			return r
		}
	}
	return &c
}

func tget(n *tnode, k uint64) (entry, bool) {
	for n != nil {
		switch {
		case k == n.k:
			return n.e, true
		case k < n.k:
			n = n.l
		default:
			n = n.r
		}
	}
	return entry{}, false
}

// tascend calls f on the entries with key > after in ascending order
// until f returns false; it returns false if f did.
func tascend(n *tnode, after uint64, f func(uint64, entry) bool) bool {
	for n != nil {
		if n.k > after {
			if !tascend(n.l, after, f) || !f(n.k, n.e) {
				return false
			}
		}
		n = n.r
	}
	return true
}

func tequal(a, b *tnode) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.k != b.k || a.e != b.e {
		return false
	}
	return tequal(a.l, b.l) && tequal(a.r, b.r)
}

func tmax(n *tnode) uint64 {
	if n == nil {
		return 0
	}
	for n.r != nil {
		n = n.r
	}
	return n.k
}
