package checker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/history"
)

var perChat = history.Contract{Events: history.EventsAtLeastOnce, EventOrder: history.EventOrderPerChat}

// The outbox's race: 3 is taken first, 4 commits first and the relay
// publishes it first.
func TestEventOrderFailsWhenALowerSequenceFollowsOnTheTopic(t *testing.T) {
	b := newHBContract(perChat)
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k2")
	b.alloc(2, "A", 2)
	b.send(3, "A", "k3", 3)
	b.commit("A", "k2", 2, "m-k2")
	b.ok(2, "A", "k2", 2, "m-k2")
	b.dump(false)
	b.event("A", 1, "m-k1", 0, 10)
	e3 := b.event("A", 3, "m-k3", 0, 11)
	e2 := b.event("A", 2, "m-k2", 0, 12)
	r := b.check(t)
	res := mustFail(t, r, NameEventOrder, e3, e2)
	mustContain(t, res.Detail, `chat "A": seq 2 ("m-k2") is at offset 12 of partition 0`)
	mustContain(t, res.Detail, "after seq 3 at offset 11")
	if r.Stats.EventsOutOfOrder != 1 {
		t.Errorf("events_out_of_order = %d, want 1", r.Stats.EventsOutOfOrder)
	}
	must(t, r, NameEventCompleteness, Pass) // at-least-once holds: every ack published
}

func TestEventOrderPassesInOrderWithRedeliveredBatches(t *testing.T) {
	b := newHBContract(perChat)
	for s := uint64(1); s <= 3; s++ {
		b.send(1, "A", fmt.Sprintf("k%d", s), s)
	}
	b.send(1, "B", "kb", 1)
	b.dump(false)
	// A relay crash between publishing and marking republishes 2 and 3.
	for i, s := range []uint64{1, 2, 3, 2, 3} {
		b.event("A", s, fmt.Sprintf("m-k%d", s), 0, int64(i))
	}
	b.event("B", 1, "m-kb", 1, 0)
	r := b.check(t)
	res := must(t, r, NameEventOrder, Pass)
	mustContain(t, res.Detail, "6 events of 2 chats reach the topic in sequence order")
	mustContain(t, res.Detail, "2 repeated events")
}

// Two events lines of a chat at one offset of a partition cannot both be
// what the topic holds: which came first is not known, so the order is
// unknown in either file order (it passed one way and failed the other).
func TestEventOrderIsUnknownWhenTwoEventsShareAnOffset(t *testing.T) {
	for _, seqs := range [][2]uint64{{1, 2}, {2, 1}} {
		b := newHBContract(perChat)
		b.send(1, "A", "k1", 1)
		b.send(1, "A", "k2", 2)
		b.dump(false)
		e1 := b.event("A", seqs[0], fmt.Sprintf("m-k%d", seqs[0]), 0, 0)
		e2 := b.event("A", seqs[1], fmt.Sprintf("m-k%d", seqs[1]), 0, 0)
		res := must(t, b.check(t), NameEventOrder, Unknown)
		mustContain(t, res.Detail, fmt.Sprintf(`the events lines %d (seq %d) and %d (seq %d) of chat "A" are both at offset 0 of partition 0`, e1, seqs[0], e2, seqs[1]))
	}
}

// A chat whose order is not known hides no other chat's: B's inversion
// fails beside A's two events at one offset (it was unknown, the check
// ending at A's pair: a red-team's history).
func TestEventOrderJudgesTheOtherChatsBesideAnUnknownOne(t *testing.T) {
	b := newHBContract(perChat)
	for _, chat := range []string{"A", "B"} {
		b.send(1, chat, chat+"1", 1)
		b.send(1, chat, chat+"2", 2)
	}
	b.dump(false)
	b.event("A", 1, "m-A1", 0, 0)
	b.event("A", 1, "m-A1", 0, 0)
	b.event("A", 2, "m-A2", 0, 1)
	late := b.event("B", 2, "m-B2", 1, 0)
	early := b.event("B", 1, "m-B1", 1, 1)
	res := mustFail(t, b.check(t), NameEventOrder, late, early)
	mustContain(t, res.Detail, `also not judged: the events lines`)
	mustContain(t, res.Detail, `of chat "A" are both at offset 0 of partition 0`)
}

func TestEventOrderFailsWhenAChatSpansPartitions(t *testing.T) {
	b := newHBContract(perChat)
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k2", 2)
	b.dump(false)
	e1 := b.event("A", 1, "m-k1", 0, 0)
	e2 := b.event("A", 2, "m-k2", 3, 0)
	res := mustFail(t, b.check(t), NameEventOrder, e1, e2)
	mustContain(t, res.Detail, "partitions 0")
	mustContain(t, res.Detail, "only within one partition")
}

func TestEventOrderIsNotApplicableUnlessPromised(t *testing.T) {
	// ADR-004's contract (the default) promises no order: n/a, and the
	// verdict stays PASS with the warning.
	b := newHB()
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.dump(false)
	b.event("A", 2, "m-k2", 0, 0)
	b.event("A", 1, "m-k1", 0, 1)
	r := b.check(t)
	mustContain(t, mustNA(t, r, NameEventOrder).Reason, "event_order: none")
	for _, inv := range r.Invariants {
		if inv.Status == Fail {
			t.Errorf("%s fails: %s", inv.Name, inv.Detail)
		}
	}
	if r.Stats.EventsOutOfOrder != 1 {
		t.Errorf("events_out_of_order = %d, want 1: counted even when not promised", r.Stats.EventsOutOfOrder)
	}
	// Promised, but the topic was not read back.
	b = newHBContract(history.Contract{EventOrder: history.EventOrderPerChat})
	b.send(1, "A", "k1", 1)
	b.dump(false)
	mustContain(t, mustNA(t, b.check(t), NameEventOrder).Reason, "no final events lines")
	// An undefined value is unknown.
	b = newHBContract(history.Contract{EventOrder: "total"})
	b.send(1, "A", "k1", 1)
	b.dump(true)
	must(t, b.check(t), NameEventOrder, Unknown)
}

// bruteEventOrder reads the invariant literally: a chat with events in
// two partitions fails; within a partition, each message's first event
// counts as out of order when any earlier first event of its chat had a
// higher sequence.
func bruteEventOrder(fs []history.Final) (inversions int, split bool) {
	type key struct {
		chat string
		part int32
	}
	parts := map[string]map[int32]bool{}
	byPart := map[key][]history.Final{}
	for _, f := range fs {
		if f.Table != history.TableEvents {
			continue
		}
		if parts[f.Chat] == nil {
			parts[f.Chat] = map[int32]bool{}
		}
		parts[f.Chat][f.Partition] = true
		k := key{f.Chat, f.Partition}
		byPart[k] = append(byPart[k], f)
	}
	for _, ps := range parts {
		if len(ps) > 1 {
			split = true
		}
	}
	for _, es := range byPart {
		slices.SortStableFunc(es, func(a, b history.Final) int { return int(a.Offset - b.Offset) })
		for j := range es {
			first := true
			for i := range j {
				if es[i].Seq == es[j].Seq && es[i].MessageID == es[j].MessageID {
					first = false
				}
			}
			if !first {
				continue
			}
			for i := range j {
				if es[i].Seq > es[j].Seq {
					inversions++
					break
				}
			}
		}
	}
	return inversions, split
}

func randomEvents(rng *rand.Rand) *history.History {
	b := newHBContract(perChat)
	chats := []string{"A", "B"}
	next := map[int32]int64{}
	for n := 1 + rng.IntN(10); n > 0; n-- {
		chat := chats[rng.IntN(2)]
		part := int32(0)
		if chat == "B" {
			part = 1
		}
		if rng.IntN(12) == 0 {
			part = int32(rng.IntN(3))
		}
		s := uint64(1 + rng.IntN(6))
		id := fmt.Sprintf("m%d", s)
		if rng.IntN(10) == 0 {
			id = fmt.Sprintf("x%d", s)
		}
		b.event(chat, s, id, part, next[part])
		next[part] += 1 + int64(rng.IntN(2))
	}
	// Offsets ascend in line order; shuffle the lines so the checker
	// must sort by offset.
	rng.Shuffle(len(b.h.Finals), func(i, j int) {
		b.h.Finals[i], b.h.Finals[j] = b.h.Finals[j], b.h.Finals[i]
		b.h.Finals[i].Line, b.h.Finals[j].Line = b.h.Finals[j].Line, b.h.Finals[i].Line
	})
	return &b.h
}

func TestEventOrderAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	fails, passes := 0, 0
	runs := randomRuns(5000)
	for i := range runs {
		h := randomEvents(rng)
		want, split := bruteEventOrder(h.Finals)
		x := indexOf(h)
		res, got, _ := checkEventOrder(x)
		if got != want {
			t.Fatalf("history %d: %d out of order, brute force %d: %s", i, got, want, res.Detail)
		}
		if bad := want > 0 || split; bad != (res.Status == Fail) {
			t.Fatalf("history %d: %s, brute force: %d inversions, split %v: %s", i, res.Status, want, split, res.Detail)
		}
		if res.Status != Fail {
			passes++
			continue
		}
		fails++
		// The counterexample is two events of one chat: in two partitions,
		// or the higher sequence at the lower offset of one partition.
		if len(res.Lines) != 2 {
			t.Fatalf("history %d: counterexample %v", i, res.Lines)
		}
		var pair []history.Final
		for _, f := range h.Finals {
			if slices.Contains(res.Lines, f.Line) {
				pair = append(pair, f)
			}
		}
		a, c := pair[0], pair[1]
		if a.Offset > c.Offset || (a.Offset == c.Offset && a.Partition > c.Partition) {
			a, c = c, a
		}
		if a.Chat != c.Chat || (a.Partition == c.Partition && (a.Seq <= c.Seq || a.Offset >= c.Offset)) {
			t.Fatalf("history %d: %+v and %+v are no inversion", i, a, c)
		}
	}
	if fails < runs/10 || passes < runs/10 {
		t.Fatalf("lopsided draw: %d fail, %d pass", fails, passes)
	}
	t.Logf("%d fail, %d pass", fails, passes)
}

// event_order counts as the plain reading of its rule does, on random
// topics: in each chat's partition, in offset order, a message's repeat is
// a duplicate and a first event below the highest sequence so far is out
// of order. The events lines come in random order, offsets with gaps.
func TestEventOrderCountsAsTheRuleReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for round := range 200 {
		b := newHBContract(perChat)
		chats := []string{"A", "B", "C"}
		n := 1 + rng.IntN(40)
		for _, c := range chats {
			for s := uint64(1); s <= uint64(n); s++ {
				b.send(1, c, fmt.Sprintf("k%s%d", c, s), s)
			}
		}
		b.dump(false)
		type ev struct {
			chat   string
			seq    uint64
			offset int64
		}
		var topic []ev
		for ci, c := range chats {
			// Every message once, some twice, in an order close to
			// sequence order or shuffled.
			var seqs []uint64
			for s := uint64(1); s <= uint64(n); s++ {
				seqs = append(seqs, s)
				if rng.IntN(4) == 0 {
					seqs = append(seqs, s)
				}
			}
			switch round % 3 {
			case 0:
				rng.Shuffle(len(seqs), func(i, j int) { seqs[i], seqs[j] = seqs[j], seqs[i] })
			case 1:
				for range 1 + len(seqs)/8 {
					i := rng.IntN(len(seqs))
					j := min(len(seqs)-1, i+rng.IntN(4))
					seqs[i], seqs[j] = seqs[j], seqs[i]
				}
			}
			offset := int64(ci * 1000)
			for _, s := range seqs {
				offset += 1 + rng.Int64N(3)
				topic = append(topic, ev{c, s, offset})
			}
		}
		wantOut, wantDups := 0, 0
		for _, c := range chats {
			seen, top := map[uint64]bool{}, uint64(0)
			for _, e := range topic { // each chat's events are in offset order here
				if e.chat != c {
					continue
				}
				switch {
				case seen[e.seq]:
					wantDups++
				case e.seq < top:
					seen[e.seq] = true
					wantOut++
				default:
					seen[e.seq], top = true, e.seq
				}
			}
		}
		rng.Shuffle(len(topic), func(i, j int) { topic[i], topic[j] = topic[j], topic[i] })
		for _, e := range topic {
			b.event(e.chat, e.seq, fmt.Sprintf("m-k%s%d", e.chat, e.seq), int32(slices.Index(chats, e.chat)), e.offset)
		}
		r := b.check(t)
		if r.Stats.EventsOutOfOrder != wantOut {
			t.Fatalf("round %d: %d events out of order, want %d", round, r.Stats.EventsOutOfOrder, wantOut)
		}
		want := Pass
		if wantOut > 0 {
			want = Fail
		}
		res := must(t, r, NameEventOrder, want)
		if wantDups > 0 {
			mustContain(t, res.Detail, plural(wantDups, "repeated event"))
		}
	}
}
