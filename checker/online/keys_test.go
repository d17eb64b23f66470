package online

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/history"
)

// A chat's keys spilled as runs (flushed, merged, looked up through
// their filters and fences) answer every find as a table holding them
// all does: the first sequence of each key, its mark, found or not; keys
// that share a keyHash but not keyHash2 stay apart. Without the spill
// file nothing goes to runs, and the test fails.
func TestKeyTableSpilledAnswersAsHeld(t *testing.T) {
	spill, err := columns.NewSpillFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer spill.Close()
	rng := rand.New(rand.NewPCG(30, 2))
	var held keyTable
	spilled := keyTable{merging: &keyMerging{}} // as a checker's: merged in space kept
	type key struct{ k1, k2 uint64 }
	var seen []key
	for i := range 60_000 {
		var k key
		switch r := rng.IntN(10); {
		case r < 2 && len(seen) > 0: // a key seen before, maybe long ago
			k = seen[rng.IntN(len(seen))]
		case r < 3 && len(seen) > 0: // another key of the same keyHash
			k = key{seen[rng.IntN(len(seen))].k1, rng.Uint64()}
		default:
			k = key{rng.Uint64() | 1, rng.Uint64()} // keyHash's are uniform: homes are its top bits
		}
		seq := uint64(i + 1)
		hs, hf := held.find(k.k1, k.k2, seq, nil)
		ss, sf := spilled.find(k.k1, k.k2, seq, spill)
		if hf != sf || *hs != *ss {
			t.Fatalf("find %d (%x, %x): held %v %+v, spilled %v %+v", i, k.k1, k.k2, hf, *hs, sf, *ss)
		}
		if !hf {
			seen = append(seen, k)
			if rng.IntN(7) == 0 { // a first answer kept in keyFirst
				hs.k2 |= keyMarked
				ss.k2 |= keyMarked
			}
		}
	}
	if err := spill.Err(); err != nil {
		t.Fatal(err)
	}
	if len(spilled.runs) < 2 || spilled.homes > keyTableMax || len(held.runs) != 0 {
		t.Fatalf("spilled: %d runs, %d homes; held: %d runs: want runs on file and a table of at most %d homes", len(spilled.runs), spilled.homes, len(held.runs), keyTableMax)
	}
}

// A table's slots hold its keys in keyHash order, each at or past its
// home, whatever the keys: uniform ones, and keys crowded at the top of
// the hash range whose cluster runs into the table's end (the table
// grows). Every key inserted is found, and a key never inserted is not.
func TestKeyTableKeepsItsKeysInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 12))
	for _, crowded := range []bool{false, true} {
		var table keyTable
		var keys [][2]uint64
		for i := range 5000 {
			k1 := rng.Uint64() | 1
			if crowded {
				k1 = ^uint64(0) - rng.Uint64N(1<<20)
			}
			if i%10 == 0 && len(keys) > 0 { // another key of the same keyHash
				k1 = keys[rng.IntN(len(keys))][0]
			}
			k2 := rng.Uint64() &^ keyMarked
			if _, found := table.find(k1, k2, uint64(i+1), nil); found {
				t.Fatalf("crowded %v: key %d found before it was inserted", crowded, i)
			}
			keys = append(keys, [2]uint64{k1, k2})
		}
		prev := uint64(0)
		for i, s := range table.slots {
			if s.k1 == 0 {
				continue
			}
			if s.k1 < prev || uint64(i) < s.k1>>table.shift {
				t.Fatalf("crowded %v: slot %d holds %x after %x, home %d", crowded, i, s.k1, prev, s.k1>>table.shift)
			}
			prev = s.k1
		}
		for i, k := range keys {
			if s, found := table.lookup(k[0], k[1]); !found || s.seq != uint64(i+1) {
				t.Fatalf("crowded %v: key %d not found as inserted", crowded, i)
			}
		}
		if _, found := table.lookup(keys[0][0], keys[0][1]^2); found {
			t.Fatalf("crowded %v: a key never inserted was found", crowded)
		}
	}
}

// A table whose flush cannot write its run keeps every key, in order, in
// a table grown instead (the flush gathers the keys at the front of the
// slots before it writes them). The spill file's descriptor is replaced
// by a read-only one, so its first write fails.
func TestKeyTableWhoseFlushFailsKeepsEveryKey(t *testing.T) {
	spill := newReadOnlySpill(t)
	rng := rand.New(rand.NewPCG(8, 3))
	var table keyTable
	var keys [][2]uint64
	for i := range 2 * keyTableMax {
		k1, k2 := rng.Uint64()|1, rng.Uint64()&^keyMarked
		if _, found := table.find(k1, k2, uint64(i+1), spill); found {
			t.Fatalf("key %d found before it was inserted", i)
		}
		keys = append(keys, [2]uint64{k1, k2})
	}
	if spill.Usable() || len(table.runs) != 0 || table.homes <= keyTableMax {
		t.Fatalf("usable %v, %d runs, %d homes: want the write refused and the table grown past %d homes", spill.Usable(), len(table.runs), table.homes, keyTableMax)
	}
	prev := uint64(0)
	for i, s := range table.slots {
		if s.k1 == 0 {
			continue
		}
		if s.k1 < prev || uint64(i) < s.k1>>table.shift {
			t.Fatalf("slot %d holds %x after %x, home %d", i, s.k1, prev, s.k1>>table.shift)
		}
		prev = s.k1
	}
	if table.n != len(keys) {
		t.Fatalf("%d keys in the table, %d inserted", table.n, len(keys))
	}
	for i, k := range keys {
		if s, found := table.lookup(k[0], k[1]); !found || s.seq != uint64(i+1) {
			t.Fatalf("key %d not found as inserted", i)
		}
	}
}

// spillDescriptors are this process's descriptors of (removed) spill
// files.
func spillDescriptors(t *testing.T) map[int]bool {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, fd := range fds {
		target, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if err != nil || !strings.Contains(target, ".chatseq-spill-") {
			continue
		}
		if n, err := strconv.Atoi(fd.Name()); err == nil {
			out[n] = true
		}
	}
	return out
}

// newReadOnlySpill is a cached spill file whose descriptor is replaced
// under it by one of /dev/null opened read-only, so that its first write
// fails.
func newReadOnlySpill(t *testing.T) *columns.SpillFile {
	before := spillDescriptors(t)
	spill, err := columns.NewCachedSpillFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { spill.Close() })
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for fd := range spillDescriptors(t) {
		if !before[fd] {
			if err := syscall.Dup2(int(null.Fd()), fd); err != nil {
				t.Fatal(err)
			}
			return spill
		}
	}
	t.Fatal("no descriptor of the new spill file")
	return nil
}

// A chat's first acks, spilling, keep only the block being filled and
// ackKeep more in memory however many sequences the run acks (the slices
// grow ahead of the sequences: blocks made inside that margin were once
// never spilled).
func TestAckedHoldsFewBlocksWhileSpilling(t *testing.T) {
	o := New(nil)
	if err := o.SpillTo(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	defer o.CloseSpill()
	line := 1
	for s := uint64(1); s <= 40*ackBlock; s++ {
		line++
		o.Event(&history.Event{Kind: history.KindInvoke, Process: 1, F: history.FPersist, Chat: "c", Key: fmt.Sprint("k", s), Sender: "u", Line: line, Time: int64(line)})
		line++
		o.Event(&history.Event{Kind: history.KindOK, Process: 1, F: history.FPersist, Chat: "c", Seq: s, MessageID: fmt.Sprint("m", s), Line: line, Time: int64(line)})
	}
	held := 0
	for _, b := range o.acked[0].mids {
		if b != nil {
			held++
		}
	}
	if held > ackKeep+1 {
		t.Fatalf("%d blocks of first acks in memory after %d sequences, want at most %d", held, 40*ackBlock, ackKeep+1)
	}
	// No receiver line came, so no ack knows what its persist sent: no
	// block has a column for it, in memory or on file.
	for b, sent := range o.acked[0].sent {
		if sent != nil || o.acked[0].sentSpill.IsSpilled(b) {
			t.Fatalf("block %d has a column of what was sent, with no receiver in the history", b)
		}
	}
}

// A run's filter holds every key it was given, marked or not, and lets
// few others through: about 0.1% at 16 bits a key (each costs a page
// read), for runs of every size a chat's table makes.
func TestKeyRunFilterHoldsItsKeysAndFewOthers(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 7))
	for _, n := range []int{1, 100, keyTableMax, 8 * keyTableMax} {
		run := keyRun{bloom: make([]uint64, bloomWords(n))}
		for range n {
			k1, k2 := r.Uint64()|1, r.Uint64()
			run.add(k1, k2)
			if !run.mayHold(k1, k2|keyMarked) || !run.mayHold(k1, k2&^keyMarked) {
				t.Fatalf("%d keys: a key added is not held", n)
			}
		}
		const others = 200_000
		passed := 0
		for range others {
			if run.mayHold(r.Uint64()|1, r.Uint64()) {
				passed++
			}
		}
		if rate := float64(passed) / others; n >= 100 && rate > 0.002 {
			t.Errorf("%d keys: %.3f%% of other keys pass the filter, want about 0.1%%", n, 100*rate)
		}
	}
}

// BenchmarkKeyTables is a run's keys as the online check keeps them,
// spilling: new keys over 64 chats, one in twenty a retry of a recent
// one. Its figure is ns a key.
func BenchmarkKeyTables(b *testing.B) {
	spill, err := columns.NewCachedSpillFile(b.TempDir()) // as Checker.SpillTo
	if err != nil {
		b.Fatal(err)
	}
	defer spill.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	tables := make([]keyTable, 64)
	type key struct{ k1, k2 uint64 }
	var recent [64]key
	for i := 0; b.Loop(); i++ {
		c := rng.IntN(len(tables))
		k := key{rng.Uint64() | 1, rng.Uint64()}
		if i%20 == 0 && recent[c].k1 != 0 {
			k = recent[c]
		}
		recent[c] = k
		tables[c].find(k.k1, k.k2, uint64(i+1), spill)
	}
}

// Sequences far apart (gaps are allowed: a service stepping by 65536)
// are kept in the sorted list, not a block each: a block and 64 block
// slots an ack were 16 KB an ack (3 GB in a 30 s run). One kept apart
// and later covered by the blocks stays the first ack of its sequence,
// found by note and get, and a sync that skips it is still caught.
func TestAckedKeepsFarApartSequencesCompact(t *testing.T) {
	var a onlineAcked
	for n := uint64(1); n <= 2000; n++ {
		if _, seen := a.note(n<<16, int32(n), n, nil); seen {
			t.Fatalf("seq %d seen before", n<<16)
		}
	}
	if len(a.mids) > 64 || a.sparse.len() < 1999 {
		t.Fatalf("2000 acks 65536 apart: %d block slots, %d kept apart; want few slots", len(a.mids), a.sparse.len())
	}
	for n := uint64(1); n <= 2000; n++ {
		if f, ok := a.get(n << 16); !ok || f.line != int32(n) {
			t.Fatalf("seq %d: %+v %v", n<<16, f, ok)
		}
	}

	// 5000 kept apart (a block past the highest), then 1..5000 acked in
	// order: the blocks grow over it.
	var b onlineAcked
	b.note(5000, 7, 99, nil)
	for s := uint64(1); s < 5000; s++ {
		b.note(s, int32(100+s), s, nil)
	}
	if b.sparse.len() != 0 {
		t.Fatalf("%d acks still kept apart once the blocks cover them", b.sparse.len())
	}
	if f, seen := b.note(5000, 9000, 1, nil); !seen || f.line != 7 || f.mid != 99 {
		t.Fatalf("seq 5000 acked again: first %+v, seen %v; want the ack at line 7", f, seen)
	}
	if f, ok := b.get(5000); !ok || f.line != 7 {
		t.Fatalf("get 5000: %+v %v", f, ok)
	}

	// Far apart and from the highest down (each before all kept so far),
	// then covered by the blocks from 1 up: every one stays its
	// sequence's first ack, in the list, then in the blocks.
	var c onlineAcked
	for n := uint64(300); n >= 1; n-- {
		if _, seen := c.note(n*1500, int32(n), n, nil); seen {
			t.Fatalf("seq %d seen before", n*1500)
		}
	}
	if c.sparse.len() < 250 { // those above 65536 (2n+65536, n = 0)
		t.Fatalf("%d of 300 far-apart acks kept apart", c.sparse.len())
	}
	for s := uint64(1); s <= 450000; s++ {
		if s%1500 != 0 {
			c.note(s, 1000, 0, nil)
		}
	}
	if c.sparse.len() != 0 {
		t.Fatalf("%d acks still kept apart once the blocks cover them", c.sparse.len())
	}
	for n := uint64(1); n <= 300; n++ {
		if f, ok := c.get(n * 1500); !ok || f.line != int32(n) || f.mid != n {
			t.Fatalf("seq %d: %+v %v; want the ack at line %d", n*1500, f, ok, n)
		}
	}
}

// BenchmarkFarApartAcksDescending is a hostile service's far-apart
// sequences acked from the highest down: each goes before every ack kept
// apart so far. Its ns/ack must not grow with the acks kept (a sorted
// slice's insert moved them all: about 0.25 ms an ack at 100k).
func BenchmarkFarApartAcksDescending(b *testing.B) {
	const acks = 20000
	for b.Loop() {
		var a onlineAcked
		for n := uint64(acks); n >= 1; n-- {
			a.note(n<<32, int32(n), n, nil)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*acks), "ns/ack")
}
