package storetest

import (
	"fmt"
	"slices"
	"sort"

	"github.com/chatseq/chatseq/store"
)

func queryTests() []conformanceTest {
	return []conformanceTest{
		{"QueryMessages/AscendingAfterWithLimit", testQueryAscending},
		{"QueryMessages/DescendingLimitOneIsTheRecoveryQuery", testQueryDescending},
		{"QueryMessages/EmptyChat", testQueryEmpty},
		{"Dump/CountersMessagesAndIdempotencyOfTheGivenChats", testDump},
	}
}

// gappySeqs has gaps, as real chats do (ADR-004: raced or failed writes).
var gappySeqs = []uint64{1, 2, 4, 5, 7, 10}

// persistAll writes one persist transaction per sequence.
func (c *checker) persistAll(chat string, seqs []uint64) []store.Message {
	c.Helper()
	var out []store.Message
	for _, seq := range seqs {
		key := fmt.Sprintf("k%d", seq)
		c.must(c.s.TransactWrite(c.ctx, persistItems(chat, seq, key)), "TransactWrite")
		out = append(out, message(chat, seq, key))
	}
	return out
}

// wantQuery runs q and checks it returns exactly want, in order.
func (c *checker) wantQuery(q store.Query, want []store.Message) {
	c.Helper()
	got, err := c.s.QueryMessages(c.ctx, q)
	c.must(err, fmt.Sprintf("QueryMessages(%+v)", q))
	if !slices.Equal(seqs(got), seqs(want)) {
		c.failf("QueryMessages(after=%d limit=%d descending=%v) = sequences %v, want %v",
			q.After, q.Limit, q.Descending, seqs(got), seqs(want))
		return
	}
	for i := range want {
		if d := diffMessage(got[i], want[i]); d != "" {
			c.failf("QueryMessages(%+v) item %d: %s", q, i, d)
		}
	}
}

func testQueryAscending(c *checker) {
	chat := c.chat("a")
	all := c.persistAll(chat, gappySeqs)
	c.persistAll(c.chat("other"), []uint64{3, 6}) // must never show up
	c.wantQuery(store.Query{Chat: chat}, all)
	c.wantQuery(store.Query{Chat: chat, After: 2}, all[2:])
	c.wantQuery(store.Query{Chat: chat, After: 3}, all[2:]) // after a gap
	c.wantQuery(store.Query{Chat: chat, After: 2, Limit: 2}, all[2:4])
	c.wantQuery(store.Query{Chat: chat, Limit: 1}, all[:1])
	c.wantQuery(store.Query{Chat: chat, After: 10}, nil)
	c.wantQuery(store.Query{Chat: chat, After: 5, Limit: 100}, all[4:])
}

func testQueryDescending(c *checker) {
	chat := c.chat("a")
	all := c.persistAll(chat, gappySeqs)
	c.persistAll(c.chat("other"), []uint64{11, 12})
	// ADR-004 counter recovery: ScanIndexForward=false, Limit=1.
	c.wantQuery(store.Query{Chat: chat, Descending: true, Limit: 1}, all[len(all)-1:])
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	c.wantQuery(store.Query{Chat: chat, Descending: true}, reversed)
	c.wantQuery(store.Query{Chat: chat, Descending: true, After: 4, Limit: 2}, reversed[:2])
	c.wantQuery(store.Query{Chat: chat, Descending: true, After: 5}, reversed[:2])
}

func testQueryEmpty(c *checker) {
	created := c.chat("created")
	c.must(c.s.CreateChat(c.ctx, created, []string{"alice"}), "CreateChat")
	for _, chat := range []string{created, c.chat("never-created")} {
		for _, q := range []store.Query{{Chat: chat}, {Chat: chat, Descending: true, Limit: 1}} {
			got, err := c.s.QueryMessages(c.ctx, q)
			c.must(err, "QueryMessages")
			if len(got) != 0 {
				c.failf("QueryMessages(%+v) on a chat without messages = sequences %v, want none", q, seqs(got))
			}
		}
	}
}

func testDump(c *checker) {
	a, b, deleted, never := c.chat("a"), c.chat("b"), c.chat("deleted"), c.chat("never-created")
	other := c.chat("not-dumped")
	for _, chat := range []string{a, b, deleted, other} {
		c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	}
	for i := 0; i < 3; i++ {
		_, err := c.s.IncrementCounter(c.ctx, a)
		c.must(err, "IncrementCounter")
	}
	_, err := c.s.IncrementCounter(c.ctx, deleted)
	c.must(err, "IncrementCounter")
	c.must(c.s.DeleteCounter(c.ctx, deleted), "DeleteCounter")
	c.persistAll(a, []uint64{1, 3})
	c.persistAll(deleted, []uint64{1})
	c.persistAll(other, []uint64{1})

	st, err := c.s.Dump(c.ctx, []string{a, b, deleted, never})
	c.must(err, "Dump")

	wantCounters := []store.Counter{
		{Chat: a, Value: 3}, {Chat: b, Value: 0}, {Chat: deleted, Missing: true}, {Chat: never, Missing: true},
	}
	gotCounters := slices.Clone(st.Counters)
	for i := range gotCounters {
		if gotCounters[i].Missing {
			gotCounters[i].Value = 0
		}
	}
	sort.Slice(gotCounters, func(i, j int) bool { return gotCounters[i].Chat < gotCounters[j].Chat })
	sort.Slice(wantCounters, func(i, j int) bool { return wantCounters[i].Chat < wantCounters[j].Chat })
	if !slices.Equal(gotCounters, wantCounters) {
		c.failf("Dump counters = %+v, want %+v (one per chat asked for, Missing when absent)", gotCounters, wantCounters)
	}

	wantMsgs := []store.Message{message(a, 1, "k1"), message(a, 3, "k3"), message(deleted, 1, "k1")}
	gotMsgs := slices.Clone(st.Messages)
	sortMessages(gotMsgs)
	sortMessages(wantMsgs)
	if len(gotMsgs) != len(wantMsgs) {
		c.failf("Dump messages = %v, want %v", messageKeys(gotMsgs), messageKeys(wantMsgs))
	} else {
		for i := range wantMsgs {
			if d := diffMessage(gotMsgs[i], wantMsgs[i]); d != "" {
				c.failf("Dump message %s: %s", messageKeys(wantMsgs[i : i+1])[0], d)
			}
		}
	}

	wantRecs := []store.IdempotencyRecord{record(a, 1, "k1"), record(a, 3, "k3"), record(deleted, 1, "k1")}
	gotRecs := slices.Clone(st.Idempotency)
	sort.Slice(gotRecs, func(i, j int) bool { return recordLess(gotRecs[i], gotRecs[j]) })
	sort.Slice(wantRecs, func(i, j int) bool { return recordLess(wantRecs[i], wantRecs[j]) })
	if len(gotRecs) != len(wantRecs) {
		c.failf("Dump idempotency records = %v, want %v", recordKeys(gotRecs), recordKeys(wantRecs))
	} else {
		for i := range wantRecs {
			if d := diffRecord(gotRecs[i], wantRecs[i]); d != "" {
				c.failf("Dump idempotency record %s: %s", recordKeys(wantRecs[i : i+1])[0], d)
			}
		}
	}
}

func sortMessages(ms []store.Message) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Chat != ms[j].Chat {
			return ms[i].Chat < ms[j].Chat
		}
		return ms[i].Seq < ms[j].Seq
	})
}

func messageKeys(ms []store.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s#%d", m.Chat, m.Seq)
	}
	return out
}

func recordLess(a, b store.IdempotencyRecord) bool {
	if a.Chat != b.Chat {
		return a.Chat < b.Chat
	}
	return a.Key < b.Key
}

func recordKeys(rs []store.IdempotencyRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Chat + "#" + r.Key
	}
	return out
}
