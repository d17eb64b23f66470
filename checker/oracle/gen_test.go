package oracle

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// gHist is a generated history, kept structured so that the harness can
// shrink it and write it again.
type gHist struct {
	gapsForbidden, reject, client, sole bool
	initial                             uint64
	tableRead                           bool // write table_read lines (once the reader knows them)
	// say: which of what each returned message carried sync ok lines
	// write (1 keys, 2 senders, 4 payload_hashes; 0 none)
	say      int
	readLast bool // a table_read line after its table's lines
	read     map[string]bool
	ops      []gOp
	finals   []gFinal
}

type gOp struct {
	process          int
	chat, f          string
	invoke, complete int64
	outcome          string // ok, fail, info, or "" (never completed)
	key, sender      string
	payload          string
	seq              uint64
	mid              string
	dedup            bool
	errCode          string
	after, limit     uint64
	page             bool // a sync asking for the page after its process's last one
	seqs             []uint64
	mids             []string
	shown            []gShown // paired with seqs: what each returned message carried
}

// gShown is what a sync showed a message carried; "" shows nothing.
type gShown struct{ key, sender, payload string }

// removeAt, insertAt and swapAt change a sync's answer, keeping what it
// showed of each message with it (an inserted message shows nothing).
func (op *gOp) removeAt(i int) {
	op.seqs = append(op.seqs[:i:i], op.seqs[i+1:]...)
	op.mids = append(op.mids[:i:i], op.mids[i+1:]...)
	if op.shown != nil {
		op.shown = append(op.shown[:i:i], op.shown[i+1:]...)
	}
}

func (op *gOp) insertAt(i int, seq uint64, mid string) {
	op.seqs = append(op.seqs[:i:i], append([]uint64{seq}, op.seqs[i:]...)...)
	op.mids = append(op.mids[:i:i], append([]string{mid}, op.mids[i:]...)...)
	if op.shown != nil {
		op.shown = append(op.shown[:i:i], append([]gShown{{}}, op.shown[i:]...)...)
	}
}

func (op *gOp) swapAt(i int) {
	op.seqs[i], op.seqs[i+1] = op.seqs[i+1], op.seqs[i]
	op.mids[i], op.mids[i+1] = op.mids[i+1], op.mids[i]
	if op.shown != nil {
		op.shown[i], op.shown[i+1] = op.shown[i+1], op.shown[i]
	}
}

type gFinal struct {
	table, chat string
	seq         uint64
	mid, key    string
	sender      string
	payload     string // messages: the stored content's payload_hash, "" not given
	value       uint64
	missing     bool
}

func (h *gHist) clone() *gHist {
	c := *h
	c.read = map[string]bool{}
	for t, r := range h.read {
		c.read[t] = r
	}
	c.ops = append([]gOp{}, h.ops...)
	for i := range c.ops {
		c.ops[i].seqs = append([]uint64{}, h.ops[i].seqs...)
		c.ops[i].mids = append([]string{}, h.ops[i].mids...)
		if h.ops[i].shown != nil {
			c.ops[i].shown = append([]gShown{}, h.ops[i].shown...)
		}
	}
	c.finals = append([]gFinal{}, h.finals...)
	return &c
}

// dropLines removes every final line of a table.
func (h *gHist) dropLines(table string) {
	kept := h.finals[:0:0]
	for _, f := range h.finals {
		if f.table != table {
			kept = append(kept, f)
		}
	}
	h.finals = kept
}

// encode writes h as JSONL exactly as history/FORMAT.md gives the lines.
func (h *gHist) encode() []byte {
	var b strings.Builder
	b.WriteString(`{"format":"chatseq-history","version":1`)
	var con []string
	if h.gapsForbidden {
		con = append(con, `"gaps":"forbidden"`)
	} else {
		con = append(con, `"gaps":"allowed"`)
	}
	if h.reject {
		con = append(con, `"key_reuse":"reject"`)
	}
	if h.client {
		con = append(con, `"key_scope":"client"`)
	}
	fmt.Fprintf(&b, `,"contract":{%s}`, strings.Join(con, ","))
	if h.initial > 0 {
		fmt.Fprintf(&b, `,"initial_counter":%d`, h.initial)
	}
	if h.sole {
		b.WriteString(`,"sole_writer":true`)
	}
	b.WriteString("}\n")
	type ev struct {
		time  int64
		order int // completions before invokes at one time
		line  string
	}
	var evs []ev
	for _, op := range h.ops {
		evs = append(evs, ev{op.invoke, 1, op.invokeLine()})
		if op.outcome != "" {
			evs = append(evs, ev{op.complete, 0, op.completionLine(h.say)})
		}
	}
	sort.SliceStable(evs, func(a, c int) bool {
		if evs[a].time != evs[c].time {
			return evs[a].time < evs[c].time
		}
		return evs[a].order < evs[c].order
	})
	for _, e := range evs {
		b.WriteString(e.line)
		b.WriteByte('\n')
	}
	for _, table := range []string{"counters", "messages", "idempotency"} {
		n := 0
		for _, f := range h.finals {
			if f.table == table {
				n++
			}
		}
		readLine := ""
		if h.tableRead && h.read[table] {
			readLine = fmt.Sprintf(`{"type":"table_read","table":%q,"lines":%d}`+"\n", table, n)
		}
		if !h.readLast {
			b.WriteString(readLine)
		}
		for _, f := range h.finals {
			if f.table == table {
				b.WriteString(f.line())
				b.WriteByte('\n')
			}
		}
		if h.readLast {
			b.WriteString(readLine) // FORMAT.md: before, between or after
		}
	}
	return []byte(b.String())
}

func (op *gOp) invokeLine() string {
	if op.f == "sync" {
		return fmt.Sprintf(`{"type":"invoke","process":%d,"f":"sync","time":%d,"chat":%q,"after":%d,"limit":%d}`,
			op.process, op.invoke, op.chat, op.after, op.limit)
	}
	s := fmt.Sprintf(`{"type":"invoke","process":%d,"f":"persist","time":%d,"chat":%q,"key":%q`,
		op.process, op.invoke, op.chat, op.key)
	if op.sender != "" {
		s += fmt.Sprintf(`,"sender":%q`, op.sender)
	}
	return s + fmt.Sprintf(`,"payload_hash":%q}`, op.payload)
}

func (op *gOp) completionLine(say int) string {
	s := fmt.Sprintf(`{"type":%q,"process":%d,"f":%q,"time":%d`, op.outcome, op.process, op.f, op.complete)
	switch {
	case op.outcome != "ok":
		if op.errCode != "" {
			s += fmt.Sprintf(`,"error":%q`, op.errCode)
		}
	case op.f == "persist":
		s += fmt.Sprintf(`,"seq":%d,"message_id":%q,"dedup":%v`, op.seq, op.mid, op.dedup)
	default:
		seqs := make([]string, len(op.seqs))
		mids := make([]string, len(op.mids))
		for i := range op.seqs {
			seqs[i] = fmt.Sprint(op.seqs[i])
			mids[i] = fmt.Sprintf("%q", op.mids[i])
		}
		s += fmt.Sprintf(`,"seqs":[%s],"message_ids":[%s]`, strings.Join(seqs, ","), strings.Join(mids, ","))
		s += op.shownFields(say)
	}
	return s + "}"
}

// shownFields writes what the sync showed of each message, the arrays say
// names (FORMAT.md: keys, senders, payload_hashes on a sync ok).
func (op *gOp) shownFields(say int) string {
	if op.shown == nil || len(op.seqs) == 0 {
		return ""
	}
	s := ""
	for bit, name := range []string{"keys", "senders", "payload_hashes"} {
		if say&(1<<bit) == 0 {
			continue
		}
		vs := make([]string, len(op.shown))
		for i, sh := range op.shown {
			vs[i] = fmt.Sprintf("%q", [3]string{sh.key, sh.sender, sh.payload}[bit])
		}
		s += fmt.Sprintf(`,%q:[%s]`, name, strings.Join(vs, ","))
	}
	return s
}

func (f *gFinal) line() string {
	switch f.table {
	case "counters":
		if f.missing {
			return fmt.Sprintf(`{"type":"final","table":"counters","chat":%q,"missing":true}`, f.chat)
		}
		return fmt.Sprintf(`{"type":"final","table":"counters","chat":%q,"value":%d}`, f.chat, f.value)
	case "messages":
		s := fmt.Sprintf(`{"type":"final","table":"messages","chat":%q,"seq":%d,"message_id":%q,"key":%q`, f.chat, f.seq, f.mid, f.key)
		if f.sender != "" {
			s += fmt.Sprintf(`,"sender":%q`, f.sender)
		}
		if f.payload != "" {
			s += fmt.Sprintf(`,"payload_hash":%q`, f.payload)
		}
		return s + "}"
	default:
		s := fmt.Sprintf(`{"type":"final","table":"idempotency","chat":%q,"key":%q,"seq":%d,"message_id":%q`, f.chat, f.key, f.seq, f.mid)
		if f.sender != "" {
			s += fmt.Sprintf(`,"sender":%q`, f.sender)
		}
		return s + "}"
	}
}

// The simulated sequencer: a correct one, two-phase under gaps allowed
// (allocate, later commit; sequence 12 may commit before 11), assigning
// at commit time under gaps forbidden.

type simMsg struct {
	seq                  uint64
	mid, key, sender, ph string
}

type simChat struct {
	name    string
	counter uint64
	msgs    []simMsg // sorted by seq
}

func (c *simChat) top(initial uint64) uint64 {
	t := initial
	for _, m := range c.msgs {
		if m.seq > t {
			t = m.seq
		}
	}
	return t
}

func (c *simChat) byKey(key, sender string, client bool) (simMsg, bool) {
	for _, m := range c.msgs {
		if m.key == key && (!client || m.sender == sender) {
			return m, true
		}
	}
	return simMsg{}, false
}

func (c *simChat) add(m simMsg) {
	c.msgs = append(c.msgs, m)
	sort.Slice(c.msgs, func(a, b int) bool { return c.msgs[a].seq < c.msgs[b].seq })
}

// plan is one operation's hidden schedule.
type plan struct {
	op          int    // index in h.ops
	alloc       int64  // gaps allowed: when the counter hands out its sequence
	effect      int64  // when it commits or reads
	takesEffect bool   // info and unfinished: whether the effect happens
	allocSeq    uint64 // filled by the simulation
	chat        *simChat
}

// generateCorrect records a run of a correct sequencer: the sole writer,
// or beside other writers when the header does not claim it.
func generateCorrect(r *rand.Rand, tableRead bool) *gHist {
	h := &gHist{
		gapsForbidden: r.IntN(3) == 0,
		reject:        r.IntN(3) == 0,
		client:        r.IntN(3) == 0,
		sole:          r.IntN(2) == 0,
		tableRead:     tableRead,
		readLast:      r.IntN(3) == 0,
		read:          map[string]bool{},
	}
	if r.IntN(2) == 0 {
		h.say = 1 + r.IntN(7)
	}
	if r.IntN(3) == 0 {
		h.initial = uint64(1 + r.IntN(4))
	}
	nChats := 1
	if r.IntN(4) == 0 {
		nChats = 2
	}
	var chats []*simChat
	var plans []plan
	var foreign []foreignPlan
	proc := 0
	for ci := 0; ci < nChats; ci++ {
		c := &simChat{name: fmt.Sprintf("c%d", ci+1), counter: h.initial}
		chats = append(chats, c)
		h.preRun(r, c)
		budget := 2 + r.IntN(7)
		if nChats == 2 {
			budget = 1 + r.IntN(4)
		}
		nProc := 1 + r.IntN(3)
		clocks := make([]int64, nProc)
		gone := make([]bool, nProc) // a never-completed operation ends its process
		keys := []string{}
		for _, m := range c.msgs {
			keys = append(keys, m.key)
		}
		for n := 0; n < budget; n++ {
			p := r.IntN(nProc)
			if gone[p] {
				continue
			}
			op := gOp{process: proc + p + 1, chat: c.name}
			op.invoke = clocks[p] + int64(r.IntN(3))
			dur := int64(1 + r.IntN(6))
			op.complete = op.invoke + dur
			clocks[p] = op.complete
			pl := plan{op: len(h.ops), chat: c, effect: op.invoke + int64(r.IntN(int(dur)+1))}
			if r.IntN(10) < 6 {
				op.f = "persist"
				op.key, op.sender, op.payload = h.pickKey(r, &keys)
				pl.alloc = op.invoke + int64(r.IntN(int(pl.effect-op.invoke)+1))
			} else {
				op.f = "sync"
				op.after, op.limit = h.pickRange(r)
				op.page = r.IntN(2) == 0
			}
			switch x := r.IntN(10); {
			case x < 6:
				op.outcome = "ok"
				pl.takesEffect = true
			case x < 7 && op.f == "persist":
				op.outcome, op.errCode = "fail", []string{"crash_after_allocate", "not_a_member", "timeout"}[r.IntN(3)]
			case x < 7:
				op.outcome, op.errCode = "fail", "timeout"
			case x < 9:
				op.outcome, op.errCode = "info", "timeout"
				pl.takesEffect = r.IntN(2) == 0
				if pl.takesEffect && r.IntN(3) == 0 {
					pl.effect = op.complete + int64(r.IntN(4)) // still in flight
				}
			default:
				op.outcome = "" // never completed: the run ended first
				pl.takesEffect = r.IntN(2) == 0
				gone[p] = true
			}
			h.ops = append(h.ops, op)
			plans = append(plans, pl)
		}
		proc += nProc
		if !h.sole { // other writers: a sole writer's phantom is a mutation
			for n := r.IntN(3); n > 0; n-- {
				foreign = append(foreign, foreignPlan{chat: c, at: int64(r.IntN(20))})
			}
		}
	}
	h.simulate(r, plans, foreign)
	h.writeFinals(r, chats)
	return h
}

// generate builds one random history, correct or (with a mutation) perhaps
// not: the oracle decides.
func generate(r *rand.Rand, tableRead bool) *gHist {
	h := generateCorrect(r, tableRead)
	if r.IntN(5) < 2 {
		mutate(r, h)
		if r.IntN(4) == 0 {
			mutate(r, h)
		}
	}
	return h
}

type foreignPlan struct {
	chat *simChat
	at   int64
}

// preRun fills a chat's messages from before the run (at or below the
// initial counter), some under keys the run's persists will reuse.
func (h *gHist) preRun(r *rand.Rand, c *simChat) {
	for seq := uint64(1); seq <= h.initial; seq++ {
		if r.IntN(2) == 0 {
			continue
		}
		m := simMsg{seq: seq, mid: fmt.Sprintf("pm%d%s", seq, c.name), key: fmt.Sprintf("p%d", seq)}
		m.ph = "h" + m.key
		if h.client {
			m.sender = "s1"
		}
		c.add(m)
	}
}

// pickKey: mostly a few keys retried, reused with other content, shared by
// two senders.
func (h *gHist) pickKey(r *rand.Rand, keys *[]string) (key, sender, payload string) {
	if len(*keys) == 0 || r.IntN(3) == 0 {
		key = fmt.Sprintf("k%d", len(*keys)+1)
		*keys = append(*keys, key)
	} else {
		key = (*keys)[r.IntN(len(*keys))]
	}
	payload = "h" + key
	if r.IntN(4) == 0 {
		payload += "x" // the key reused with other content
	}
	switch {
	case h.client:
		sender = []string{"s1", "s2"}[r.IntN(2)]
	case r.IntN(3) == 0:
		sender = []string{"s1", "s2"}[r.IntN(2)]
	}
	return key, sender, payload
}

func (h *gHist) pickRange(r *rand.Rand) (after, limit uint64) {
	switch r.IntN(4) {
	case 0, 1:
		after = 0
	case 2:
		after = h.initial
	default:
		after = uint64(r.IntN(5))
	}
	if r.IntN(2) == 0 {
		limit = uint64(1 + r.IntN(3))
	}
	return after, limit
}

type simEvent struct {
	time  int64
	rank  int // allocations first at one time, then effects
	plan  int // -1: a foreign writer's
	fp    foreignPlan
	alloc bool
}

func (h *gHist) simulate(r *rand.Rand, plans []plan, foreign []foreignPlan) {
	var evs []simEvent
	for i, pl := range plans {
		op := &h.ops[pl.op]
		if op.f == "persist" && !h.gapsForbidden && (pl.takesEffect || op.outcome == "fail" && op.errCode == "crash_after_allocate") {
			evs = append(evs, simEvent{time: pl.alloc, rank: 0, plan: i, alloc: true})
		}
		if pl.takesEffect {
			evs = append(evs, simEvent{time: pl.effect, rank: 1, plan: i})
		}
	}
	for _, fp := range foreign {
		evs = append(evs, simEvent{time: fp.at, rank: 1, plan: -1, fp: fp})
	}
	r.Shuffle(len(evs), func(a, b int) { evs[a], evs[b] = evs[b], evs[a] })
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].time != evs[b].time {
			return evs[a].time < evs[b].time
		}
		return evs[a].rank < evs[b].rank
	})
	lastPage := map[int]uint64{} // process -> the last sequence its ok syncs returned
	mids := 0
	newMid := func() string { mids++; return fmt.Sprintf("m%d", mids) }
	for _, e := range evs {
		if e.plan < 0 {
			c := e.fp.chat
			seq := c.top(h.initial) + 1
			if !h.gapsForbidden {
				c.counter++
				seq = c.counter
			}
			c.add(simMsg{seq: seq, mid: newMid(), key: fmt.Sprintf("f%d", mids), sender: "sf"})
			continue
		}
		pl := &plans[e.plan]
		c := pl.chat
		op := &h.ops[pl.op]
		if e.alloc {
			c.counter++
			pl.allocSeq = c.counter
			continue
		}
		if op.f == "sync" {
			if last, ok := lastPage[op.process]; ok && op.page {
				op.after = last
			}
			op.seqs, op.mids, op.shown = nil, nil, nil
			if h.say != 0 {
				op.shown = []gShown{}
			}
			for _, m := range c.msgs {
				if m.seq > op.after && (op.limit == 0 || uint64(len(op.seqs)) < op.limit) {
					op.seqs = append(op.seqs, m.seq)
					op.mids = append(op.mids, m.mid)
					if op.shown != nil {
						op.shown = append(op.shown, gShown{m.key, m.sender, m.ph})
					}
				}
			}
			if n := len(op.seqs); n > 0 && op.outcome == "ok" {
				lastPage[op.process] = op.seqs[n-1]
			}
			continue
		}
		if m, ok := c.byKey(op.key, op.sender, h.client); ok {
			if h.reject && m.ph != op.payload {
				if op.outcome == "ok" {
					op.outcome, op.errCode = "fail", "idempotency_key_reused"
				}
				continue
			}
			op.seq, op.mid, op.dedup = m.seq, m.mid, true
			continue
		}
		seq := pl.allocSeq
		if h.gapsForbidden {
			seq = c.top(h.initial) + 1
			c.counter = seq
		}
		op.seq, op.mid, op.dedup = seq, newMid(), false
		c.add(simMsg{seq: seq, mid: op.mid, key: op.key, sender: op.sender, ph: op.payload})
	}
}

// writeFinals reads some of the final tables: the state after the run.
func (h *gHist) writeFinals(r *rand.Rand, chats []*simChat) {
	// A third of the runs read no table: then only the operations, and
	// linearizability, can show a break.
	none := r.IntN(3) == 0
	for _, t := range []string{"messages", "idempotency", "counters"} {
		h.read[t] = !none && r.IntN(2) == 0
	}
	for _, c := range chats {
		if h.read["counters"] {
			v := c.counter
			if t := c.top(h.initial); t > v {
				v = t
			}
			if !h.gapsForbidden && r.IntN(4) == 0 {
				v += uint64(r.IntN(3)) // allocations no message kept
			}
			h.finals = append(h.finals, gFinal{table: "counters", chat: c.name, value: v})
		}
		for _, m := range c.msgs {
			sender := ""
			if h.client || r.IntN(3) == 0 {
				sender = m.sender
			}
			if h.read["messages"] {
				f := gFinal{table: "messages", chat: c.name, seq: m.seq, mid: m.mid, key: m.key, sender: sender}
				if r.IntN(2) == 0 {
					f.payload = m.ph // what its creating persist sent
				}
				h.finals = append(h.finals, f)
			}
			if h.read["idempotency"] {
				h.finals = append(h.finals, gFinal{table: "idempotency", chat: c.name, seq: m.seq, mid: m.mid, key: m.key, sender: sender})
			}
		}
	}
	if !h.tableRead {
		// Without table_read lines a table is read only when it has lines.
		for t := range h.read {
			h.read[t] = false
		}
		for _, f := range h.finals {
			h.read[f.table] = true
		}
	}
}
