package histgen

import (
	"strconv"

	"github.com/chatseq/chatseq/internal/mix"
)

// Lines are encoded by hand, in the field order history's recorder writes
// (see history/FORMAT.md). Every string the generator writes is plain
// ASCII (chat and sender names, keys, message ids, hex hashes, error
// codes), so none needs escaping.

// packKey packs writer w's n-th key ("w<w>-m<n>", n from 1): never 0.
func packKey(w int, n uint64) uint64 { return uint64(w)<<40 | n }

func appendKey(b []byte, key uint64) []byte {
	b = append(b, "\"w"...)
	b = strconv.AppendUint(b, key>>40, 10)
	b = append(b, "-m"...)
	b = strconv.AppendUint(b, key&(1<<40-1), 10)
	return append(b, '"')
}

// payloadHash is FNV-1a over the message's content, "message " and its key,
// as chatseq bench hashes it.
func payloadHash(key uint64) uint64 {
	var scratch [48]byte
	content := append(scratch[:0], "message w"...)
	content = strconv.AppendUint(content, key>>40, 10)
	content = append(content, "-m"...)
	content = strconv.AppendUint(content, key&(1<<40-1), 10)
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for _, c := range content {
		h ^= uint64(c)
		h *= prime64
	}
	return h
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// idEpochMillis is 2026-01-01T00:00:00Z: the timestamp part of every
// message id counts milliseconds from there.
const idEpochMillis = 1_767_225_600_000

// appendMessageID appends the id of chat c's message at seq, a ULID with
// the "msg_" prefix as the sequencer makes them. It is a function of
// (seed, chat, seq), so a sync can name any message without a table of
// ids; the low 64 bits are a bijection of (chat, seq), so ids never repeat.
func (g *gen) appendMessageID(b []byte, c int, seq uint64) []byte {
	hi := (idEpochMillis+seq)<<16 | g.idSalt>>48
	lo := mix.Mix64(uint64(c)<<40 | seq ^ g.idSalt)
	var text [26]byte
	for i := 25; i >= 0; i-- {
		text[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	b = append(b, "\"msg_"...)
	b = append(b, text[:]...)
	return append(b, '"')
}

func appendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	var hex [16]byte
	i := len(hex)
	for {
		i--
		hex[i] = digits[v&0xF]
		if v >>= 4; v == 0 {
			return append(b, hex[i:]...)
		}
	}
}

// begin starts an operation or trace line: a new line, a later time.
func (g *gen) begin(kind string, p int, f string) {
	g.line++
	g.now += g.step
	b := append(g.buf, `{"type":"`...)
	b = append(b, kind...)
	b = append(b, `","process":`...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, `,"f":"`...)
	b = append(b, f...)
	b = append(b, `","time":`...)
	g.buf = strconv.AppendInt(b, g.now, 10)
}

// end finishes a line and writes the buffer out when it is full.
func (g *gen) end() {
	g.buf = append(g.buf, "}\n"...)
	if len(g.buf) >= flushSize {
		g.flush()
	}
}

// flush hands the buffer to the output goroutine and takes an empty one.
func (g *gen) flush() {
	if len(g.buf) > 0 {
		g.buf = g.out.write(g.buf)
		g.stopped = g.out.failed.Load()
	}
	g.res.Lines = g.line
}

func (g *gen) header() {
	c := &g.cfg
	b := append(g.buf, `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"return-original"}`...)
	b = append(b, `,"target":"simulated ADR-004 sequencer","scenario":"`...)
	if c.Hot {
		b = append(b, "hot chat"...)
	} else {
		b = append(b, "many chats"...)
	}
	if g.zipf != nil {
		b = append(b, ", zipf"...)
	}
	if c.FullPages {
		b = append(b, ", full pages"...)
	}
	if c.Partitions > 0 {
		b = append(b, ", events in commit order"...)
	}
	if c.StaleSync {
		b = append(b, ", one stale sync"...)
	}
	b = append(b, `","seed":`...)
	b = strconv.AppendInt(b, c.Seed, 10)
	// The simulated clients are the only writers of the simulated store.
	b = append(b, `,"sole_writer":true`...)
	b = append(b, `,"generator":"chatseq internal/histgen","histgen":{"persists":`...)
	b = strconv.AppendInt(b, int64(c.Persists), 10)
	b = append(b, `,"chats":`...)
	b = strconv.AppendInt(b, int64(len(g.chats)), 10)
	b = append(b, `,"hot":`...)
	b = strconv.AppendBool(b, c.Hot)
	b = append(b, `,"writers":`...)
	b = strconv.AppendInt(b, int64(c.Writers), 10)
	b = append(b, `,"readers":`...)
	b = strconv.AppendInt(b, int64(c.Readers), 10)
	b = append(b, `,"sync_share":`...)
	b = strconv.AppendFloat(b, c.SyncShare, 'g', -1, 64)
	b = append(b, `,"sync_limit":`...)
	b = strconv.AppendInt(b, int64(c.SyncLimit), 10)
	b = append(b, `,"crash_after_allocate":`...)
	b = strconv.AppendFloat(b, c.CrashAfterAllocate, 'g', -1, 64)
	b = append(b, `,"crash_after_persist":`...)
	b = strconv.AppendFloat(b, c.CrashAfterPersist, 'g', -1, 64)
	b = append(b, `,"replay":`...)
	b = strconv.AppendFloat(b, c.Replay, 'g', -1, 64)
	b = append(b, `,"stale_sync":`...)
	b = strconv.AppendBool(b, c.StaleSync)
	// The profiles' fields only where set, so that a default history
	// stays byte for byte what it was.
	if c.Zipf > 0 {
		b = append(b, `,"zipf":`...)
		b = strconv.AppendFloat(b, c.Zipf, 'g', -1, 64)
	}
	if c.Partitions > 0 {
		b = append(b, `,"partitions":`...)
		b = strconv.AppendInt(b, int64(c.Partitions), 10)
	}
	if c.FullPages {
		b = append(b, `,"full_pages":true`...)
	}
	g.buf = append(b, "}}\n"...)
	g.line++
}

// persistInvoke writes w's persist invoke and returns its line and time.
func (g *gen) persistInvoke(w *writer) (int, int64) {
	g.begin("invoke", w.pid, "persist")
	b := append(g.buf, `,"chat":`...)
	b = append(b, g.chats[w.chat].name...)
	b = append(b, `,"key":`...)
	b = appendKey(b, w.key)
	b = append(b, `,"sender":`...)
	b = append(b, w.sender...)
	b = append(b, `,"payload_hash":"`...)
	b = appendHex(b, payloadHash(w.key))
	g.buf = append(b, '"')
	g.end()
	return g.line, g.now
}

// allocateTrace writes w's allocation. The call is taken to start halfway
// through the persist so far, so allocations overlap as they do in a real
// run; the counter moved at the line's time, inside that interval.
func (g *gen) allocateTrace(w *writer) {
	g.begin("trace", w.pid, "allocate")
	start := g.now - (g.now-w.invokeTime)/2
	b := append(g.buf, `,"chat":`...)
	b = append(b, g.chats[w.chat].name...)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, w.seq, 10)
	b = append(b, `,"start":`...)
	g.buf = strconv.AppendInt(b, start, 10)
	g.end()
}

func (g *gen) persistChatKey(w *writer, kind string) {
	g.begin(kind, w.pid, "persist")
	b := append(g.buf, `,"chat":`...)
	b = append(b, g.chats[w.chat].name...)
	b = append(b, `,"key":`...)
	g.buf = appendKey(b, w.key)
}

func (g *gen) persistInfo(w *writer, code string) {
	g.persistChatKey(w, "info")
	b := append(g.buf, `,"error":"`...)
	b = append(b, code...)
	g.buf = append(b, '"')
	g.end()
}

func (g *gen) persistOK(w *writer, dedup bool) {
	g.persistChatKey(w, "ok")
	b := append(g.buf, `,"seq":`...)
	b = strconv.AppendUint(b, w.seq, 10)
	b = append(b, `,"message_id":`...)
	b = g.appendMessageID(b, w.chat, w.seq)
	b = append(b, `,"dedup":`...)
	g.buf = strconv.AppendBool(b, dedup)
	g.end()
}

func (g *gen) syncInvoke(p, c int, after uint64) {
	g.begin("invoke", p, "sync")
	b := append(g.buf, `,"chat":`...)
	b = append(b, g.chats[c].name...)
	b = append(b, `,"after":`...)
	b = strconv.AppendUint(b, after, 10)
	b = append(b, `,"limit":`...)
	g.buf = strconv.AppendInt(b, int64(g.cfg.SyncLimit), 10)
	g.end()
}

func (g *gen) syncOK(p, c int, seqs []uint64) {
	g.res.Returned += len(seqs)
	g.begin("ok", p, "sync")
	b := append(g.buf, `,"chat":`...)
	b = append(b, g.chats[c].name...)
	b = append(b, `,"seqs":[`...)
	for i, s := range seqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, s, 10)
	}
	b = append(b, `],"message_ids":[`...)
	for i, s := range seqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = g.appendMessageID(b, c, s)
	}
	g.buf = append(b, ']')
	g.end()
}

func (g *gen) finalCounter(c *chat) {
	g.line++
	b := append(g.buf, `{"type":"final","table":"counters","chat":`...)
	b = append(b, c.name...)
	b = append(b, `,"value":`...)
	g.buf = strconv.AppendUint(b, c.counter, 10)
	g.end()
}

// tableRead writes a table_read line (table quoted): the table was read
// and lines of it are in the file.
func (g *gen) tableRead(table string, lines int) {
	g.line++
	b := append(g.buf, `{"type":"table_read","table":`...)
	b = append(b, table...)
	b = append(b, `,"lines":`...)
	g.buf = strconv.AppendInt(b, int64(lines), 10)
	g.end()
}

// finalMessage writes a messages or idempotency line (table quoted).
func (g *gen) finalMessage(table string, ci int, c *chat, seq, key uint64) {
	g.line++
	b := append(g.buf, `{"type":"final","table":`...)
	b = append(b, table...)
	b = append(b, `,"chat":`...)
	b = append(b, c.name...)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"message_id":`...)
	b = g.appendMessageID(b, ci, seq)
	b = append(b, `,"key":`...)
	g.buf = appendKey(b, key)
	g.end()
}

// finalEvent writes an events line: chat c's message at seq, at offset of
// partition p.
func (g *gen) finalEvent(c int, seq uint64, p int32, offset int64) {
	g.line++
	b := append(g.buf, `{"type":"final","table":"events","chat":`...)
	b = append(b, g.chats[c].name...)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"message_id":`...)
	b = g.appendMessageID(b, c, seq)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, `,"offset":`...)
	g.buf = strconv.AppendInt(b, offset, 10)
	g.end()
}
