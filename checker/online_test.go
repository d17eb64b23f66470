package checker

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// randomOnlineHistory draws a small history of overlapping persists over
// few chats, keys, senders, sequences and message ids, so that acks
// collide on a sequence, keys answer twice and sequences go back in real
// time often; times tie often too.
func randomOnlineHistory(rng *rand.Rand) *history.History {
	h := &history.History{Header: history.Header{Version: history.Version}}
	procs := 1 + rng.IntN(4)
	open := make([]*history.Event, procs)
	ops := 1 + rng.IntN(10)
	line, now := 1, int64(0)
	ackedIDs := map[string]map[uint64]string{} // per chat, each sequence's first acked id
	emit := func(e history.Event) {
		line++
		if rng.IntN(3) > 0 {
			now++
		}
		e.Line, e.Time = line, now
		h.Events = append(h.Events, e)
	}
	for ops > 0 || slices.ContainsFunc(open, func(e *history.Event) bool { return e != nil }) {
		p := rng.IntN(procs)
		if inv := open[p]; inv != nil {
			open[p] = nil
			done := history.Event{Process: p, F: inv.F, Chat: inv.Chat, Key: inv.Key}
			switch r := rng.IntN(10); {
			case r == 0:
				done.Kind, done.Error = history.KindFail, "rejected"
			case r == 1:
				done.Kind, done.Error = history.KindInfo, "timeout"
			case inv.F == history.FSync:
				done.Kind, done.Sync = history.KindOK, randomSyncAnswer(rng, inv.After, inv.Limit, ackedIDs[inv.Chat])
			default:
				done.Kind, done.Seq, done.MessageID, done.Dedup = history.KindOK, uint64(1+rng.IntN(5)), fmt.Sprint("m", rng.IntN(4)), rng.IntN(4) == 0
				if ackedIDs[inv.Chat] == nil {
					ackedIDs[inv.Chat] = map[uint64]string{}
				}
				if _, ok := ackedIDs[inv.Chat][done.Seq]; !ok {
					ackedIDs[inv.Chat][done.Seq] = done.MessageID
				}
			}
			emit(done)
			continue
		}
		if ops == 0 {
			continue
		}
		ops--
		chat := fmt.Sprint("c", rng.IntN(2))
		if rng.IntN(4) == 0 {
			emit(history.Event{Kind: history.KindInvoke, Process: p, F: history.FSync, Chat: chat, After: uint64(rng.IntN(3)), Limit: 1 + rng.IntN(4)})
		} else {
			key := fmt.Sprint("k", rng.IntN(3))
			emit(history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: chat, Key: key, Sender: fmt.Sprint("u", rng.IntN(2)), PayloadHash: key})
		}
		open[p] = &h.Events[len(h.Events)-1]
		// Later appends may move the slice: keep a copy.
		e := *open[p]
		open[p] = &e
	}
	return h
}

// randomSyncAnswer is a sync's answer: mostly some of the sequences
// above after that were acked, ascending, within the limit, each with the
// id acked there first (seldom one not acked yet, with an id of its own); now and then one out of shape (out
// of order, not above after, too long, ids missing).
func randomSyncAnswer(rng *rand.Rand, after uint64, limit int, acked map[uint64]string) *history.SyncResult {
	r := &history.SyncResult{}
	for s := after + 1; s <= 5; s++ {
		id, ok := acked[s]
		if !ok {
			// Committed, not yet acknowledged; a later ack of
			// another message there is what the check without the
			// final table flags.
			if rng.IntN(8) > 0 {
				continue
			}
			id = fmt.Sprint("s", s)
		}
		if rng.IntN(4) > 0 {
			r.Seqs = append(r.Seqs, s)
			r.MessageIDs = append(r.MessageIDs, id)
		}
	}
	if len(r.Seqs) > limit {
		r.Seqs, r.MessageIDs = r.Seqs[:limit], r.MessageIDs[:limit]
	}
	switch rng.IntN(40) {
	case 0:
		slices.Reverse(r.Seqs)
	case 1:
		r.Seqs = append(r.Seqs, after)
		r.MessageIDs = append(r.MessageIDs, "m0")
	case 2:
		for range limit + 1 - len(r.Seqs) {
			r.Seqs = append(r.Seqs, 6+uint64(len(r.Seqs)))
			r.MessageIDs = append(r.MessageIDs, "m1")
		}
	case 3:
		r.MessageIDs = nil
	}
	return r
}

// onlineOf runs the online check over h's lines, each handed as a write
// of its own (so a batch of keys is judged at once), noting the line each
// violation was found at.
func onlineOf(h *history.History) (*Online, map[string]int) {
	at := map[string]int{}
	line := 0
	o := NewOnline(func(v Violation) { at[v.Invariant] = line })
	o.Header(&h.Header)
	for i := range h.Events {
		line = h.Events[i].Line
		o.Event(&h.Events[i])
		o.BatchDone(1)
	}
	return o, at
}

// The keys judged a batch at a time (checker/online's keybatch.go) give
// what they give judged one by one: the same violations with the same
// lines, over 10,000 random histories with all their keys in one batch.
func TestOnlineKeyBatchesJudgeAsOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	differ := 0
	for i := range randomRuns(10000) {
		h := randomOnlineHistory(rng)
		one, _ := onlineOf(h)
		batched := NewOnline(nil)
		batched.Header(&h.Header)
		for i := range h.Events {
			batched.Event(&h.Events[i])
		}
		a, b := one.Violations(), batched.Violations()
		slices.SortFunc(a, func(x, y Violation) int { return strings.Compare(x.Invariant, y.Invariant) })
		slices.SortFunc(b, func(x, y Violation) int { return strings.Compare(x.Invariant, y.Invariant) })
		if !slices.EqualFunc(a, b, func(x, y Violation) bool {
			return x.Invariant == y.Invariant && slices.Equal(x.Lines, y.Lines) && x.Time == y.Time
		}) {
			t.Fatalf("history %d: one by one %+v, in one batch %+v\n%s", i, a, b, onlineDump(h))
		}
		if slices.ContainsFunc(a, func(v Violation) bool { return v.Invariant == NameIdempotencyGuarantee }) {
			differ++
		}
	}
	if differ < 100 {
		t.Fatalf("only %d histories broke idempotency: the comparison was not put to work", differ)
	}
}

// The online check never reports what the offline check does not, and it
// reports each violation at the line that proves it: 10,000 random
// histories, both key scopes (the header's, as a run's).
func TestOnlineNeverContradictsOffline(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	caught := map[string]int{}
	offlineFails := map[string]int{}
	for i := range randomRuns(10000) {
		h := randomOnlineHistory(rng)
		if i%2 == 1 {
			h.Header.Contract.KeyScope = history.KeyScopeClient
		}
		rep := Check(h, Options{})
		status := map[string]Status{}
		for _, r := range rep.Invariants {
			status[r.Name] = r.Status
			if r.Status == Fail {
				offlineFails[r.Name]++
			}
		}
		o, at := onlineOf(h)
		for _, v := range o.Violations() {
			if status[v.Invariant] != Fail {
				t.Fatalf("history %d: online found %s (%s), offline says %q\n%s", i, v.Invariant, v.Detail, status[v.Invariant], onlineDump(h))
			}
			if last := v.Lines[len(v.Lines)-1]; last != at[v.Invariant] {
				t.Fatalf("history %d: %s found at line %d but its proving line is %d", i, v.Invariant, at[v.Invariant], last)
			}
			caught[v.Invariant]++
		}
	}
	for _, name := range OnlineInvariants {
		// In a file in time order these two are judged exactly (equal
		// times, a key's first answer a replay, key_scope): each failure
		// offline is one online, a count of thousands.
		if (name == NameSequenceMonotonic || name == NameIdempotencyGuarantee) && caught[name] != offlineFails[name] {
			t.Errorf("%s: online caught %d histories of the %d the offline check failed", name, caught[name], offlineFails[name])
		}
		// What the final table alone shows is the check after the
		// run's; the acks' (two messages at a sequence, one id at two
		// sequences) are seen online (61% before one id at two
		// sequences was judged online, 97% since).
		if name == NameSequenceUniqueness && caught[name] < offlineFails[name]*9/10 {
			t.Errorf("%s: online caught %d histories of the %d the offline check failed", name, caught[name], offlineFails[name])
		}
		// The online check sees most of what the offline check fails
		// on the acks: a check that found nothing would pass above.
		if caught[name] < offlineFails[name]/2 {
			t.Errorf("%s: online caught %d histories of the %d the offline check failed", name, caught[name], offlineFails[name])
		}
	}
	t.Logf("online/offline failures: %v / %v", caught, offlineFails)
}

// A valid history (the simulated ADR-004 runs) gives the online check
// nothing to report.
func TestOnlineFindsNothingInValidHistories(t *testing.T) {
	for seed := range uint64(50) {
		h := generate(genConfig{chats: 3, writers: 4, readers: 2, ops: 300, crash: 0.1, crashCommitted: 0.05, replay: 0.1, limit: 5, seed: seed})
		if o, _ := onlineOf(h); len(o.Violations()) > 0 {
			t.Fatalf("seed %d: %+v", seed, o.Violations())
		}
	}
}

func onlineDump(h *history.History) string {
	s := ""
	for _, e := range h.Events {
		s += fmt.Sprintf("%d t=%d p=%d %s %s %s key=%s sender=%s seq=%d mid=%s dedup=%v\n", e.Line, e.Time, e.Process, e.Kind, e.F, e.Chat, e.Key, e.Sender, e.Seq, e.MessageID, e.Dedup)
	}
	return s
}

// BenchmarkOnline is the online check's cost per history line, beside
// the Log that takes the same lines (its share of the tap's goroutine).
func BenchmarkOnline(b *testing.B) {
	h := generate(genConfig{chats: 64, writers: 8, readers: 2, ops: 200000, crash: 0.01, replay: 0.05, limit: 100, seed: 1})
	b.Run("log", func(b *testing.B) {
		for b.Loop() {
			l := NewLog()
			for i := range h.Events {
				l.Event(&h.Events[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h.Events)), "ns/line")
	})
	b.Run("online", func(b *testing.B) {
		for b.Loop() {
			o := NewOnline(nil)
			o.Header(&h.Header) // as a run's tap hands it
			for i := range h.Events {
				o.Event(&h.Events[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h.Events)), "ns/line")
	})
}

// The online check (package checker/online) names its invariants as the
// registry does, so a violation it reports names the verdict check gives.
func TestOnlineNamesItsInvariantsAsTheRegistry(t *testing.T) {
	want := []string{NameSequenceUniqueness, NameSequenceMonotonic, NameIdempotencyGuarantee, NameSyncCompleteness, NameIdenticalOrder, NamePushAuthorization, NameDeliveryStateConsistency, NameSendAuthorization, NameReadAuthorization}
	if !slices.Equal(OnlineInvariants, want) {
		t.Fatalf("online invariants %q, the registry's names %q", OnlineInvariants, want)
	}
	for _, name := range OnlineInvariants {
		if _, ok := invariantOf(name); !ok {
			t.Errorf("online invariant %q is not in the registry", name)
		}
	}
}

// A key's first answer at a sequence another message was acked at first
// is that answer, not the sequence's first ack: a retry answering it
// again breaks no idempotency, one answering the other message does, and
// the counterexample names the key's first answer.
func TestOnlineKeyFirstAnsweredAnotherMessagesSequence(t *testing.T) {
	for _, tc := range []struct {
		retryID string
		want    []string
	}{
		{"y", []string{NameSequenceUniqueness, NameSequenceMonotonic}},
		{"x", []string{NameSequenceUniqueness, NameSequenceMonotonic, NameIdempotencyGuarantee}},
	} {
		persist := func(line, p int, key string, seq uint64, id string, dedup bool) []history.Event {
			return []history.Event{
				{Line: line, Time: int64(line), Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: "c", Key: key, Sender: "u"},
				{Line: line + 1, Time: int64(line + 1), Kind: history.KindOK, Process: p, F: history.FPersist, Chat: "c", Key: key, Seq: seq, MessageID: id, Dedup: dedup},
			}
		}
		h := &history.History{Header: history.Header{Version: history.Version}}
		h.Events = append(h.Events, persist(2, 0, "a", 1, "x", false)...)
		h.Events = append(h.Events, persist(4, 1, "b", 1, "y", false)...)
		h.Events = append(h.Events, persist(6, 1, "b", 1, tc.retryID, true)...)
		o, _ := onlineOf(h)
		var got []string
		for _, v := range o.Violations() {
			got = append(got, v.Invariant)
			if v.Invariant == NameIdempotencyGuarantee && !slices.Equal(v.Lines, []int{5, 7}) {
				t.Errorf("retry answering %q: idempotency's lines %v, want [5 7] (key b's first answer, the retry's)", tc.retryID, v.Lines)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("retry answering %q: online found %v, want %v", tc.retryID, got, tc.want)
		}
	}
}

// longChatHistory: one chat whose persists p0 acks at seqs 1..n (key
// "k<seq>", message "m<seq>"), then tail's lines: what reaches back to
// the first sequences long after.
func longChatHistory(n int, tail ...history.Event) *history.History {
	var evs []history.Event
	for s := 1; s <= n; s++ {
		evs = append(evs,
			history.Event{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: fmt.Sprint("k", s), Sender: "u"},
			history.Event{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: uint64(s), MessageID: fmt.Sprint("m", s)})
	}
	evs = append(evs, tail...)
	return numberedHistory(evs)
}

// The online check spilling the first acks of old sequences to disk
// finds what it finds holding them all, at the same lines: a late ack of
// seq 7 for another message, a retry of seq 30's key answered another
// sequence, a sync from the start that misses seq 20; and nothing in
// their valid twins. Without the spill nothing is written, and the test
// fails.
func TestOnlineSpilledFindsWhatItFindsInMemory(t *testing.T) {
	const n = 13_000 // four runs of keys, merged
	all := make([]uint64, n)
	ids := make([]string, n)
	for i := range all {
		all[i], ids[i] = uint64(i+1), fmt.Sprint("m", i+1)
	}
	miss20 := append(slices.Clone(all[:19]), all[20:]...)
	miss20ids := append(slices.Clone(ids[:19]), ids[20:]...)
	invoke := func(p int, key string) history.Event {
		return history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: "c", Key: key, Sender: "u"}
	}
	ok := func(p int, seq uint64, mid string, dedup bool) history.Event {
		return history.Event{Kind: history.KindOK, Process: p, F: history.FPersist, Chat: "c", Seq: seq, MessageID: mid, Dedup: dedup}
	}
	sync := func(seqs []uint64, mids []string) []history.Event {
		return []history.Event{
			{Kind: history.KindInvoke, Process: 2, F: history.FSync, Chat: "c"},
			{Kind: history.KindOK, Process: 2, F: history.FSync, Chat: "c", Sync: &history.SyncResult{Seqs: seqs, MessageIDs: mids}},
		}
	}
	for _, tc := range []struct {
		name string
		tail []history.Event
		want string
	}{
		{"late ack of seq 7", []history.Event{invoke(1, "x"), ok(1, 7, "other", true)}, NameSequenceUniqueness},
		{"its own late ack of seq 7", []history.Event{invoke(1, "k7"), ok(1, 7, "m7", true)}, ""},
		{"seq 30's key answered anew", []history.Event{invoke(1, "k30"), ok(1, n+1, fmt.Sprint("m", n+1), false)}, NameIdempotencyGuarantee},
		{"seq 30's key replayed", []history.Event{invoke(1, "k30"), ok(1, 30, "m30", true)}, ""},
		{"sync misses seq 20", sync(miss20, miss20ids), NameSyncCompleteness},
		{"sync returns all", sync(all, ids), ""},
	} {
		h := longChatHistory(n, tc.tail...)
		held, heldAt := onlineOf(h)
		spilling := NewOnline(nil)
		if err := spilling.SpillTo(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		for i := range h.Events {
			spilling.Event(&h.Events[i])
		}
		if err := spilling.CloseSpill(); err != nil {
			t.Fatal(err)
		}
		got, want := spilling.Violations(), held.Violations()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: spilling found %+v, holding all %+v", tc.name, got, want)
		}
		if spilling.Spilled() < 40_000 {
			t.Fatalf("%s: %d bytes spilled, want the first acks of most of %d sequences", tc.name, spilling.Spilled(), n)
		}
		switch {
		case tc.want == "" && len(want) > 0:
			t.Fatalf("%s: found %+v", tc.name, want)
		case tc.want != "" && (len(want) != 1 || want[0].Invariant != tc.want || heldAt[tc.want] != h.Events[len(h.Events)-1].Line):
			t.Fatalf("%s: found %+v at %v, want %s at the last line", tc.name, want, heldAt, tc.want)
		}
	}
}
