package linearize

import (
	"iter"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/columns"
)

// A precedence graph with time windows: each real node must be placed at a
// point in [lo, hi], and an edge a→b says a's point comes before b's (ties
// allowed, broken by the edge). Aux nodes have no window. Such a system is
// satisfiable iff the graph is acyclic and, taking every node at its
// earliest time est(v) = max(lo(v), est of its predecessors), no est exceeds
// its hi: placing every node at est and breaking ties in topological order
// satisfies all of it, and any satisfying placement is at or after est.
//
// Real nodes 0..len(call)-1 are the model's operations (those no edge
// meets are isolated and always fit), so they need no window of their own;
// the real nodes after them (a commit by an operation of unknown outcome,
// an unknown sequence) have one.
type pgraph struct {
	call, ret []int64 // the model's intervals: the operations' windows
	raised    []int64 // per operation, a lo above its call (timeMin: none); nil until raise
	lo, hi    []int64 // the other real nodes' windows
	op        []int32 // the other real nodes: the model operation each stands for, -1
	naux      int32
	ef, et    []int32 // edges, from and to
	// tree's own edges are not stored: succ derives them. In a hot
	// chat they are half of all edges.
	tree *rangeTree

	// Built by solve.
	start []int32 // CSR: the edges added from v are adj[start[v]:start[v+1]]
	adj   []int32
	order []int32 // topological order, complete only when acyclic
	est   []int64
}

func (g *pgraph) ops() int32 { return int32(len(g.call)) }

func (g *pgraph) real() int32 { return g.ops() + int32(len(g.lo)) }

func (g *pgraph) size() int32 { return g.real() + g.naux }

// node adds a real node after the operations'.
func (g *pgraph) node(lo, hi int64, op int32) int32 {
	g.lo = append(g.lo, lo)
	g.hi = append(g.hi, hi)
	g.op = append(g.op, op)
	return g.real() - 1
}

// raise makes operation node v's window start no earlier than t.
func (g *pgraph) raise(v int32, t int64) {
	if g.raised == nil {
		g.raised = make([]int64, len(g.call))
		for i := range g.raised {
			g.raised[i] = timeMin
		}
	}
	g.raised[v] = max(g.raised[v], t)
}

// opOf is the model operation real node v stands for, -1 if none.
func (g *pgraph) opOf(v int32) int32 {
	if v < g.ops() {
		return v
	}
	return g.op[v-g.ops()]
}

// aux reserves n aux nodes and returns the first one's number, counted
// from 0: aux node i is node real()+i once every real node is added.
func (g *pgraph) aux(n int) int32 {
	first := g.naux
	g.naux += int32(n)
	return first
}

func (g *pgraph) edge(a, b int32) {
	g.ef = append(g.ef, a)
	g.et = append(g.et, b)
}

func (g *pgraph) lower(v int32) int64 {
	switch {
	case v < g.ops() && g.raised != nil:
		return max(g.call[v], g.raised[v])
	case v < g.ops():
		return g.call[v]
	case v < g.real():
		return g.lo[v-g.ops()]
	}
	return timeMin
}

func (g *pgraph) upper(v int32) int64 {
	switch {
	case v < g.ops():
		return g.ret[v]
	case v < g.real():
		return g.hi[v-g.ops()]
	}
	return timeMax
}

// succ yields v's successors: the edges added, then the range tree's.
func (g *pgraph) succ(v int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for _, w := range g.adj[g.start[v]:g.start[v+1]] {
			if !yield(w) {
				return
			}
		}
		if g.tree != nil {
			g.tree.succ(g, v, yield)
		}
	}
}

// solve builds the adjacency and computes est in topological order. It
// returns (-1, true) when every node fits, (v, true) when v's est passes
// its hi, and (-1, false) when the graph has a cycle.
func (g *pgraph) solve() (late int32, acyclic bool) {
	n := g.size()
	// CSR: count, sum, then fill with start[a] as a cursor, which leaves
	// start[a] at a's end, that is a+1's beginning: shift it back.
	g.start = make([]int32, n+1)
	for _, a := range g.ef {
		g.start[a+1]++
	}
	for v := int32(0); v < n; v++ {
		g.start[v+1] += g.start[v]
	}
	g.adj = make([]int32, len(g.ef))
	for i, a := range g.ef {
		g.adj[g.start[a]] = g.et[i]
		g.start[a]++
	}
	copy(g.start[1:], g.start[:n])
	g.start[0] = 0
	g.ef, g.et = nil, nil
	indeg := make([]int32, n)
	for v := int32(0); v < n; v++ {
		for w := range g.succ(v) {
			indeg[w]++
		}
	}

	g.est = make([]int64, n)
	g.order = make([]int32, 0, n)
	for v := int32(0); v < n; v++ {
		g.est[v] = g.lower(v)
		if indeg[v] == 0 {
			g.order = append(g.order, v)
		}
	}
	late = -1
	for i := 0; i < len(g.order); i++ {
		v := g.order[i]
		if late < 0 && g.est[v] > g.upper(v) {
			late = v
		}
		for w := range g.succ(v) {
			g.est[w] = max(g.est[w], g.est[v])
			if indeg[w]--; indeg[w] == 0 {
				g.order = append(g.order, w)
			}
		}
	}
	if int32(len(g.order)) < n {
		return -1, false
	}
	return late, true
}

// latest returns, per node, the latest time it may take given the his of
// everything after it: min(hi(v), latest of its successors). Only after an
// acyclic solve.
func (g *pgraph) latest() []int64 {
	lst := make([]int64, g.size())
	for i := len(g.order) - 1; i >= 0; i-- {
		v := g.order[i]
		l := g.upper(v)
		for w := range g.succ(v) {
			l = min(l, lst[w])
		}
		lst[v] = l
	}
	return lst
}

// criticalPath is the chain of nodes that forced v's est: from a node whose
// own lo set it, along the predecessors that carried it, to v. Only after
// an acyclic solve. Which predecessor set each est is found again here,
// by the same pass in the same order: kept by solve it cost 4 bytes a node
// on every chat, and only a failure reads it.
func (g *pgraph) criticalPath(v int32) []int32 {
	n := g.size()
	est := make([]int64, n)
	from := make([]int32, n)
	for u := int32(0); u < n; u++ {
		est[u], from[u] = g.lower(u), -1
	}
	for _, u := range g.order {
		for w := range g.succ(u) {
			if est[u] > est[w] {
				est[w], from[w] = est[u], u
			}
		}
	}
	var path []int32
	for ; v >= 0; v = from[v] {
		path = append(path, v)
	}
	slices.Reverse(path)
	return path
}

// shortestCycle finds a cycle after a solve that found one: the nodes never
// ordered contain one. It walks back from such a node to land on a cycle,
// then takes the shortest cycle through a real node of it (breadth first
// over the unordered nodes), so the counterexample is small.
func (g *pgraph) shortestCycle() []int32 {
	n := g.size()
	ordered := make([]bool, n)
	for _, v := range g.order {
		ordered[v] = true
	}
	// Predecessors among unordered nodes: every unordered node has one.
	pred := make([]int32, n)
	for i := range pred {
		pred[i] = -1
	}
	for v := int32(0); v < n; v++ {
		if ordered[v] {
			continue
		}
		for w := range g.succ(v) {
			if !ordered[w] && pred[w] < 0 {
				pred[w] = v
			}
		}
	}
	var v int32 = -1
	for u := int32(0); u < n; u++ {
		if !ordered[u] {
			v = u
			break
		}
	}
	// Walking predecessors n times lands inside a cycle.
	seen := map[int32]bool{}
	for !seen[v] {
		seen[v] = true
		v = pred[v]
	}
	var cycle []int32
	for u := v; ; {
		cycle = append(cycle, u)
		u = pred[u]
		if u == v {
			break
		}
	}
	slices.Reverse(cycle)
	best := cycle
	tries := 0
	for _, s := range cycle {
		if s >= g.real() || tries == 8 {
			continue
		}
		tries++
		if c := g.bfsCycle(s, ordered, len(best)); c != nil && len(c) < len(best) {
			best = c
		}
	}
	return best
}

// bfsCycle is the shortest cycle through s among unordered nodes, or nil
// if none is shorter than limit.
func (g *pgraph) bfsCycle(s int32, ordered []bool, limit int) []int32 {
	parent := map[int32]int32{s: -1}
	frontier := []int32{s}
	for depth := 0; depth < limit && len(frontier) > 0; depth++ {
		var next []int32
		for _, v := range frontier {
			for w := range g.succ(v) {
				if ordered[w] {
					continue
				}
				if w == s {
					var c []int32
					for u := v; u >= 0; u = parent[u] {
						c = append(c, u)
					}
					slices.Reverse(c)
					return c
				}
				if _, ok := parent[w]; !ok {
					parent[w] = v
					next = append(next, w)
				}
			}
		}
		frontier = next
	}
	return nil
}

// shortestPath is a shortest path from a to b, nil if none.
func (g *pgraph) shortestPath(a, b int32) []int32 {
	parent := map[int32]int32{a: -1}
	frontier := []int32{a}
	for len(frontier) > 0 {
		var next []int32
		for _, v := range frontier {
			if v == b {
				var p []int32
				for u := v; u >= 0; u = parent[u] {
					p = append(p, u)
				}
				slices.Reverse(p)
				return p
			}
			for w := range g.succ(v) {
				if _, ok := parent[w]; !ok {
					parent[w] = v
					next = append(next, w)
				}
			}
		}
		frontier = next
	}
	return nil
}

// rangeTree links a node to a range of leaves, or a range of leaves to a
// node, with O(log n) edges: a segment tree over the leaves whose internal
// nodes are aux nodes, one tree with edges pointing down (parent→child) and
// one pointing up. A path through the down tree reaches exactly the leaves
// under the node it entered; one through the up tree leaves exactly from
// the leaves under the node it exits, so no false precedence is created.
//
// Its internal edges (parent→child in the down tree, child→parent in the
// up tree, leaves included) are implicit: succ yields them once link has
// run, and only for a tree some range used.
type rangeTree struct {
	leaves     []int32
	leafAt     []int32 // per real node: its leaf index, -1 if it is not a leaf
	size       int32   // power of two ≥ len(leaves)
	down, up   int32   // aux numbers of internal position 0 (unused) of each tree
	downLinked bool
	upLinked   bool
}

func newRangeTree(g *pgraph, leaves []int32) *rangeTree {
	size := int32(1)
	for size < int32(len(leaves)) {
		size *= 2
	}
	t := &rangeTree{leaves: leaves, size: size}
	t.down = g.aux(int(size))
	t.up = g.aux(int(size))
	return t
}

// at is the node at tree position p (1-based heap order) of a tree whose
// internal positions start at aux number base; -1 for an empty leaf slot.
func (t *rangeTree) at(g *pgraph, base, p int32) int32 {
	if p >= t.size {
		if i := p - t.size; i < int32(len(t.leaves)) {
			return t.leaves[i]
		}
		return -1
	}
	return g.real() + base + p
}

// link makes the trees' internal edges part of g; call after every real
// node exists and every range is linked.
func (t *rangeTree) link(g *pgraph) {
	t.leafAt = columns.Filled(int(g.real()), -1)
	for i, v := range t.leaves {
		if t.leafAt[v] < 0 {
			t.leafAt[v] = int32(i)
		} else if t.upLinked && t.size > 1 {
			// A node that is two leaves: its second up edge is stored.
			g.edge(v, t.at(g, t.up, (t.size+int32(i))/2))
		}
	}
	g.tree = t
}

// succ yields v's successors inside the trees: a down node's children, an
// up node's parent, a leaf's parent in the up tree.
func (t *rangeTree) succ(g *pgraph, v int32, yield func(int32) bool) {
	r := g.real()
	switch {
	case v < r:
		if i := t.leafAt[v]; i >= 0 && t.upLinked && t.size > 1 {
			yield(t.at(g, t.up, (t.size+i)/2))
		}
	case v-r > t.down && v-r < t.down+t.size:
		if !t.downLinked {
			return
		}
		p := v - r - t.down
		if c := t.at(g, t.down, 2*p); c >= 0 && !yield(c) {
			return
		}
		if c := t.at(g, t.down, 2*p+1); c >= 0 {
			yield(c)
		}
	case v-r > t.up+1 && v-r < t.up+t.size:
		if t.upLinked {
			yield(t.at(g, t.up, (v-r-t.up)/2))
		}
	}
}

// each calls f with the tree positions covering leaves [l, r).
func (t *rangeTree) each(l, r int32, f func(p int32)) {
	for l, r = l+t.size, r+t.size; l < r; l, r = l/2, r/2 {
		if l&1 == 1 {
			f(l)
			l++
		}
		if r&1 == 1 {
			r--
			f(r)
		}
	}
}

// count is how many tree positions cover leaves [l, r): the edges a range
// link adds.
func (t *rangeTree) count(l, r int32) int {
	n := 0
	for l, r = l+t.size, r+t.size; l < r; l, r = l/2, r/2 {
		n += int(l&1 + r&1)
		l += l & 1
		r -= r & 1
	}
	return n
}

// before makes v precede every leaf in [l, r).
func (t *rangeTree) before(g *pgraph, v, l, r int32) {
	t.each(l, r, func(p int32) {
		if p < t.size {
			t.downLinked = true
		}
		g.edge(v, t.at(g, t.down, p))
	})
}

// after makes every leaf in [l, r) precede v.
func (t *rangeTree) after(g *pgraph, v, l, r int32) {
	t.each(l, r, func(p int32) {
		if p < t.size {
			t.upLinked = true
		}
		g.edge(t.at(g, t.up, p), v)
	})
}
