package checker

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/chatseq/chatseq/history"
)

// genConfig describes a simulated ADR-004 run: writers persist through the
// two-phase path (allocate, then commit), readers sync with a cursor.
type genConfig struct {
	chats, writers, readers int
	ops                     int     // operations to invoke
	crash                   float64 // a persist crashes after allocating (info), then is retried
	crashCommitted          float64 // a persist crashes after committing (info); its retry is a replay
	replay                  float64 // a writer re-sends its last acked key (a dedup answer)
	limit                   int     // sync page size
	events                  bool    // dump an events table
	gapless                 bool    // allocate at commit (apply-time assignment): no gaps, commits in order
	seed                    uint64
}

type genChat struct {
	name      string
	counter   uint64
	committed []uint64 // sorted
	ids       []string // by seq-1
	order     []uint64 // commit order, for events
}

type genProc struct {
	phase    int
	chat     *genChat
	key      string
	seq      uint64
	retry    string   // key to resend after a crash
	retryIn  *genChat // and its chat
	retrySeq uint64   // and, if it had committed, its message
	retryID  string
	cursor   map[*genChat]uint64
	lastKey  string // the last acked persist, to replay
	lastChat *genChat
	lastSeq  uint64
	lastID   string
}

// generate simulates a valid history in memory. Events are appended in
// time order; one process steps per tick, so up to writers+readers
// operations overlap.
func generate(cfg genConfig) *history.History {
	rng := rand.New(rand.NewPCG(cfg.seed, 99))
	h := &history.History{Header: history.Header{Version: history.Version, Extra: map[string]string{history.SoleWriterField: "true"}}}
	chats := make([]*genChat, cfg.chats)
	for i := range chats {
		chats[i] = &genChat{name: fmt.Sprintf("chat-%d", i)}
	}
	procs := make([]*genProc, cfg.writers+cfg.readers)
	senders := make([]string, len(procs))
	for i := range procs {
		procs[i] = &genProc{cursor: map[*genChat]uint64{}}
		senders[i] = fmt.Sprintf("u%d", i)
	}
	line, now := 1, int64(0)
	emit := func(e history.Event) {
		line++
		now++
		e.Line, e.Time = line, now
		h.Events = append(h.Events, e)
	}
	invoked, busy, nextKey := 0, 0, 0
	for invoked < cfg.ops || busy > 0 {
		p := rng.IntN(len(procs))
		g := procs[p]
		if g.phase == 0 && invoked >= cfg.ops {
			continue
		}
		reader := p >= cfg.writers
		switch {
		case g.phase == 0 && reader:
			g.chat = chats[rng.IntN(len(chats))]
			emit(history.Event{Kind: history.KindInvoke, Process: p, F: history.FSync, Chat: g.chat.name, After: g.cursor[g.chat], Limit: cfg.limit})
			invoked, busy, g.phase = invoked+1, busy+1, 1
		case g.phase == 1 && reader:
			c, after := g.chat, g.cursor[g.chat]
			i, _ := slices.BinarySearch(c.committed, after+1)
			seqs := slices.Clone(c.committed[i:min(len(c.committed), i+cfg.limit)])
			ids := make([]string, len(seqs))
			for j, s := range seqs {
				ids[j] = c.ids[s-1]
			}
			if len(seqs) > 0 {
				g.cursor[c] = seqs[len(seqs)-1]
			}
			emit(history.Event{Kind: history.KindOK, Process: p, F: history.FSync, Chat: c.name, Sync: &history.SyncResult{Seqs: seqs, MessageIDs: ids}})
			busy, g.phase = busy-1, 0
		case g.phase == 0:
			g.phase = 1
			switch {
			case g.retry != "" && g.retrySeq != 0: // answered as a replay
				g.key, g.chat, g.retry, g.phase = g.retry, g.retryIn, "", 3
				g.lastKey, g.lastChat, g.lastSeq, g.lastID, g.retrySeq = g.key, g.chat, g.retrySeq, g.retryID, 0
			case g.retry != "":
				g.key, g.chat, g.retry = g.retry, g.retryIn, ""
			case g.lastKey != "" && rng.Float64() < cfg.replay:
				g.key, g.chat, g.phase = g.lastKey, g.lastChat, 3
			default:
				g.chat = chats[rng.IntN(len(chats))]
				g.key = fmt.Sprintf("k%d", nextKey)
				nextKey++
			}
			emit(history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: g.chat.name, Key: g.key, Sender: senders[p], PayloadHash: g.key})
			invoked, busy = invoked+1, busy+1
		case g.phase == 1 && cfg.gapless:
			g.phase = 2 // the sequence is taken when the commit applies
		case g.phase == 1:
			g.chat.counter++
			g.seq = g.chat.counter
			emit(history.Event{Kind: history.KindTrace, Process: p, F: history.FAllocate, Chat: g.chat.name, Seq: g.seq})
			g.phase = 2
		case g.phase == 2 && cfg.gapless && rng.Float64() < cfg.crash:
			emit(history.Event{Kind: history.KindInfo, Process: p, F: history.FPersist, Chat: g.chat.name, Key: g.key, Error: "crash_before_apply"})
			g.retry, g.retryIn, busy, g.phase = g.key, g.chat, busy-1, 0
		case g.phase == 2 && rng.Float64() < cfg.crash:
			emit(history.Event{Kind: history.KindInfo, Process: p, F: history.FPersist, Chat: g.chat.name, Key: g.key, Error: "crash_after_allocate"})
			g.retry, g.retryIn, busy, g.phase = g.key, g.chat, busy-1, 0
		case g.phase == 2:
			c := g.chat
			if cfg.gapless {
				c.counter++
				g.seq = c.counter
			}
			id := "m-" + g.key
			i, _ := slices.BinarySearch(c.committed, g.seq)
			c.committed = slices.Insert(c.committed, i, g.seq)
			for uint64(len(c.ids)) < g.seq {
				c.ids = append(c.ids, "")
			}
			c.ids[g.seq-1] = id
			c.order = append(c.order, g.seq)
			if rng.Float64() < cfg.crashCommitted {
				emit(history.Event{Kind: history.KindInfo, Process: p, F: history.FPersist, Chat: c.name, Key: g.key, Error: "crash_after_persist"})
				g.retry, g.retryIn, g.retrySeq, g.retryID = g.key, c, g.seq, id
			} else {
				emit(history.Event{Kind: history.KindOK, Process: p, F: history.FPersist, Chat: c.name, Key: g.key, Seq: g.seq, MessageID: id})
				g.lastKey, g.lastChat, g.lastSeq, g.lastID = g.key, c, g.seq, id
			}
			busy, g.phase = busy-1, 0
		case g.phase == 3:
			emit(history.Event{Kind: history.KindOK, Process: p, F: history.FPersist, Chat: g.chat.name, Key: g.key, Seq: g.lastSeq, MessageID: g.lastID, Dedup: true})
			busy, g.phase = busy-1, 0
		}
	}
	final := func(f history.Final) {
		line++
		f.Line = line
		h.Finals = append(h.Finals, f)
	}
	for _, c := range chats {
		final(history.Final{Table: history.TableCounters, Chat: c.name, Value: c.counter})
	}
	keyOf := func(id string) string { return id[2:] }
	for _, c := range chats {
		for _, s := range c.committed {
			final(history.Final{Table: history.TableMessages, Chat: c.name, Seq: s, MessageID: c.ids[s-1], Key: keyOf(c.ids[s-1])})
		}
	}
	for _, c := range chats {
		for _, s := range c.committed {
			final(history.Final{Table: history.TableIdempotency, Chat: c.name, Seq: s, MessageID: c.ids[s-1], Key: keyOf(c.ids[s-1])})
		}
	}
	if cfg.events {
		offsets := map[int32]int64{}
		for i, c := range chats {
			part := int32(i % 8)
			for _, s := range c.order {
				final(history.Final{Table: history.TableEvents, Chat: c.name, Seq: s, MessageID: c.ids[s-1], Partition: part, Offset: offsets[part]})
				offsets[part]++
			}
		}
	}
	return h
}
