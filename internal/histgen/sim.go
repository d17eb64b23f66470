package histgen

import (
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/chatseq/chatseq/internal/mix"
)

// chat is one chat's sequencer state.
type chat struct {
	name    []byte // JSON string, quotes included
	counter uint64 // the last allocated sequence
	// keys holds, by sequence-1, the packed key of the message committed
	// at that sequence; 0 while none is (a gap, or not committed yet).
	keys []uint64
}

// page appends to dst the first n committed sequences above after.
func (c *chat) page(dst []uint64, after uint64, n int) []uint64 {
	for s := after + 1; s <= c.counter && len(dst) < n; s++ {
		if c.keys[s-1] != 0 {
			dst = append(dst, s)
		}
	}
	return dst
}

// fullPageAfter returns the cursor a full-page sync starts from: after,
// when n committed messages lie above it; else the highest sequence below
// which n do (0 when the chat holds fewer).
func (c *chat) fullPageAfter(after uint64, n int) uint64 {
	s := c.counter
	for ; s > 0 && n > 0; s-- {
		if c.keys[s-1] != 0 {
			n--
		}
	}
	return min(after, s)
}

// Writer phases: what the writer's next step does.
const (
	wIdle     = iota // invoke a persist
	wAllocate        // allocate a sequence (trace line)
	wCommit          // commit the message (no line), or crash before it
	wAck             // acknowledge, or crash after committing
	wReplay          // answer a replay of a committed key
)

// Retries a writer owes after a crash.
const (
	retryNone   = iota
	retryAgain  // the crash was before the commit: the retry allocates anew
	retryReplay // the key committed: the retry is answered as a replay
)

type writer struct {
	// pid is the process id the writer records: the writer's index at
	// first, plus the number of processes after each crash. A client whose
	// operation ended info continues as a new process, as chatseq bench
	// records it (the info operation may still take effect at any later
	// time).
	pid          int
	phase, retry uint8
	crash        bool // wAck: answer info crash_after_persist
	late         bool // the allocation lies below a sequence a sync returned without it
	hasLast      bool
	chat         int // the outstanding persist's chat, key and sequence
	key          uint64
	seq          uint64
	n            uint64 // keys this writer made
	invokeLine   int
	invokeTime   int64
	seenBy       int // wAck: ok line of a sync that returned seq, 0 if none
	lastChat     int // the last acknowledged persist
	lastKey      uint64
	lastSeq      uint64
	sender       []byte // JSON string
}

type reader struct {
	busy   bool
	chat   int
	after  uint64
	cursor []uint64 // by chat: the last sequence returned
}

type gen struct {
	cfg     Config
	out     *output
	err     error // the output's first write error, after run
	stopped bool  // a write failed: stop generating
	buf     []byte
	rng     rand.PCG
	line    int
	now     int64
	step    int64 // time between lines, this tick
	chats   []chat
	writers []writer
	readers []reader
	// busy lists the processes with an operation outstanding; busyAt is
	// each process's index in it, -1 if idle.
	busy   []int32
	busyAt []int32

	nproc                            int // writers and readers
	syncTarget                       int
	staleFrom                        int // persists invoked before a stale sync may be placed
	staleProc                        int // the writer whose message the stale sync missed, -1
	crashAlloc, crashPersist, replay uint64
	idSalt                           uint64
	pageBuf                          []uint64
	zipf                             *rand.Zipf // Config.Zipf's draw; nil: uniform
	// events are the committed messages in commit order, each its chat
	// above 40 bits of sequence (Config.Partitions).
	events []uint64
	res    Result
}

const flushSize = 1 << 20

func newGen(w io.Writer, cfg Config) *gen {
	nchats := cfg.Chats
	if cfg.Hot {
		nchats = 1
	}
	const bufSize = flushSize + 64<<10 // a line rarely passes 64 KiB; append grows it if one does
	g := &gen{cfg: cfg, out: newOutput(w, bufSize), buf: make([]byte, 0, bufSize), staleProc: -1}
	g.rng.Seed(uint64(cfg.Seed), 0x6869737467656e) // "histgen"
	g.idSalt = mix.Mix64(uint64(cfg.Seed) ^ 0x9e3779b97f4a7c15)
	g.crashAlloc, g.crashPersist, g.replay = threshold(cfg.CrashAfterAllocate), threshold(cfg.CrashAfterPersist), threshold(cfg.Replay)
	g.chats = make([]chat, nchats)
	if cfg.Zipf > 0 && nchats > 1 {
		g.zipf = rand.NewZipf(rand.New(&g.rng), cfg.Zipf, 1, uint64(nchats-1))
	}
	for i := range g.chats {
		g.chats[i].name = strconv.AppendQuote(nil, chatName(i))
	}
	g.writers = make([]writer, cfg.Writers)
	for i := range g.writers {
		g.writers[i].pid = i
		g.writers[i].sender = strconv.AppendQuote(nil, "user-"+strconv.Itoa(i))
	}
	g.readers = make([]reader, cfg.Readers)
	for i := range g.readers {
		g.readers[i].cursor = make([]uint64, nchats)
	}
	nproc := cfg.Writers + cfg.Readers
	g.nproc = nproc
	g.busy = make([]int32, 0, nproc)
	g.busyAt = make([]int32, nproc)
	for i := range g.busyAt {
		g.busyAt[i] = -1
	}
	if cfg.SyncShare > 0 {
		g.syncTarget = int(float64(cfg.Persists)*cfg.SyncShare/(1-cfg.SyncShare) + 0.5)
	}
	g.staleFrom = cfg.Persists - cfg.Persists/4
	g.pageBuf = make([]uint64, 0, cfg.SyncLimit+1)
	return g
}

func chatName(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 4 {
		s = "0" + s
	}
	return "chat-" + s
}

// threshold turns a chance into a bound on 53 random bits.
func threshold(p float64) uint64 { return uint64(p * (1 << 53)) }

func (g *gen) chance(t uint64) bool { return g.rng.Uint64()>>11 < t }

// below returns a uniform integer in [0, n) from 32 random bits.
func below(bits uint64, n int) int { return int(bits & 0xffffffff * uint64(n) >> 32) }

func (g *gen) pickChat() int {
	if len(g.chats) == 1 {
		return 0
	}
	if g.zipf != nil {
		return int(g.zipf.Uint64())
	}
	return below(g.rng.Uint64(), len(g.chats))
}

func (g *gen) setBusy(p int) {
	g.busyAt[p] = int32(len(g.busy))
	g.busy = append(g.busy, int32(p))
}

func (g *gen) setIdle(p int) {
	i := g.busyAt[p]
	last := g.busy[len(g.busy)-1]
	g.busy[i], g.busyAt[last] = last, i
	g.busy = g.busy[:len(g.busy)-1]
	g.busyAt[p] = -1
}

// run writes the whole history; it stops early if a write fails.
func (g *gen) run() {
	g.header()
	g.simulate()
	g.flush()
	g.res.Bytes, g.err = g.out.close()
}

func (g *gen) simulate() {
	nproc := g.nproc
	for !g.stopped {
		r := g.rng.Uint64()
		var p int
		switch {
		case g.res.Persists < g.cfg.Persists || g.res.Syncs < g.syncTarget:
			p = below(r>>32, nproc)
		case len(g.busy) > 0: // draining: only outstanding operations step
			p = int(g.busy[below(r>>32, len(g.busy))])
		default:
			g.finals()
			return
		}
		g.step = 100 + int64(r&1023)
		if p < len(g.writers) {
			g.stepWriter(p)
		} else {
			g.stepReader(p - len(g.writers))
		}
	}
}

func (g *gen) stepWriter(p int) {
	w := &g.writers[p]
	switch w.phase {
	case wIdle:
		if g.res.Persists >= g.cfg.Persists {
			return
		}
		switch {
		case w.retry == retryAgain: // same key and chat
			w.phase = wAllocate
		case w.retry == retryReplay: // same key, chat and sequence
			w.phase = wReplay
		case w.hasLast && g.chance(g.replay):
			w.chat, w.key, w.seq = w.lastChat, w.lastKey, w.lastSeq
			w.phase = wReplay
		default:
			w.n++
			w.chat, w.key = g.pickChat(), packKey(p, w.n)
			w.phase = wAllocate
		}
		w.retry = retryNone
		g.res.Persists++
		g.setBusy(p)
		w.invokeLine, w.invokeTime = g.persistInvoke(w)
	case wAllocate:
		c := &g.chats[w.chat]
		c.counter++
		c.keys = append(c.keys, 0)
		w.seq, w.late = c.counter, false
		g.allocateTrace(w)
		w.phase = wCommit
	case wCommit:
		if g.chance(g.crashAlloc) {
			g.persistInfo(w, "crash_after_allocate")
			w.pid += g.nproc
			g.res.CrashesAfterAllocate++
			g.res.Gaps++
			w.retry, w.phase = retryAgain, wIdle
			g.setIdle(p)
			return
		}
		g.chats[w.chat].keys[w.seq-1] = w.key
		g.res.Messages++
		if g.cfg.Partitions > 0 {
			g.events = append(g.events, uint64(w.chat)<<40|w.seq)
		}
		if w.late {
			g.res.LateCommits++
		}
		w.crash, w.seenBy = g.chance(g.crashPersist), 0
		w.phase = wAck
	case wAck:
		if w.crash {
			g.persistInfo(w, "crash_after_persist")
			w.pid += g.nproc
			g.res.CrashesAfterPersist++
			w.retry = retryReplay
		} else {
			g.persistOK(w, false)
			w.hasLast, w.lastChat, w.lastKey, w.lastSeq = true, w.chat, w.key, w.seq
		}
		if p == g.staleProc {
			g.res.Stale.PersistAckLine = g.line
			g.staleProc = -1
		}
		w.phase = wIdle
		g.setIdle(p)
	case wReplay:
		g.persistOK(w, true)
		g.res.Dedup++
		w.hasLast, w.lastChat, w.lastKey, w.lastSeq = true, w.chat, w.key, w.seq
		w.phase = wIdle
		g.setIdle(p)
	}
}

func (g *gen) stepReader(i int) {
	rd := &g.readers[i]
	p := len(g.writers) + i
	if rd.busy {
		c := &g.chats[rd.chat]
		seqs := c.page(g.pageBuf[:0], rd.after, g.cfg.SyncLimit)
		g.syncOK(p, rd.chat, seqs)
		g.synced(rd, seqs)
		rd.busy = false
		g.setIdle(p)
		return
	}
	// Syncs keep pace with persists, so both end together.
	if g.res.Syncs >= g.syncTarget || int64(g.res.Syncs)*int64(g.cfg.Persists) > int64(g.syncTarget)*int64(g.res.Persists) {
		return
	}
	if g.cfg.StaleSync && g.res.Stale == nil && g.res.Persists >= g.staleFrom && g.staleSync(i) {
		return
	}
	rd.chat = g.pickChat()
	rd.after = rd.cursor[rd.chat]
	if g.cfg.FullPages {
		rd.after = g.chats[rd.chat].fullPageAfter(rd.after, g.cfg.SyncLimit)
	}
	g.syncInvoke(p, rd.chat, rd.after)
	g.res.Syncs++
	rd.busy = true
	g.setBusy(p)
}

// synced moves rd's cursor past what its sync (ok at the current line)
// returned, and notes what the sync saw: allocations below its last
// sequence that are not committed yet will be late commits, and messages
// committed but not yet acknowledged were returned.
func (g *gen) synced(rd *reader, seqs []uint64) {
	if len(seqs) == 0 {
		return
	}
	after, top := rd.after, seqs[len(seqs)-1]
	rd.cursor[rd.chat] = top
	for k := range g.writers {
		w := &g.writers[k]
		if w.chat != rd.chat || w.seq <= after || w.seq > top {
			continue
		}
		switch {
		case w.phase == wCommit && w.seq < top:
			w.late = true
		case w.phase == wAck && w.seenBy == 0:
			w.seenBy = g.line
		}
	}
}

// staleSync places the broken sync, if reader i can: a message committed,
// returned by a finished sync and not yet acknowledged, above i's cursor
// and within the page i would get. The sync is invoked and answered at
// once, without that message.
func (g *gen) staleSync(i int) bool {
	rd := &g.readers[i]
	for k := range g.writers {
		w := &g.writers[k]
		if w.phase != wAck || w.crash || w.seenBy == 0 || rd.cursor[w.chat] >= w.seq {
			continue
		}
		after := rd.cursor[w.chat]
		seqs := g.chats[w.chat].page(g.pageBuf[:0], after, g.cfg.SyncLimit+1)
		at := -1
		for j, s := range seqs[:min(len(seqs), g.cfg.SyncLimit)] {
			if s == w.seq {
				at = j
			}
		}
		if at < 0 {
			continue
		}
		// Without the message, and a full page still full.
		seqs = append(seqs[:at], seqs[at+1:]...)
		seqs = seqs[:min(len(seqs), g.cfg.SyncLimit)]
		p := len(g.writers) + i
		rd.chat, rd.after = w.chat, after
		g.syncInvoke(p, rd.chat, after)
		invokeLine := g.line
		g.syncOK(p, rd.chat, seqs)
		g.res.Syncs++
		g.res.Stale = &Stale{
			Chat: string(g.chats[w.chat].name[1 : len(g.chats[w.chat].name)-1]), Seq: w.seq,
			InvokeLine: invokeLine, OKLine: g.line, EarlierSyncLine: w.seenBy, PersistInvokeLine: w.invokeLine,
		}
		g.staleProc = k
		if !w.late && len(seqs) > 0 && w.seq < seqs[len(seqs)-1] {
			g.res.LateCommits++ // below what the sync returned, and not in it
		}
		g.synced(rd, seqs)
		return true
	}
	return false
}

// finals writes the final counters, messages and idempotency tables,
// each with its table_read line: the simulated store was read whole.
func (g *gen) finals() {
	for i := range g.chats {
		g.finalCounter(&g.chats[i])
	}
	g.tableRead(`"counters"`, len(g.chats))
	for _, table := range []string{`"messages"`, `"idempotency"`} {
		n := 0
		for i := range g.chats {
			c := &g.chats[i]
			for s, key := range c.keys {
				if g.stopped {
					return
				}
				if key != 0 {
					g.finalMessage(table, i, c, uint64(s+1), key)
					n++
				}
			}
		}
		g.tableRead(table, n)
	}
	if g.cfg.Partitions > 0 {
		g.finalEvents()
	}
}

// finalEvents writes the topic as read back: partition by partition, each
// in offset order, the messages in the order they committed.
func (g *gen) finalEvents() {
	parts := uint64(g.cfg.Partitions)
	for p := range parts {
		var offset int64
		for _, ev := range g.events {
			if g.stopped {
				return
			}
			if c := ev >> 40; c%parts == p {
				g.finalEvent(int(c), ev&(maxSeq-1), int32(p), offset)
				offset++
			}
		}
	}
	g.res.Events = len(g.events)
	g.tableRead(`"events"`, len(g.events))
}
