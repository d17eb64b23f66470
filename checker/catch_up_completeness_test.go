package checker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// readerSync records one marked sync of a catch-up client.
func (b *hb) readerSync(p int, chat string, after uint64, limit int, seqs ...uint64) (inv, ok int) {
	inv = b.add(history.Event{Kind: history.KindInvoke, Process: p, F: history.FSync, Chat: chat, After: after, Limit: limit, Reader: true})
	return inv, b.syncOK(p, chat, seqs...)
}

// lateCommit is ADR-004's race: process 1 takes 11, process 2 takes 12
// and commits it, a reader reads 12, then 11 commits. The reader follows
// its cursor (after=12) and never asks for 11 again.
func lateCommit(b *hb) (si, so, final11 int) {
	b.invoke(1, "A", "k11")
	b.alloc(1, "A", 11)
	b.send(2, "A", "k12", 12)
	si, so = b.readerSync(9, "A", 10, 100, 12)
	b.commit("A", "k11", 11, "m-k11")
	b.ok(1, "A", "k11", 11, "m-k11")
	b.readerSync(9, "A", 12, 100)
	d := b.dump(false)
	return si, so, d.msg["m-k11"]
}

func TestCatchUpCompletenessFailsOnALateCommitBelowTheCursor(t *testing.T) {
	b := newHBContract(history.Contract{Gaps: history.GapsAllowed, CatchUp: history.CatchUpCursor})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10",
		history.ClaimsField: history.EncodeClaims(map[string]string{NameCatchUpCompleteness: "ADR-001 promises no lost messages", NameGapless: "not read"})}
	si, so, m11 := lateCommit(b)
	r := b.check(t)
	res := mustFail(t, r, NameCatchUpCompleteness, si, so, m11)
	if !strings.HasPrefix(res.Detail, "ADR-001 promises no lost messages; violated: ") {
		t.Errorf("the failure does not begin with the header's claim: %s", res.Detail)
	}
	mustContain(t, res.Detail, "reader process 9 on chat \"A\" never received seq 11")
	mustContain(t, res.Detail, "returned seq 12 without it")
	mustContain(t, res.Detail, "after that sync returned")
	if r.Stats.CatchUpMissed != 1 {
		t.Errorf("catch_up_missed = %d, want 1", r.Stats.CatchUpMissed)
	}
	// Every other invariant holds: ADR-001's sync_completeness as written
	// does not cover the loss.
	for _, inv := range r.Invariants {
		if inv.Name != NameCatchUpCompleteness && inv.Status != Pass {
			t.Errorf("%s = %s: %s", inv.Name, inv.Status, inv.Detail)
		}
	}
}

func TestCatchUpCompletenessPassesWhenTheReaderWaitsBelowACommitInFlight(t *testing.T) {
	// A watermark: while 11 is in flight the sync serves nothing at or
	// above it, so the reader's cursor never passes 11.
	b := newHBContract(history.Contract{CatchUp: history.CatchUpCursor})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10",
		history.ClaimsField: history.EncodeClaims(map[string]string{NameCatchUpCompleteness: "ADR-001 promises no lost messages"})}
	b.invoke(1, "A", "k11")
	b.alloc(1, "A", 11)
	b.send(2, "A", "k12", 12)
	b.readerSync(9, "A", 10, 100)
	b.commit("A", "k11", 11, "m-k11")
	b.ok(1, "A", "k11", 11, "m-k11")
	b.readerSync(9, "A", 10, 100, 11, 12)
	b.readerSync(9, "A", 12, 100)
	b.dump(false)
	r := b.check(t)
	res := must(t, r, NameCatchUpCompleteness, Pass)
	mustContain(t, res.Detail, "1 reader (1 process) on 1 chat (3 syncs)")
	if strings.Contains(res.Detail, "promises") {
		t.Errorf("a pass cites the claim: %s", res.Detail)
	}
	mustContain(t, res.Detail, "(1 reader-message pair)") // the sync that returned 11 and 12 passed 11, and returned it
	if r.Stats.CatchUpMissed != 0 {
		t.Errorf("catch_up_missed = %d", r.Stats.CatchUpMissed)
	}
}

func TestCatchUpCompletenessCountsWhatAnySyncOfTheReaderReturned(t *testing.T) {
	// The reader rewinds (after=10 again) and receives 11: nothing lost.
	b := newHBContract(history.Contract{})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
	b.invoke(1, "A", "k11")
	b.alloc(1, "A", 11)
	b.send(2, "A", "k12", 12)
	b.readerSync(9, "A", 10, 100, 12)
	b.commit("A", "k11", 11, "m-k11")
	b.ok(1, "A", "k11", 11, "m-k11")
	b.readerSync(9, "A", 10, 100, 11, 12)
	b.dump(false)
	must(t, b.check(t), NameCatchUpCompleteness, Pass)

	// A reader that joined above the message never followed the chat past it.
	b = newHBContract(history.Contract{})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
	b.invoke(1, "A", "k11")
	b.alloc(1, "A", 11)
	b.send(2, "A", "k12", 12)
	b.readerSync(9, "A", 12, 100)
	b.commit("A", "k11", 11, "m-k11")
	b.ok(1, "A", "k11", 11, "m-k11")
	b.dump(false)
	must(t, b.check(t), NameCatchUpCompleteness, Pass)
}

func TestCatchUpCompletenessIsNotApplicableWithoutReaders(t *testing.T) {
	// The same race seen only by a writer's sync: no catch-up client,
	// n/a (today's histories keep their verdict), and the warning stays.
	b := newHB()
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
	b.invoke(1, "A", "k11")
	b.alloc(1, "A", 11)
	b.send(2, "A", "k12", 12)
	b.syncInvoke(2, "A", 10, 100)
	b.syncOK(2, "A", 12)
	b.commit("A", "k11", 11, "m-k11")
	b.ok(1, "A", "k11", 11, "m-k11")
	b.dump(false)
	r := b.check(t)
	mustContain(t, mustNA(t, r, NameCatchUpCompleteness).Reason, `no sync carries "reader": true`)
	mustAllPass(t, r)
	if r.Stats.LateCommits != 1 {
		t.Errorf("late commits = %d, want 1", r.Stats.LateCommits)
	}
	if r.Contract.CatchUp != history.CatchUpCursor || r.Contract.EventOrder != history.EventOrderNone {
		t.Errorf("defaults: %+v", r.Contract)
	}

	// catch_up: none promises readers nothing.
	b = newHBContract(history.Contract{CatchUp: history.CatchUpNone})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
	lateCommit(b)
	r = b.check(t)
	mustContain(t, mustNA(t, r, NameCatchUpCompleteness).Reason, "catch_up: none")
	if r.Stats.CatchUpMissed != 1 {
		t.Errorf("catch_up_missed = %d under catch_up: none, want 1: counted even when not promised", r.Stats.CatchUpMissed)
	}

	// Options override the header, field by field.
	b = newHBContract(history.Contract{CatchUp: history.CatchUpNone})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
	si, so, m11 := lateCommit(b)
	mustFail(t, Check(&b.h, Options{Contract: &history.Contract{CatchUp: history.CatchUpCursor}}), NameCatchUpCompleteness, si, so, m11)

	// Readers whose syncs all failed hold no evidence.
	b = newHB()
	b.send(1, "A", "k1", 1)
	b.add(history.Event{Kind: history.KindInvoke, Process: 9, F: history.FSync, Chat: "A", After: 0, Limit: 10, Reader: true})
	b.add(history.Event{Kind: history.KindFail, Process: 9, F: history.FSync, Chat: "A", Error: "unavailable"})
	b.dump(false)
	mustContain(t, mustNA(t, b.check(t), NameCatchUpCompleteness).Reason, "no reader sync completed ok")

	// A contract value the format does not define: unknown, not skipped.
	b = newHBContract(history.Contract{CatchUp: "snapshot"})
	lateCommit(b)
	mustContain(t, must(t, b.check(t), NameCatchUpCompleteness, Unknown).Detail, `contract catch_up "snapshot"`)
}

func TestCatchUpCompletenessWithoutTheFinalTableJudgesAcks(t *testing.T) {
	b := newHB()
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
	b.invoke(1, "A", "k11")
	b.alloc(1, "A", 11)
	b.send(2, "A", "k12", 12)
	si, so := b.readerSync(9, "A", 10, 100, 12)
	ack11 := b.ok(1, "A", "k11", 11, "m-k11")
	res := mustFail(t, b.check(t), NameCatchUpCompleteness, si, so, ack11)
	mustContain(t, res.Detail, "acknowledged at line")
	mustContain(t, res.Detail, "judged over acknowledged messages only")
}

// Several readers, several misses: the count is over (reader, message)
// pairs, the example the first reader's lowest miss.
func TestCatchUpCompletenessCountsPairs(t *testing.T) {
	b := newHB()
	b.invoke(1, "A", "k1")
	b.alloc(1, "A", 1)
	b.invoke(3, "A", "k2")
	b.alloc(3, "A", 2)
	b.send(2, "A", "k3", 3)
	si, so := b.readerSync(8, "A", 0, 100, 3)
	b.readerSync(9, "A", 0, 100, 3)
	b.commit("A", "k1", 1, "m-k1")
	b.ok(1, "A", "k1", 1, "m-k1")
	b.commit("A", "k2", 2, "m-k2")
	b.ok(3, "A", "k2", 2, "m-k2")
	d := b.dump(false)
	r := b.check(t)
	res := mustFail(t, r, NameCatchUpCompleteness, si, so, d.msg["m-k1"])
	mustContain(t, res.Detail, "4 violations")
	mustContain(t, res.Detail, "2 persisted messages missed by 2 readers of 2 readers")
	if r.Stats.CatchUpMissed != 4 {
		t.Errorf("catch_up_missed = %d, want 4", r.Stats.CatchUpMissed)
	}
}

// bruteCatchUp is the invariant read literally: for every reader (a
// process and chat with a marked sync), every persisted message it
// followed its chat past, by any pair of its syncs, must be among the
// pairs any of its ok syncs returned. It returns the misses.
func bruteCatchUp(h *history.History) (misses int, readers int) {
	type key struct {
		p    int
		chat string
	}
	type syncOp struct {
		inv, done *history.Event
	}
	var ops []syncOp
	open := map[int]*history.Event{}
	isReader := map[key]bool{}
	for i := range h.Events {
		e := &h.Events[i]
		switch {
		case e.Kind == history.KindInvoke:
			open[e.Process] = e
			if e.F == history.FSync && e.Reader {
				isReader[key{e.Process, e.Chat}] = true
			}
		case e.Kind.IsCompletion():
			inv := open[e.Process]
			delete(open, e.Process)
			if inv.F == history.FSync && e.Kind == history.KindOK {
				ops = append(ops, syncOp{inv, e})
			}
		}
	}
	type msg struct {
		chat string
		seq  uint64
		id   string
	}
	var persisted []msg
	hasMessages := false
	for _, f := range h.Finals {
		if f.Table == history.TableMessages {
			hasMessages = true
			m := msg{f.Chat, f.Seq, f.MessageID}
			if !slices.Contains(persisted, m) {
				persisted = append(persisted, m)
			}
		}
	}
	if !hasMessages {
		for i := range h.Events {
			if e := &h.Events[i]; e.Kind == history.KindOK && e.F == history.FPersist {
				m := msg{e.Chat, e.Seq, e.MessageID}
				if !slices.Contains(persisted, m) {
					persisted = append(persisted, m)
				}
			}
		}
	}
	for r := range isReader {
		for _, m := range persisted {
			if m.chat != r.chat {
				continue
			}
			passed, received := false, false
			for _, y := range ops {
				if y.inv.Process != r.p || y.inv.Chat != r.chat {
					continue
				}
				for k, s := range y.done.Sync.Seqs {
					if s == m.seq && y.done.Sync.MessageIDs[k] == m.id {
						received = true
					}
					if y.inv.Reader && y.inv.After < m.seq && s > m.seq {
						passed = true
					}
				}
			}
			if passed && !received {
				misses++
			}
		}
	}
	return misses, len(isReader)
}

// randomCatchUpHistory draws a small history: two chats, a few processes
// of which some read by cursor, syncs that return arbitrary ascending
// subsets (the invariant is defined over the lines alone, whatever the
// sequencer did), acks, and usually a final messages table.
func randomCatchUpHistory(rng *rand.Rand) *history.History {
	b := newHB()
	chats := []string{"A", "B"}
	id := func(s uint64) string {
		if rng.IntN(8) == 0 {
			return fmt.Sprintf("x%d", s) // another message at that sequence
		}
		return fmt.Sprintf("m%d", s)
	}
	for n := 2 + rng.IntN(14); n > 0; n-- {
		p := rng.IntN(5)
		chat := chats[rng.IntN(len(chats))]
		if rng.IntN(3) == 0 {
			s := uint64(1 + rng.IntN(8))
			key := fmt.Sprintf("k%d", s)
			b.invoke(p, chat, key)
			if rng.IntN(4) == 0 {
				b.info(p, chat, key, "timeout")
			} else {
				b.ok(p, chat, key, s, id(s))
			}
			continue
		}
		after := uint64(rng.IntN(7))
		b.add(history.Event{Kind: history.KindInvoke, Process: p, F: history.FSync, Chat: chat, After: after, Limit: 8, Reader: p >= 2 && rng.IntN(5) > 0})
		switch rng.IntN(6) {
		case 0:
			b.add(history.Event{Kind: history.KindFail, Process: p, F: history.FSync, Chat: chat, Error: "unavailable"})
			continue
		case 1:
			b.add(history.Event{Kind: history.KindInfo, Process: p, F: history.FSync, Chat: chat, Error: "timeout"})
			continue
		}
		var seqs []uint64
		var ids []string
		for s := after + 1; s <= 8; s++ {
			if rng.IntN(2) == 0 {
				seqs = append(seqs, s)
				ids = append(ids, id(s))
			}
		}
		b.syncOKIDs(p, chat, seqs, ids)
	}
	if rng.IntN(5) > 0 {
		for _, chat := range chats {
			for s := uint64(1); s <= 8; s++ {
				if rng.IntN(2) == 0 {
					b.msg(chat, s, id(s), fmt.Sprintf("k%d", s))
				}
			}
		}
	}
	return &b.h
}

// The checker agrees with the literal reading on thousands of small
// random histories, and every counterexample it names is a real miss.
func TestCatchUpCompletenessAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	fails, passes, na := 0, 0, 0
	runs := randomRuns(5000)
	for i := range runs {
		h := randomCatchUpHistory(rng)
		want, readers := bruteCatchUp(h)
		x := indexOf(h)
		rs, marked := x.readers()
		if reason := catchUpAbsent(x, rs, marked); reason != "" {
			na++
			if readers > 0 && want > 0 {
				t.Fatalf("history %d: n/a (%s) but the brute force finds %d misses", i, reason, want)
			}
			continue
		}
		res, got := checkCatchUpCompleteness(x, rs)
		if got != want {
			t.Fatalf("history %d: %d misses, brute force %d: %s\n%s", i, got, want, res.Detail, dumpHistory(h))
		}
		switch {
		case want == 0 && res.Status != Pass, want > 0 && res.Status != Fail:
			t.Fatalf("history %d: %s with %d misses: %s", i, res.Status, want, res.Detail)
		case want > 0:
			fails++
			requireRealMiss(t, h, res)
		default:
			passes++
		}
	}
	if fails < runs/10 || passes < runs/10 || na < runs/50 {
		t.Fatalf("the draw is lopsided: %d fail, %d pass, %d n/a", fails, passes, na)
	}
	t.Logf("%d fail, %d pass, %d n/a", fails, passes, na)
}

// requireRealMiss checks a counterexample: a marked ok sync (invoke and
// completion) with after below the message's sequence that returned a
// higher one, and the message, which no ok sync of that reader returned.
func requireRealMiss(t *testing.T, h *history.History, res Result) {
	t.Helper()
	if len(res.Lines) != 3 {
		t.Fatalf("counterexample %v is not a sync and a message: %s", res.Lines, res.Detail)
	}
	at := func(line int) (*history.Event, *history.Final) {
		for i := range h.Events {
			if h.Events[i].Line == line {
				return &h.Events[i], nil
			}
		}
		for i := range h.Finals {
			if h.Finals[i].Line == line {
				return nil, &h.Finals[i]
			}
		}
		t.Fatalf("line %d is in no event", line)
		return nil, nil
	}
	// Lines are sorted: an ack (no final table) may come before the sync.
	var inv, done *history.Event
	var seq uint64
	var id string
	for _, l := range res.Lines {
		switch e, f := at(l); {
		case f != nil:
			seq, id = f.Seq, f.MessageID
		case e.F == history.FSync && e.Kind == history.KindInvoke:
			inv = e
		case e.F == history.FSync:
			done = e
		default:
			seq, id = e.Seq, e.MessageID
		}
	}
	if inv == nil || done == nil || inv.Kind != history.KindInvoke || !inv.Reader || done.Kind != history.KindOK || done.Process != inv.Process {
		t.Fatalf("lines %v: not a reader's ok sync", res.Lines[:2])
	}
	if inv.After >= seq || slices.Max(done.Sync.Seqs) <= seq {
		t.Fatalf("sync after=%d returned %v: did not pass %d", inv.After, done.Sync.Seqs, seq)
	}
	open := map[int]*history.Event{}
	for i := range h.Events {
		e := &h.Events[i]
		if e.Kind == history.KindInvoke {
			open[e.Process] = e
			continue
		}
		if e.Kind == history.KindOK && e.F == history.FSync && e.Process == inv.Process && open[e.Process].Chat == inv.Chat {
			for k, s := range e.Sync.Seqs {
				if s == seq && e.Sync.MessageIDs[k] == id {
					t.Fatalf("line %d returned %d %q to the reader", e.Line, seq, id)
				}
			}
		}
	}
}

func dumpHistory(h *history.History) string {
	s := ""
	for _, e := range h.Events {
		s += fmt.Sprintf("%d %s p%d %s %s after=%d reader=%v seq=%d id=%s sync=%v\n", e.Line, e.Kind, e.Process, e.F, e.Chat, e.After, e.Reader, e.Seq, e.MessageID, e.Sync)
	}
	for _, f := range h.Finals {
		s += fmt.Sprintf("%d final %s %s %d %s\n", f.Line, f.Table, f.Chat, f.Seq, f.MessageID)
	}
	return s
}

// A history cut short (its promised end line missing) is judged without its
// final lines: a miss the acknowledged messages prove still fails, a pass
// over them proves nothing and is unknown, and so is event_order.
func TestFindingsOnAHistoryCutShort(t *testing.T) {
	b := newHBContract(history.Contract{EventOrder: history.EventOrderPerChat})
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": "10"}
	b.h.Header.EndLine = true
	b.invoke(1, "A", "k11")
	b.alloc(1, "A", 11)
	b.send(2, "A", "k12", 12)
	si, so := b.readerSync(9, "A", 10, 100, 12)
	ack11 := b.ok(1, "A", "k11", 11, "m-k11")
	b.dump(true)
	r := b.check(t)
	res := mustFail(t, r, NameCatchUpCompleteness, si, so, ack11)
	mustContain(t, res.Detail, "this violation is in the operations alone")
	mustContain(t, must(t, r, NameEventOrder, Unknown).Detail, "cut short")

	b = newHBContract(history.Contract{})
	b.h.Header.EndLine = true
	b.send(1, "A", "k1", 1)
	b.readerSync(9, "A", 0, 100, 1)
	b.dump(false)
	mustContain(t, must(t, b.check(t), NameCatchUpCompleteness, Unknown).Detail, "cut short")
}

func TestMalformedClaimsAreAWarning(t *testing.T) {
	b := newHB()
	b.h.Header.Extra = map[string]string{history.SoleWriterField: "true", history.ClaimsField: `"just a string"`}
	b.send(1, "A", "k1", 1)
	b.dump(false)
	r := b.check(t)
	for _, w := range r.Warnings {
		if strings.Contains(w, `header "claims" must be an object`) {
			return
		}
	}
	t.Fatalf("no warning about the claims: %v", r.Warnings)
}
