package history

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// builder is Read's second stage: it applies the format's rules about how
// lines relate (operations pair up per process, time never goes back, traces
// belong to an outstanding persist, finals come last) and stores the lines.
type builder struct {
	h      *History
	events *eventStore // where lines go, unless sink is set
	sink   Sink
	slots  openSlots // a sink's outstanding invokes, copied
	// scratch and scratchFinal hold the line being handed over, so that
	// handing a line to a sink allocates nothing.
	scratch      Event
	scratchFinal Final
	// A compact line's Event, one per shape: each line sets its shape's
	// fields and no other is ever set, so none is cleared (writing a whole
	// Event each line was a sixth of the tap's time in a run).
	tapInvoke, tapTrace, tapDone Event
	open                         openOps
	// lastTime is the latest time seen, from line lastTimeLine (0: none yet).
	lastTime     int64
	lastTimeLine int
	// finalsFrom is the line of the first final or table_read line (0:
	// none yet).
	finalsFrom int
	// finalsOf counts the final lines of each table (tableIndex), for the
	// table_read lines' counts.
	finalsOf [numTables]uint64
	// recv holds the receivers' state the rules between their lines need
	// (receiver_read.go); nil until the first receiver line.
	recv *receiverRules
	// Warnings about a field are given once, at its first line.
	warnedUnknown map[string]bool
	// unknownUnnamed counts the unknown fields past maxUnknownNamed
	// names, from line firstUnnamed: one warning for them all.
	unknownUnnamed  int
	firstUnnamed    int
	warnedMisplaced map[misplaced]bool
}

// misplaced is a known field on a kind of line that does not carry it.
type misplaced struct {
	field fieldID
	shape *shape
}

func newBuilder(h *History, hint sizeHint) *builder {
	if hint.finals > 0 {
		h.Finals = make([]Final, 0, hint.finals)
	}
	return &builder{
		h:               h,
		events:          newEventStore(hint.events),
		warnedUnknown:   map[string]bool{},
		warnedMisplaced: map[misplaced]bool{},
	}
}

// maxUnknownNamed bounds the unknown field names warned of one by one
// (and kept): a file of a million lines, each with a field of its own
// name, printed a million warnings and kept every name.
const maxUnknownNamed = 32

// finish stores the events in the History. lastLine is the file's last
// line: a file whose header promised an end line and that has none gets a
// warning there.
func (b *builder) finish(lastLine int) {
	if b.sink == nil {
		b.h.Events = b.events.events()
	}
	for i := range b.h.TablesRead {
		t := &b.h.TablesRead[i]
		t.Found = b.finalsOf[tableIndex(t.Table)]
		if t.Short() {
			what := "the table was cut short"
			if t.Found > t.Lines {
				what = "the table is not the one read" // more lines than promised
			}
			b.h.Warnings = append(b.h.Warnings, Warning{Line: t.Line,
				Message: fmt.Sprintf("the table_read line promises %d final %s lines and the file holds %d: %s, so its final state is not judged", t.Lines, t.Table, t.Found, what)})
		}
	}
	if b.unknownUnnamed > 0 {
		b.h.Warnings = append(b.h.Warnings, Warning{Line: b.firstUnnamed,
			Message: fmt.Sprintf("%d more unknown fields, from this line on, of other names than the %d named above, ignored", b.unknownUnnamed, maxUnknownNamed)})
	}
	if b.h.EndLineMissing() {
		b.h.Warnings = append(b.h.Warnings, Warning{Line: max(lastLine, 1),
			Message: `the header promises an end line ({"type":"end"}) and the file has none: it was cut short, so its final state is not judged`})
	}
}

// emit stores e, or hands it to the sink; an invoke's copy stays available
// for its completion either way.
func (b *builder) emit(e *Event) *Event {
	if b.sink == nil {
		return b.events.add(e)
	}
	b.sink.Event(e)
	if e.Kind != KindInvoke {
		return nil
	}
	slot := b.slots.get(e.Process)
	*slot = *e
	return slot
}

func (b *builder) emitFinal(f *Final) {
	if b.sink == nil {
		b.h.Finals = append(b.h.Finals, *f)
		return
	}
	b.sink.Final(f)
}

// partialAfterEnd is the error for a cut-short last line that follows the
// end line: nothing may.
func (b *builder) partialAfterEnd(w *Warning) error {
	return &ParseError{File: b.h.File, Line: w.Line, Msg: fmt.Sprintf("a cut-short line after the end line (line %d); the end line must be the last line", b.h.End)}
}

func (b *builder) add(l *parsedLine) error {
	var err error
	switch {
	case b.h.End > 0:
		err = contentErr("%s line after the end line (line %d); the end line must be the last line", l.kind, b.h.End)
	case l.kind == KindEnd:
		b.h.End = l.lineNo
	case l.kind == KindFinal:
		err = b.addFinal(l)
	case l.kind == KindTableRead:
		err = b.addTableRead(l)
	case isReceiverKind(l.kind):
		err = b.addReceiver(l)
	default:
		err = b.addEvent(l)
	}
	if err != nil {
		return &ParseError{File: b.h.File, Line: l.lineNo, Msg: err.Error()}
	}
	// Warn only once the line is accepted, so a warning never names a line
	// that was rejected.
	for _, name := range l.unknown {
		switch {
		case b.warnedUnknown[name]:
		case len(b.warnedUnknown) < maxUnknownNamed:
			b.warnedUnknown[name] = true
			b.warn(l, fmt.Sprintf("unknown field %s ignored", jsonscan.Quote(name)))
		default:
			if b.unknownUnnamed == 0 {
				b.firstUnnamed = l.lineNo
			}
			b.unknownUnnamed++
		}
	}
	for extra := l.present &^ l.shape.allowed; extra != 0; extra &= extra - 1 {
		m := misplaced{extra.first(), l.shape}
		if !b.warnedMisplaced[m] {
			b.warnedMisplaced[m] = true
			b.warn(l, fmt.Sprintf("field %q is not part of %s %s line; ignored", fieldNames[m.field], article(l.shape.name), l.shape.name))
		}
	}
	return nil
}

// article is "a" or "an" before name.
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiou", rune(name[0])) {
		return "an"
	}
	return "a"
}

func (b *builder) warn(l *parsedLine, message string) {
	b.h.Warnings = append(b.h.Warnings, Warning{Line: l.lineNo, Message: message})
}

func (b *builder) addEvent(l *parsedLine) error {
	if b.finalsFrom > 0 {
		return contentErr("%s line after the final lines (which began on line %d); final lines must come last", l.kind, b.finalsFrom)
	}
	if b.lastTimeLine > 0 && l.time < b.lastTime {
		return contentErr(`"time" %d is earlier than %d on line %d; lines must be in time order`, l.time, b.lastTime, b.lastTimeLine)
	}
	var err error
	switch l.kind {
	case KindInvoke:
		err = b.addInvoke(l)
	case KindTrace:
		err = b.addTrace(l)
	default:
		err = b.addCompletion(l)
	}
	if err != nil {
		return err
	}
	b.lastTime, b.lastTimeLine = l.time, l.lineNo
	return nil
}

func (b *builder) addInvoke(l *parsedLine) error {
	if prev := b.open.get(l.process); prev != nil {
		return contentErr("invoke for process %d while its %s invoke on line %d is still outstanding; a process has at most one operation at a time",
			l.process, prev.F, prev.Line)
	}
	e := &b.scratch
	*e = Event{
		Line:    l.lineNo,
		Kind:    KindInvoke,
		Process: l.process,
		F:       l.f,
		Time:    l.time,
		Chat:    l.chat,
	}
	if l.f == FPersist {
		if l.key == "" {
			// An empty key is no idempotency key: judged as a persist
			// without one, it was left out of the key-based invariants and
			// of linearizability's model, and a replay of it passed.
			return contentErr(`empty "key": a persist invoke line requires its idempotency key (the client_message_id)`)
		}
		e.Key = l.key
		e.Sender = l.sender
		e.PayloadHash = l.payloadHash
	} else {
		e.After, e.Limit, e.Reader = l.after, l.limit, l.reader
		e.Sender = l.user
	}
	b.open.set(l.process, b.emit(e))
	return nil
}

func (b *builder) addCompletion(l *parsedLine) error {
	inv := b.open.get(l.process)
	if inv == nil {
		return contentErr("%s for process %d, which has no outstanding invoke", l.kind, l.process)
	}
	if inv.F != l.f {
		return contentErr("%s for process %d is %q, but its outstanding invoke on line %d is %q", l.kind, l.process, l.f, inv.Line, inv.F)
	}
	if l.present.has(fieldChat) && l.chat != inv.Chat {
		return contentErr(`"chat" %s does not match %q of the invoke on line %d`, jsonscan.Quote(l.chat), inv.Chat, inv.Line)
	}
	e := &b.scratch
	*e = Event{
		Line:    l.lineNo,
		Kind:    l.kind,
		Process: l.process,
		F:       inv.F,
		Time:    l.time,
		Chat:    inv.Chat,
	}
	if inv.F == FPersist {
		if l.present.has(fieldKey) && l.key != inv.Key {
			return contentErr(`"key" %s does not match %q of the invoke on line %d`, jsonscan.Quote(l.key), inv.Key, inv.Line)
		}
		e.Key = inv.Key
	}
	switch {
	case l.kind != KindOK:
		e.Error = l.errorCode
	case inv.F == FPersist:
		if l.messageID == "" {
			return emptyID(`"message_id"`)
		}
		e.Seq, e.MessageID, e.Dedup = l.seq, l.messageID, l.dedup
	default:
		if ids := len(l.messageIDs) + len(l.idHashes); len(l.seqs) != ids {
			return contentErr(`"seqs" has %d items but "message_ids" has %d; they must pair up`, len(l.seqs), ids)
		}
		if err := contentPairsUp(l); err != nil {
			return err
		}
		if err := idsNotEmpty(l); err != nil {
			return err
		}
		e.Sync = &SyncResult{Seqs: l.seqs, MessageIDs: l.messageIDs, IDHashes: l.idHashes, Keys: l.keys, Senders: l.senders, PayloadHashes: l.payloadHashes}
	}
	b.open.remove(l.process)
	b.emit(e)
	if b.sink != nil {
		b.slots.release(l.process) // the sink has the completion: the invoke's copy is done with
	}
	return nil
}

func (b *builder) addTrace(l *parsedLine) error {
	inv := b.open.get(l.process)
	if inv == nil {
		return contentErr("trace allocate for process %d, which has no outstanding persist", l.process)
	}
	if inv.F != FPersist {
		return contentErr("trace allocate for process %d, whose outstanding operation (line %d) is a %s, not a persist", l.process, inv.Line, inv.F)
	}
	if l.chat != inv.Chat {
		return contentErr("trace allocate on chat %s for process %d, whose outstanding persist (line %d) is on chat %q", jsonscan.Quote(l.chat), l.process, inv.Line, inv.Chat)
	}
	if l.present.has(fieldStart) && l.start > l.time {
		return contentErr(`"start" %d is after "time" %d; an allocation cannot return before it was issued`, l.start, l.time)
	}
	b.scratch = Event{
		Line:     l.lineNo,
		Kind:     KindTrace,
		Process:  l.process,
		F:        FAllocate,
		Time:     l.time,
		Start:    l.start,
		HasStart: l.present.has(fieldStart),
		Chat:     inv.Chat,
		Seq:      l.seq,
	}
	b.emit(&b.scratch)
	return nil
}

func (b *builder) addFinal(l *parsedLine) error {
	if l.table == TableCounters {
		switch {
		case l.missing && l.present.has(fieldValue):
			return contentErr(`a counters line has "value" or "missing":true, not both`)
		case !l.missing && !l.present.has(fieldValue):
			return contentErr(`missing "value" (or "missing":true), which a final counters line requires`)
		}
	}
	if b.finalsFrom == 0 {
		b.finalsFrom = l.lineNo
	}
	b.finalsOf[tableIndex(l.table)]++
	if l.table == TableDeliveryState {
		if l.user == "" {
			// A row is a member's: "" names no one (as on a join or
			// a connect; a row of "" was accepted: an outside tester's).
			return contentErr(`"user" is empty: a delivery_state row is a member's, and a user is never ""`)
		}
		b.emitReceiver(&Receiver{Line: l.lineNo, Kind: KindFinal, Chat: l.chat, User: l.user, Seq: l.lastAcked})
		return nil
	}
	f := &b.scratchFinal
	*f = Final{
		Line:  l.lineNo,
		Table: l.table,
		Chat:  l.chat,
	}
	if l.table != TableCounters && l.messageID == "" {
		return emptyID(`"message_id"`)
	}
	switch l.table {
	case TableCounters:
		f.Value, f.Missing = l.value, l.missing
	case TableEvents:
		f.Seq, f.MessageID = l.seq, l.messageID
		f.Partition, f.Offset = l.partition, l.offset
	default: // messages, idempotency
		f.Seq, f.MessageID, f.Key, f.Sender = l.seq, l.messageID, l.key, l.sender
		if l.table == TableMessages {
			f.PayloadHash = l.payloadHash
		}
	}
	b.emitFinal(f)
	return nil
}

// addTableRead takes a table_read line: among the final lines, at most one
// a table. Its count is compared with the table's lines at the end
// (finish), wherever in the final lines it stands.
func (b *builder) addTableRead(l *parsedLine) error {
	for _, t := range b.h.TablesRead {
		if t.Table == l.table {
			return contentErr("a second table_read line for table %q (the first is on line %d); a table is read once", l.table, t.Line)
		}
	}
	if b.finalsFrom == 0 {
		b.finalsFrom = l.lineNo
	}
	b.h.TablesRead = append(b.h.TablesRead, TableRead{Line: l.lineNo, Table: l.table, Lines: l.lines})
	return nil
}

// numTables is how many final tables there are; tableIndex numbers them.
const numTables = 5

func tableIndex(table string) int {
	switch table {
	case TableCounters:
		return 0
	case TableMessages:
		return 1
	case TableIdempotency:
		return 2
	case TableDeliveryState:
		return 4
	}
	return 3 // events: the reader accepts no other table
}

// emptyID is the error of a message id that is "" (the field's name, with
// its index in an array): an id names one message (ADR-001's ack carries
// it), and the checker tells messages apart by it, so an empty one would
// stand for no message at all.
func emptyID(field string) error {
	return contentErr(`%s is empty: a message id names a message and is never ""`, field)
}

// idsNotEmpty refuses a push's or a sync ok's message id that is "" (as a
// string, or as an IDHasher's 0).
func idsNotEmpty(l *parsedLine) error {
	if i := slices.Index(l.messageIDs, ""); i >= 0 {
		return emptyID(fmt.Sprintf(`"message_ids"[%d]`, i))
	}
	if i := slices.Index(l.idHashes, 0); i >= 0 {
		return emptyID(fmt.Sprintf(`"message_ids"[%d]`, i))
	}
	return nil
}

// contentPairsUp checks that what a push or a sync ok says each message
// carried (payload_hashes, senders, keys), where it says, pairs up with
// its seqs.
func contentPairsUp(l *parsedLine) error {
	for _, f := range [...]struct {
		name string
		n    int
	}{{"payload_hashes", len(l.payloadHashes)}, {"senders", len(l.senders)}, {"keys", len(l.keys)}} {
		if f.n > 0 && f.n != len(l.seqs) {
			return contentErr(`"seqs" has %d items but %q has %d; they must pair up`, len(l.seqs), f.name, f.n)
		}
	}
	return nil
}
