package history

import (
	"unicode/utf8"
	"unsafe"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// A Tap hands the builder each recorded line as the decoder would have
// read it from the file, without the file: lineFast fills a parsedLine
// from the compact line of the Event the recorder encoded, writing the
// fields the encoder writes (encode.go) and nothing else. Only lines
// whose every value reads back as it was take this way: a string of
// invalid UTF-8 (written as U+FFFD), an unknown kind or function, or a
// number the reader refuses (a negative process, limit, partition or
// offset) is encoded and decoded instead, so the tap's lines are the
// file's in every case (TestTapLineIsTheDecodedLine).

// tapLine is one line a flush took, compact: what the encoder writes of
// an operation or trace line, by kind (a persist's, a sync's and a trace's
// fields share places), its time stamped; or a final line recorded one at
// a time; or a receiver line; or, whole, an event whose kind and function
// the compact form does not hold. A flush's lines are copied twice and
// read once, and an Event is 192 bytes: the compact line is 104, with one
// pointer (ref, what refIs says) where four would cost a writer 24 bytes
// and three write barriers a line more.
type tapLine struct {
	chat, key string
	s1, s2    string // invoke persist: sender, payload hash; completion: message id (persist ok) or error (fail, info)
	time      int64
	num       uint64 // trace, persist ok: seq; sync invoke: after
	aux       int64  // trace: start; sync invoke: limit
	ref       unsafe.Pointer
	process   int32
	kind      Kind
	f         uint8 // tapPersist, tapSync, tapAllocate
	flags     uint8 // tapHasStart, tapDedup, tapReader
	refIs     uint8 // refSync, refFinal, refEvent, refReceiver
}

// What a tapLine's ref points to.
const (
	refSync     uint8 = iota + 1 // *SyncResult: a sync ok's answer
	refFinal                     // *Final: a final line recorded one at a time
	refEvent                     // *Event: a line the compact form does not hold
	refReceiver                  // *Receiver: a receiver line (receiver_write.go)
)

func finalTapLine(f *Final) tapLine       { return tapLine{ref: unsafe.Pointer(f), refIs: refFinal} }
func receiverTapLine(r *Receiver) tapLine { return tapLine{ref: unsafe.Pointer(r), refIs: refReceiver} }

// syncResult, final, whole and receiver are what ref points to, or nil
// where it points to something else.
func (l *tapLine) syncResult() *SyncResult { return (*SyncResult)(l.refTo(refSync)) }
func (l *tapLine) final() *Final           { return (*Final)(l.refTo(refFinal)) }
func (l *tapLine) whole() *Event           { return (*Event)(l.refTo(refEvent)) }
func (l *tapLine) receiver() *Receiver     { return (*Receiver)(l.refTo(refReceiver)) }

func (l *tapLine) refTo(is uint8) unsafe.Pointer {
	if l.refIs != is {
		return nil
	}
	return l.ref
}

// The functions a compact line names, and its flags.
const (
	tapPersist uint8 = iota + 1
	tapSync
	tapAllocate
)

const (
	tapHasStart uint8 = 1 << iota
	tapDedup
	tapReader
	// tapPlain: the encoder wrote each of the line's strings (but for a
	// sync's answer) as it is, plain ASCII, so each is valid UTF-8.
	tapPlain
)

var tapFNames = [...]string{tapPersist: FPersist, tapSync: FSync, tapAllocate: FAllocate}

// tapLineOf is e's line stamped t: compact when it can be, else e whole;
// plain says the encoder found its strings plain (tapPlain). It is built
// here and returned, not built in place: the recorder's line buffers are
// cold by the time a writer comes back to them, and a line built in place
// began with a load from it (the nil check), a cache miss the writer
// waited for, 5% of a run's CPU; stores alone do not wait.
func tapLineOf(e *Event, t int64, plain bool) tapLine {
	var l tapLine
	if !l.compact(e, t) {
		ev := new(Event)
		*ev = *e
		ev.Time = t
		return tapLine{ref: unsafe.Pointer(ev), refIs: refEvent}
	}
	if plain {
		l.flags |= tapPlain
	}
	return l
}

// compact makes l e's line stamped t and reports whether the compact form
// holds it: a trace of an allocation, or an operation line of a persist or
// a sync, of a process that fits 32 bits.
func (l *tapLine) compact(e *Event, t int64) bool {
	var f uint8
	switch e.F {
	case FPersist:
		f = tapPersist
	case FSync:
		f = tapSync
	case FAllocate:
		f = tapAllocate
	default:
		return false
	}
	switch {
	case int(int32(e.Process)) != e.Process:
		return false
	case e.Kind == KindTrace:
		if f != tapAllocate {
			return false
		}
	case e.Kind >= KindInvoke && e.Kind <= KindInfo:
		if f == tapAllocate {
			return false
		}
	default:
		return false
	}
	*l = tapLine{chat: e.Chat, time: t, process: int32(e.Process), kind: e.Kind, f: f}
	switch e.Kind {
	case KindInvoke:
		if f == tapSync {
			l.num, l.aux, l.s1 = e.After, int64(e.Limit), e.Sender
			if e.Reader {
				l.flags = tapReader
			}
		} else {
			l.key, l.s1, l.s2 = e.Key, e.Sender, e.PayloadHash
		}
	case KindTrace:
		l.num, l.aux = e.Seq, e.Start
		if e.HasStart {
			l.flags = tapHasStart
		}
	default:
		l.key = e.Key
		switch {
		case e.Kind != KindOK:
			l.s1 = e.Error
		case f == tapSync:
			if e.Sync != nil {
				l.ref, l.refIs = unsafe.Pointer(e.Sync), refSync
			}
		default:
			l.num, l.s1 = e.Seq, e.MessageID
			if e.Dedup {
				l.flags = tapDedup
			}
		}
	}
	return true
}

// event is the Event of a compact line, with every field the encoder
// writes of it: it encodes as the line recorded did.
func (l *tapLine) event() Event {
	e := Event{Kind: l.kind, Process: int(l.process), F: tapFNames[l.f], Time: l.time, Chat: l.chat}
	switch l.kind {
	case KindInvoke:
		if l.f == tapSync {
			e.After, e.Limit, e.Reader, e.Sender = l.num, int(l.aux), l.flags&tapReader != 0, l.s1
		} else {
			e.Key, e.Sender, e.PayloadHash = l.key, l.s1, l.s2
		}
	case KindTrace:
		e.Seq, e.Start, e.HasStart = l.num, l.aux, l.flags&tapHasStart != 0
	default:
		e.Key = l.key
		switch {
		case l.kind != KindOK:
			e.Error = l.s1
		case l.f == tapSync:
			e.Sync = l.syncResult()
		default:
			e.Seq, e.MessageID, e.Dedup = l.num, l.s1, l.flags&tapDedup != 0
		}
	}
	return e
}

// tapDecoder turns recorded lines into parsedLines for one Tap.
type tapDecoder struct {
	hashID  func([]byte) uint64
	hashes  jsonscan.Carver[uint64] // sync answers' id hashes, exact-length copies
	scratch []uint64
	slow    *lineDecoder // the lines the fast way cannot vouch for
	enc     []byte
	// asWritten sends every line the general way, as the file holds it:
	// set while a credential may be written as a stand-in (Tap.read).
	asWritten bool
}

func newTapDecoder(file string, hashID func([]byte) uint64) *tapDecoder {
	return &tapDecoder{hashID: hashID, slow: newLineDecoder(file, hashID)}
}

// event fills pl with e as line lineNo reads back from the file.
func (d *tapDecoder) event(e *Event, lineNo int, pl *parsedLine) error {
	var l tapLine
	if !d.asWritten && l.compact(e, e.Time) {
		return d.line(&l, lineNo, pl)
	}
	d.enc = appendEvent(d.enc[:0], e)
	return d.decode(lineNo, pl)
}

// line fills pl with a compact line as line lineNo reads back.
func (d *tapDecoder) line(l *tapLine, lineNo int, pl *parsedLine) error {
	if !d.asWritten && d.lineFast(l, lineNo, pl) {
		return nil
	}
	e := l.event()
	d.enc = appendEvent(d.enc[:0], &e)
	return d.decode(lineNo, pl)
}

// final fills pl with f as line lineNo reads back from the file.
func (d *tapDecoder) final(f *Final, lineNo int, pl *parsedLine) error {
	if !d.asWritten && finalFast(f, lineNo, pl) {
		return nil
	}
	d.enc, _ = appendFinal(d.enc[:0], f)
	return d.decode(lineNo, pl)
}

// decode reads the line in d.enc as the reader does, errors included.
func (d *tapDecoder) decode(lineNo int, pl *parsedLine) error {
	line := d.enc[:len(d.enc)-1] // without its newline
	if err := d.slow.parse(line, lineNo, pl); err != nil {
		return errorAt(d.slow.file, lineNo, line, err)
	}
	return nil
}

func (d *tapDecoder) lineFast(l *tapLine, lineNo int, pl *parsedLine) bool {
	if l.process < 0 || !utf8.ValidString(l.chat) {
		return false
	}
	var sh *shape
	if l.kind == KindTrace {
		sh = traceAllocate
	} else {
		sh = operationShape(l.kind, tapFNames[l.f])
	}
	*pl = parsedLine{lineNo: lineNo, shape: sh, present: operation, kind: l.kind, f: tapFNames[l.f], process: int(l.process), time: l.time}
	switch l.kind {
	case KindInvoke:
		pl.chat = l.chat
		pl.present |= fields(fieldChat)
		if l.f == tapSync {
			if l.aux < 0 {
				return false
			}
			pl.after, pl.limit, pl.reader = l.num, int(l.aux), l.flags&tapReader != 0
			pl.present |= fields(fieldAfter, fieldLimit)
			if pl.reader {
				pl.present |= fields(fieldReader)
			}
			if l.s1 != "" {
				if !utf8.ValidString(l.s1) {
					return false
				}
				pl.user = l.s1
				pl.present |= fields(fieldUser)
			}
			return true
		}
		if !validUTF8(l.key, l.s1, l.s2) {
			return false
		}
		pl.key = l.key
		pl.present |= fields(fieldKey)
		if l.s1 != "" {
			pl.sender = l.s1
			pl.present |= fields(fieldSender)
		}
		if l.s2 != "" {
			pl.payloadHash = l.s2
			pl.present |= fields(fieldPayloadHash)
		}
	case KindTrace:
		pl.chat, pl.seq = l.chat, l.num
		pl.present |= fields(fieldChat, fieldSeq)
		if l.flags&tapHasStart != 0 {
			pl.start = l.aux
			pl.present |= fields(fieldStart)
		}
	default: // completions
		if l.chat != "" {
			pl.chat = l.chat
			pl.present |= fields(fieldChat)
		}
		if l.f != tapSync && l.key != "" {
			if !utf8.ValidString(l.key) {
				return false
			}
			pl.key = l.key
			pl.present |= fields(fieldKey)
		}
		switch {
		case l.kind != KindOK:
			if l.s1 != "" {
				if !utf8.ValidString(l.s1) {
					return false
				}
				pl.errorCode = l.s1
				pl.present |= fields(fieldError)
			}
		case l.f == tapSync:
			pl.present |= fields(fieldSeqs, fieldMessageIDs)
			return d.syncResult(l.syncResult(), pl)
		default:
			if !utf8.ValidString(l.s1) {
				return false
			}
			pl.seq, pl.messageID, pl.dedup = l.num, l.s1, l.flags&tapDedup != 0
			pl.present |= fields(fieldSeq, fieldMessageID, fieldDedup)
		}
	}
	return true
}

// syncResult fills a sync ok's answer as the reader reads it: empty
// arrays as nil, and the ids as hashes when the sink wants them.
func (d *tapDecoder) syncResult(r *SyncResult, pl *parsedLine) bool {
	if r == nil {
		return true
	}
	for _, ss := range [...][]string{r.MessageIDs, r.Keys, r.Senders, r.PayloadHashes} {
		for _, v := range ss {
			if !utf8.ValidString(v) {
				return false
			}
		}
	}
	if len(r.Seqs) > 0 {
		pl.seqs = r.Seqs
	}
	// As the encoder writes them: an array only where it has items.
	for _, f := range [...]struct {
		id  fieldID
		v   []string
		out *[]string
	}{{fieldKeys, r.Keys, &pl.keys}, {fieldSenders, r.Senders, &pl.senders}, {fieldPayloadHashes, r.PayloadHashes, &pl.payloadHashes}} {
		if len(f.v) > 0 {
			*f.out = f.v
			pl.present |= fields(f.id)
		}
	}
	switch {
	case len(r.MessageIDs) == 0:
	case d.hashID == nil:
		pl.messageIDs = r.MessageIDs
	default:
		hs := d.scratch[:0]
		for _, id := range r.MessageIDs {
			hs = append(hs, d.hashID(unsafe.Slice(unsafe.StringData(id), len(id))))
		}
		d.scratch = hs
		pl.idHashes = d.hashes.Take(hs)
	}
	return true
}

func finalFast(f *Final, lineNo int, pl *parsedLine) bool {
	if !utf8.ValidString(f.Chat) {
		return false
	}
	*pl = parsedLine{lineNo: lineNo, present: finalRow, kind: KindFinal, table: f.Table, chat: f.Chat}
	switch f.Table {
	case TableCounters:
		if f.Missing {
			pl.missing = true
			pl.present |= fields(fieldMissing)
		} else {
			pl.value = f.Value
			pl.present |= fields(fieldValue)
		}
	case TableEvents:
		if f.Partition < 0 || f.Offset < 0 || !utf8.ValidString(f.MessageID) {
			return false
		}
		pl.seq, pl.messageID, pl.partition, pl.offset = f.Seq, f.MessageID, f.Partition, f.Offset
		pl.present |= fields(fieldSeq, fieldMessageID, fieldPartition, fieldOffset)
	case TableMessages, TableIdempotency:
		if !validUTF8(f.MessageID, f.Key, f.Sender) || !utf8.ValidString(f.PayloadHash) {
			return false
		}
		pl.seq, pl.messageID, pl.key = f.Seq, f.MessageID, f.Key
		pl.present |= fields(fieldSeq, fieldMessageID, fieldKey)
		if f.Sender != "" {
			pl.sender = f.Sender
			pl.present |= fields(fieldSender)
		}
		if f.PayloadHash != "" && f.Table == TableMessages {
			pl.payloadHash = f.PayloadHash
			pl.present |= fields(fieldPayloadHash)
		}
	default:
		return false
	}
	pl.shape = finalShape(f.Table)
	return true
}

// addTapFinal is the builder's add of a tapped final line whose strings
// the recorder found plain, without the parsedLine between them: the
// rules finalFast and addFinal apply, the same Final to the sink. For a
// line they would not take as it is, it does nothing and reports false,
// and the caller takes the general way.
func (b *builder) addTapFinal(f *Final, lineNo int) bool {
	if b.h.End > 0 {
		return false
	}
	out := &b.scratchFinal
	switch f.Table {
	case TableCounters:
		*out = Final{Table: f.Table, Chat: f.Chat, Missing: f.Missing}
		if !f.Missing {
			out.Value = f.Value
		}
	case TableEvents:
		if f.Partition < 0 || f.Offset < 0 {
			return false
		}
		*out = Final{Table: f.Table, Chat: f.Chat, Seq: f.Seq, MessageID: f.MessageID, Partition: f.Partition, Offset: f.Offset}
	case TableMessages, TableIdempotency:
		*out = Final{Table: f.Table, Chat: f.Chat, Seq: f.Seq, MessageID: f.MessageID, Key: f.Key, Sender: f.Sender}
		if f.Table == TableMessages {
			out.PayloadHash = f.PayloadHash
		}
	default:
		return false
	}
	out.Line = lineNo
	if b.finalsFrom == 0 {
		b.finalsFrom = lineNo
	}
	b.finalsOf[tableIndex(f.Table)]++
	b.emitFinal(out)
	return true
}

func validUTF8(a, b, c string) bool {
	return utf8.ValidString(a) && utf8.ValidString(b) && utf8.ValidString(c)
}

// addLine is the builder's add of a compact line, without the parsedLine
// between them: the same rules, the same Event to the sink. It takes the
// lines a run records, whose strings are valid and which keep the rules,
// except a sync's answer; for any other it does nothing and reports false,
// and the caller takes the general way, which accepts or fails the line as
// the file's reader does (TestTapHandsTheSinkWhatScanReads).
func (b *builder) addLine(l *tapLine, lineNo int) bool {
	plain := l.flags&tapPlain != 0 // its strings need no check
	if b.h.End > 0 || b.finalsFrom > 0 || l.process < 0 || b.lastTimeLine > 0 && l.time < b.lastTime || !plain && !utf8.ValidString(l.chat) {
		return false
	}
	p := int(l.process)
	switch l.kind {
	case KindInvoke:
		if b.open.get(p) != nil {
			return false
		}
		e := &b.scratch
		if l.f == tapSync {
			if l.aux < 0 {
				return false
			}
			if !plain && !utf8.ValidString(l.s1) {
				return false
			}
			*e = Event{Line: lineNo, Kind: KindInvoke, Process: p, F: FSync, Time: l.time, Chat: l.chat, After: l.num, Limit: int(l.aux), Reader: l.flags&tapReader != 0, Sender: l.s1}
		} else {
			if !plain && !validUTF8(l.key, l.s1, l.s2) {
				return false
			}
			if b.sink != nil {
				// Written in its slot, as emit would copy it there: the
				// copy's 16-byte loads of fields just stored one by one
				// waited for the sink's cold stores ahead of them (a
				// failed store forwarding).
				e = b.slots.get(p)
				*e = Event{}
				e.Line, e.Kind, e.Process, e.F, e.Time = lineNo, KindInvoke, p, FPersist, l.time
				e.Chat, e.Key, e.Sender, e.PayloadHash = l.chat, l.key, l.s1, l.s2
				b.sink.Event(e)
				b.open.set(p, e)
				break
			}
			e = &b.tapInvoke
			e.Line, e.Kind, e.Process, e.F, e.Time = lineNo, KindInvoke, p, FPersist, l.time
			e.Chat, e.Key, e.Sender, e.PayloadHash = l.chat, l.key, l.s1, l.s2
		}
		b.open.set(p, b.emit(e))
	case KindTrace:
		inv := b.open.get(p)
		hasStart := l.flags&tapHasStart != 0
		if inv == nil || inv.F != FPersist || l.chat != inv.Chat || hasStart && l.aux > l.time {
			return false
		}
		var start int64
		if hasStart {
			start = l.aux
		}
		e := &b.tapTrace
		e.Line, e.Kind, e.Process, e.F, e.Time = lineNo, KindTrace, p, FAllocate, l.time
		e.Start, e.HasStart, e.Chat, e.Seq = start, hasStart, inv.Chat, l.num
		b.emit(e)
	default: // completions
		inv := b.open.get(p)
		if inv == nil || inv.F != tapFNames[l.f] || l.chat != "" && l.chat != inv.Chat || l.kind == KindOK && l.f == tapSync || !plain && !utf8.ValidString(l.s1) {
			return false
		}
		if inv.F == FPersist && l.key != "" && (!plain && !utf8.ValidString(l.key) || l.key != inv.Key) {
			return false
		}
		e := &b.tapDone
		e.Line, e.Kind, e.Process, e.F, e.Time, e.Chat = lineNo, l.kind, p, inv.F, l.time, inv.Chat
		e.Key, e.Error, e.Seq, e.MessageID, e.Dedup = "", "", 0, "", false
		if inv.F == FPersist {
			e.Key = inv.Key
		}
		if l.kind != KindOK {
			e.Error = l.s1
		} else {
			e.Seq, e.MessageID, e.Dedup = l.num, l.s1, l.flags&tapDedup != 0
		}
		b.open.remove(p)
		b.emit(e)
		if b.sink != nil {
			b.slots.release(p)
		}
	}
	b.lastTime, b.lastTimeLine = l.time, lineNo
	return true
}
