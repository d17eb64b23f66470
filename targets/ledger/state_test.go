package ledger

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// A node restarted after a snapshot rebuilds its state machine from the
// snapshot plus the log after it, and ends equal to the others.
func TestRestartFromSnapshotConverges(t *testing.T) {
	tgt := newTarget(t, DefaultConfig(), AsDesigned, "c")
	for i := range 20 {
		writeOK(t, tgt, "c", "alice", "k"+string(rune('a'+i)), "m")
	}
	// A write returns once the leader applied it; a follower that has not
	// applied anything yet has nothing to snapshot.
	if _, err := tgt.cl.converge(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	follower := (tgt.cl.leader().index + 1) % len(tgt.cl.nodes)
	r, _, _, _ := tgt.cl.nodes[follower].live()
	if err := r.Snapshot().Error(); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if err := tgt.cl.crash(follower); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		writeOK(t, tgt, "c", "bob", "k"+string(rune('a'+i)), "m")
	}
	if err := tgt.cl.restart(follower); err != nil {
		t.Fatal(err)
	}
	st, err := tgt.Dump(context.Background(), []string{"c"})
	if err != nil {
		t.Fatalf("dump after restart: %v", err)
	}
	if len(st.Messages) != 25 || st.Counters[0].Value != 25 {
		t.Fatalf("%d messages, counter %d; want 25 and 25", len(st.Messages), st.Counters[0].Value)
	}
	for i, m := range st.Messages {
		if m.Seq != uint64(i+1) {
			t.Fatalf("message %d has seq %d: not gapless", i, m.Seq)
		}
	}
}

// State machines that disagree make Dump fail, naming the difference.
func TestDumpReportsDisagreement(t *testing.T) {
	tgt := newTarget(t, DefaultConfig(), AsDesigned, "c")
	writeOK(t, tgt, "c", "alice", "k", "m")
	if _, err := tgt.cl.converge(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	_, f, _, _ := tgt.cl.nodes[2].live()
	f.mu.Lock()
	f.st.Chats["c"].Messages[0].MessageID = "msg_TAMPERED"
	f.mu.Unlock()
	_, err := tgt.Dump(context.Background(), []string{"c"})
	if err == nil || !strings.Contains(err.Error(), "disagree") || !strings.Contains(err.Error(), "msg_TAMPERED") {
		t.Fatalf("Dump with a diverged node returned %v, want a disagreement naming it", err)
	}
}

// Keys expire by log time and apply order, so every node forgets a key at
// the same entry; the size bound evicts the oldest first.
func TestStateMachineExpiryIsDeterministic(t *testing.T) {
	mk := func() *fsm { return newFSM(AsDesigned, 100, 2, nil) }
	entries := []command{
		{Op: opCreate, Chat: "c"},
		{Op: opWrite, Chat: "c", Sender: "s", Key: "a", Key16: key16("a"), PayloadHash: []byte{1}, MessageID: "m1", Time: 10},
		{Op: opWrite, Chat: "c", Sender: "s", Key: "a", Key16: key16("a"), PayloadHash: []byte{1}, MessageID: "m2", Time: 50},
		{Op: opWrite, Chat: "c", Sender: "s", Key: "a", Key16: key16("a"), PayloadHash: []byte{1}, MessageID: "m3", Time: 110},
		{Op: opWrite, Chat: "c", Sender: "s", Key: "b", Key16: key16("b"), PayloadHash: []byte{1}, MessageID: "m4", Time: 120},
		{Op: opWrite, Chat: "c", Sender: "s", Key: "c", Key16: key16("c"), PayloadHash: []byte{1}, MessageID: "m5", Time: 130},
		{Op: opWrite, Chat: "c", Sender: "s", Key: "a", Key16: key16("a"), PayloadHash: []byte{2}, MessageID: "m6", Time: 140},
	}
	want := []result{
		{},
		{Seq: 1, MessageID: "m1"},
		{Seq: 1, MessageID: "m1", Dedup: true}, // within the TTL
		{Seq: 2, MessageID: "m3"},              // 100 after: expired, new
		{Seq: 3, MessageID: "m4"},
		{Seq: 4, MessageID: "m5"}, // three keys: the oldest (a) is evicted
		{Seq: 5, MessageID: "m6"}, // so a's other payload is new, not reused
	}
	for _, f := range []*fsm{mk(), mk()} {
		for i, c := range entries {
			got := f.Apply(&raft.Log{Type: raft.LogCommand, Data: c.encode()}).(result)
			if got != want[i] {
				t.Fatalf("entry %d: got %+v, want %+v", i, got, want[i])
			}
		}
	}
}

// Snapshot then Restore gives the same state.
func TestSnapshotRoundTrip(t *testing.T) {
	f := newFSM(AsDesigned, time.Hour, 100, nil)
	for _, c := range []command{
		{Op: opCreate, Chat: "c"},
		{Op: opWrite, Chat: "c", Sender: "s", Key: "a", Key16: key16("a"), PayloadHash: []byte{1}, MessageID: "m1", Time: 10},
	} {
		f.Apply(&raft.Log{Type: raft.LogCommand, Data: c.encode()})
	}
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	g := newFSM(AsDesigned, time.Hour, 100, nil)
	if err := g.Restore(readCloser{strings.NewReader(string(snap.(jsonSnapshot)))}); err != nil {
		t.Fatal(err)
	}
	a, b := f.dump([]string{"c"}), g.dump([]string{"c"})
	if len(b.Messages) != 1 || b.Messages[0].MessageID != a.Messages[0].MessageID || b.Counters[0] != a.Counters[0] || len(b.Idempotency) != 1 {
		t.Fatalf("restored %+v, want %+v", b, a)
	}
	res := g.Apply(&raft.Log{Type: raft.LogCommand, Data: (&command{Op: opWrite, Chat: "c", Sender: "s", Key: "a", Key16: key16("a"), PayloadHash: []byte{9}, Time: 20}).encode()}).(result)
	if !res.Reused {
		t.Fatalf("the restored key table forgot key a: %+v", res)
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// The leader cache expires by TTL and evicts the least recently used.
func TestLeaderCache(t *testing.T) {
	c := newLeaderCache(time.Minute, 2)
	now := time.Now()
	c.put(cacheEntry{scope: "a", seq: 1}, now)
	c.put(cacheEntry{scope: "b", seq: 2}, now)
	if _, ok := c.get("a", now); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.put(cacheEntry{scope: "c", seq: 3}, now)
	if _, ok := c.get("b", now); ok {
		t.Error("b survived as the least recently used of three in a cache of two")
	}
	if e, ok := c.get("a", now); !ok || e.seq != 1 {
		t.Errorf("a: %+v %v", e, ok)
	}
	if _, ok := c.get("c", now.Add(time.Minute)); ok {
		t.Error("c outlived its TTL")
	}
	if c.len() != 1 {
		t.Errorf("%d entries left, want 1", c.len())
	}
}
