package history

import (
	"fmt"
	"math"
	"strconv"
)

// rawLine is one event or final line as written, before the structural
// checks. String fields are views into the line (see scanner).
type rawLine struct {
	present fieldSet
	kind    Kind
	f       string // FPersist, FSync, FAllocate or ""
	table   string // a Table* constant or ""

	process     int
	time, start int64
	chat, key   []byte
	sender      []byte
	payloadHash []byte
	messageID   []byte
	errorCode   []byte
	seq, after  uint64
	limit       int
	dedup       bool
	value       uint64
	missing     bool
	partition   int32
	offset      int64
	seqs        []uint64
	messageIDs  []string
	idHashes    []uint64 // message_ids as hashes, when hashID is set
	reader      bool
	lines       uint64 // table_read

	unknown [][]byte // names of unknown fields, in line order
	// hashID, if set, turns a sync's message ids into hashes rather than
	// strings (a Sink that is an IDHasher).
	hashID func([]byte) uint64
}

// decodeLine parses an event or final line into l. It checks JSON syntax and
// each known field's type, but not which fields the line's kind needs.
// Message ids in sync results are made with newString.
func decodeLine(s *scanner, line []byte, l *rawLine, newString func([]byte) string) error {
	s.reset(line)
	*l = rawLine{unknown: l.unknown[:0], hashID: l.hashID}
	s.skipWS()
	if err := openObject(s); err != nil {
		return err
	}
	for more := s.peek() != '}'; more; {
		id, name, err := eventFieldName(s)
		if err != nil {
			return err
		}
		if id == fieldUnknown {
			if err := l.addUnknown(name); err != nil {
				return err
			}
			err = s.skipValue(0)
		} else {
			if l.present.has(id) {
				return contentErr("duplicate field %q", fieldNames[id])
			}
			l.present |= 1 << id
			err = decodeField(s, id, l, newString)
		}
		if err != nil {
			return err
		}
		if more, err = nextField(s); err != nil {
			return err
		}
	}
	return closeObject(s)
}

// eventFieldName reads `"name":` and identifies the field; name is returned
// only for an unknown field.
func eventFieldName(s *scanner) (id fieldID, name []byte, err error) {
	if id, n := knownFieldAt(s.b[s.i:]); n > 0 {
		s.i += n
		s.skipWS()
		return id, nil, nil
	}
	if name, err = fieldName(s); err != nil {
		return fieldUnknown, nil, err
	}
	return lookupField(name), name, nil
}

func (l *rawLine) addUnknown(name []byte) error {
	if len(name) > MaxStringBytes {
		return contentErr("a field name of %d bytes, more than the %d a string may have: %s", len(name), MaxStringBytes, quoteBytes(name))
	}
	for _, u := range l.unknown {
		if string(u) == string(name) {
			return contentErr("duplicate field %s", quoteBytes(u))
		}
	}
	l.unknown = append(l.unknown, name)
	return nil
}

func decodeField(s *scanner, id fieldID, l *rawLine, newString func([]byte) string) error {
	name := fieldNames[id]
	var err error
	switch id {
	case fieldType:
		var v []byte
		if v, err = s.readStr(name, -1); err == nil {
			l.kind, err = parseKind(v)
		}
	case fieldF:
		var v []byte
		if v, err = s.readStr(name, -1); err == nil {
			l.f, err = parseF(v)
		}
	case fieldTable:
		var v []byte
		if v, err = s.readStr(name, -1); err == nil {
			l.table, err = parseTable(v)
		}
	case fieldProcess:
		var v uint64
		v, err = s.readUint(name, -1, math.MaxInt)
		l.process = int(v)
	case fieldTime:
		l.time, err = s.readInt(name)
	case fieldStart:
		l.start, err = s.readInt(name)
	case fieldChat:
		l.chat, err = s.readStr(name, -1)
	case fieldKey:
		l.key, err = s.readStr(name, -1)
	case fieldSender:
		l.sender, err = s.readStr(name, -1)
	case fieldPayloadHash:
		l.payloadHash, err = s.readStr(name, -1)
	case fieldMessageID:
		l.messageID, err = s.readStr(name, -1)
	case fieldError:
		l.errorCode, err = s.readStr(name, -1)
	case fieldSeq:
		l.seq, err = s.readUint(name, -1, math.MaxUint64)
	case fieldAfter:
		l.after, err = s.readUint(name, -1, math.MaxUint64)
	case fieldLimit:
		var v uint64
		v, err = s.readUint(name, -1, math.MaxInt)
		l.limit = int(v)
	case fieldValue:
		l.value, err = s.readUint(name, -1, math.MaxUint64)
	case fieldPartition:
		var v uint64
		v, err = s.readUint(name, -1, math.MaxInt32)
		l.partition = int32(v)
	case fieldOffset:
		var v uint64
		v, err = s.readUint(name, -1, math.MaxInt64)
		l.offset = int64(v)
	case fieldDedup:
		l.dedup, err = s.readBool(name)
	case fieldMissing:
		l.missing, err = s.readBool(name)
	case fieldSeqs:
		l.seqs, err = s.readUintArray(name)
	case fieldMessageIDs:
		if l.hashID != nil {
			l.idHashes, err = s.readHashArray(name, l.hashID)
		} else {
			l.messageIDs, err = s.readStringArray(name, newString)
		}
	case fieldReader:
		l.reader, err = s.readBool(name)
	case fieldLines:
		l.lines, err = s.readUint(name, -1, math.MaxUint64)
	}
	return err
}

func parseKind(v []byte) (Kind, error) {
	for k := KindInvoke; k <= KindTableRead; k++ {
		if string(v) == kindNames[k] {
			return k, nil
		}
	}
	return 0, contentErr(`unknown "type" %s; expected invoke, ok, fail, info, trace, final, table_read or end`, quoteBytes(v))
}

func parseF(v []byte) (string, error) {
	switch string(v) {
	case FPersist:
		return FPersist, nil
	case FSync:
		return FSync, nil
	case FAllocate:
		return FAllocate, nil
	}
	return "", contentErr(`unknown "f" %s; expected persist, sync or allocate (trace lines)`, quoteBytes(v))
}

func parseTable(v []byte) (string, error) {
	switch string(v) {
	case TableCounters:
		return TableCounters, nil
	case TableMessages:
		return TableMessages, nil
	case TableIdempotency:
		return TableIdempotency, nil
	case TableEvents:
		return TableEvents, nil
	}
	return "", contentErr(`unknown "table" %s; expected counters, messages, idempotency or events`, quoteBytes(v))
}

// quote shows a decoded string value in a message, shortened if long.
func quote(v string) string {
	if len(v) > 40 {
		return strconv.Quote(v[:40]) + "..."
	}
	return strconv.Quote(v)
}

func quoteBytes(v []byte) string { return quote(string(v)) }

// lineShape checks that l names a valid kind of line and carries the fields
// that kind requires, and returns its shape.
func lineShape(l *rawLine) (*shape, error) {
	if !l.present.has(fieldType) {
		for _, u := range l.unknown {
			if string(u) == "format" {
				return nil, contentErr(`a second header line: only the first line may be the header`)
			}
		}
		return nil, contentErr(`missing "type"`)
	}
	var sh *shape
	switch l.kind {
	case KindEnd:
		sh = endShape
	case KindTableRead:
		sh = tableReadShape
	case KindFinal:
		if !l.present.has(fieldTable) {
			return nil, contentErr(`missing "table", which a final line requires`)
		}
		sh = finalShape(l.table)
	case KindTrace:
		if !l.present.has(fieldF) {
			return nil, contentErr(`missing "f", which a trace line requires`)
		}
		if l.f != FAllocate {
			return nil, contentErr(`"f" must be "allocate" on a trace line, got %q`, l.f)
		}
		sh = traceAllocate
	default:
		if !l.present.has(fieldF) {
			return nil, contentErr(`missing "f", which an %s line requires`, l.kind)
		}
		if l.f == FAllocate {
			return nil, contentErr(`"f" must be "persist" or "sync" on an %s line, got "allocate" (only trace lines allocate)`, l.kind)
		}
		sh = operationShape(l.kind, l.f)
	}
	if lacking := sh.required &^ l.present; lacking != 0 {
		return nil, contentErr("missing %q, which a %s line requires", fieldNames[lacking.first()], sh.name)
	}
	return sh, nil
}

// header field names the reader interprets; everything else goes to Extra.
const (
	headerFormat   = "format"
	headerVersion  = "version"
	headerContract = "contract"
	headerTarget   = "target"
	headerScenario = "scenario"
	headerSeed     = "seed"
	headerEndLine  = "end_line"
)

// InitialCounterField is the header extension that states every chat's
// counter before the run. It stays in Header.Extra (as its decimal digits),
// but the reader checks it: a value the checker would misread is an error.
const InitialCounterField = "initial_counter"

// SoleWriterField is the header extension that says the history's clients
// are the only writers of its chats (besides messages from before the run,
// at or below initial_counter): a final message no persist of the history
// sent is then a phantom write, not another writer's (no_phantom_messages).
// It stays in Header.Extra as "true" or "false"; the reader checks that it
// is a JSON bool.
const SoleWriterField = "sole_writer"

// SoleWriter reports whether h says its clients are its chats' only writers.
func (h Header) SoleWriter() bool { return h.Extra[SoleWriterField] == "true" }

// initialCounterWant describes the values InitialCounterField accepts.
const initialCounterWant = "a non-negative integer (every chat's counter before the run)"

// parseInitialCounter parses an initial_counter value as the header holds it
// in Extra: the decimal digits of a non-negative integer that fits 64 bits.
func parseInitialCounter(raw string) (uint64, error) {
	if raw == "" || raw[0] < '0' || raw[0] > '9' || len(raw) > 1 && raw[0] == '0' {
		return 0, fmt.Errorf("%q must be %s, got %s", InitialCounterField, initialCounterWant, printable([]byte(raw)))
	}
	v, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q must be %s that fits 64 bits, got %s", InitialCounterField, initialCounterWant, printable([]byte(raw)))
	}
	return v, nil
}

func isHeaderField(name string) bool {
	switch name {
	case headerFormat, headerVersion, headerContract, headerTarget, headerScenario, headerSeed, headerEndLine:
		return true
	}
	return false
}

// headerExample is what a header must look like, for messages.
const headerExample = `{"format":"chatseq-history","version":1}`

func decodeHeader(s *scanner, line []byte) (Header, error) {
	var h Header
	s.reset(line)
	s.skipWS()
	if err := openObject(s); err != nil {
		return h, err
	}
	seen := map[string]bool{}
	var format []byte
	var err error
	for more := s.peek() != '}'; more; {
		var name []byte
		if name, err = fieldName(s); err != nil {
			return h, err
		}
		if seen[string(name)] {
			return h, contentErr("duplicate field %s", quoteBytes(name))
		}
		seen[string(name)] = true
		switch string(name) {
		case headerFormat:
			format, err = s.readStr(headerFormat, -1)
		case headerVersion:
			var v int64
			if v, err = s.readInt(headerVersion); err == nil {
				h.Version = int(v)
				if v != Version {
					err = contentErr(`unsupported "version" %d; this reader understands version %d`, v, Version)
				}
			}
		case headerContract:
			h.Contract, err = decodeContract(s)
		case headerTarget:
			var v []byte
			v, err = s.readStr(headerTarget, -1)
			h.Target = string(v)
		case headerScenario:
			var v []byte
			v, err = s.readStr(headerScenario, -1)
			h.Scenario = string(v)
		case headerSeed:
			h.Seed, err = s.readInt(headerSeed)
			h.HasSeed = true
		case headerEndLine:
			h.EndLine, err = s.readBool(headerEndLine)
		case InitialCounterField:
			// Kept in Extra as the checker reads it, but checked here:
			// -5, "abc", 1.5, 1e3 or [1] must not be read as 0.
			var v uint64
			if v, err = s.readUint(InitialCounterField, -1, math.MaxUint64); err == nil {
				if h.Extra == nil {
					h.Extra = map[string]string{}
				}
				h.Extra[InitialCounterField] = strconv.FormatUint(v, 10)
			}
		case SoleWriterField:
			// Kept in Extra, but checked: "yes", 1 or "true" must not
			// pass for a claim the checker fails histories on.
			var v bool
			if v, err = s.readBool(SoleWriterField); err == nil {
				if h.Extra == nil {
					h.Extra = map[string]string{}
				}
				h.Extra[SoleWriterField] = strconv.FormatBool(v)
			}
		default:
			start := s.i
			if err = s.skipValue(0); err == nil {
				if h.Extra == nil {
					h.Extra = map[string]string{}
				}
				h.Extra[string(name)] = string(line[start:s.i])
			}
		}
		if err != nil {
			return h, err
		}
		if more, err = nextField(s); err != nil {
			return h, err
		}
	}
	if err = closeObject(s); err != nil {
		return h, err
	}
	switch {
	case !seen[headerFormat] && seen["type"]:
		return h, contentErr("the first line must be the header %s, not an event", headerExample)
	case !seen[headerFormat]:
		return h, notHistory(contentErr(`missing "format": the first line must be the header %s`, headerExample))
	case string(format) != Format:
		return h, notHistory(contentErr(`"format" must be %q, got %s`, Format, quoteBytes(format)))
	case !seen[headerVersion]:
		return h, contentErr(`missing "version" in the header`)
	}
	return h, nil
}

func decodeContract(s *scanner) (Contract, error) {
	var c Contract
	if s.peek() != '{' {
		if s.peek() == 0 {
			return c, s.unexpected("a value")
		}
		return c, contentErr(`"contract" must be an object, got %s`, s.token(s.i))
	}
	s.i++
	s.skipWS()
	for more := s.peek() != '}'; more; {
		name, err := fieldName(s)
		if err != nil {
			return c, err
		}
		var field *string
		var allowed [2]string
		switch string(name) {
		case "gaps":
			field, allowed = &c.Gaps, [2]string{GapsAllowed, GapsForbidden}
		case "key_reuse":
			field, allowed = &c.KeyReuse, [2]string{KeyReuseReturnOriginal, KeyReuseReject}
		case "events":
			field, allowed = &c.Events, [2]string{EventsNone, EventsAtLeastOnce}
		case "catch_up":
			field, allowed = &c.CatchUp, [2]string{CatchUpCursor, CatchUpNone}
		case "event_order":
			field, allowed = &c.EventOrder, [2]string{EventOrderPerChat, EventOrderNone}
		case "key_scope":
			field, allowed = &c.KeyScope, [2]string{KeyScopeChat, KeyScopeClient}
		default:
			return c, contentErr(`unknown contract field %s; expected gaps, key_reuse, events, catch_up, event_order or key_scope`, quoteBytes(name))
		}
		if *field != "" {
			return c, contentErr(`duplicate contract field %q`, name)
		}
		label := "contract." + string(name)
		v, err := s.readStr(label, -1)
		if err != nil {
			return c, err
		}
		switch string(v) {
		case allowed[0]:
			*field = allowed[0]
		case allowed[1]:
			*field = allowed[1]
		default:
			return c, contentErr(`%q must be %q or %q, got %s`, label, allowed[0], allowed[1], quoteBytes(v))
		}
		if more, err = nextField(s); err != nil {
			return c, err
		}
	}
	s.i++ // the '}' that ended the loop
	return c, nil
}

func openObject(s *scanner) error {
	if c := s.peek(); c != '{' {
		if c == '"' || c == '[' || c == '-' || isDigit(c) || c == 't' || c == 'f' || c == 'n' {
			return contentErr("each line must be a JSON object, got %s", s.token(s.i))
		}
		return s.unexpected("'{'")
	}
	s.i++
	s.skipWS()
	return nil
}

// fieldName reads `"name":` and leaves the cursor at the value.
func fieldName(s *scanner) ([]byte, error) {
	if s.peek() != '"' {
		return nil, s.unexpected("a field name")
	}
	name, err := s.readString()
	if err != nil {
		return nil, err
	}
	s.skipWS()
	if err := s.expect(':', "':' after a field name"); err != nil {
		return nil, err
	}
	s.skipWS()
	return name, nil
}

// nextField moves past the ',' before another field (more) or stops at the
// closing '}'.
func nextField(s *scanner) (more bool, err error) {
	if s.i < len(s.b) && s.b[s.i] == ',' { // fast path, as recorded
		s.i++
		s.skipWS()
		return true, nil
	}
	s.skipWS()
	switch s.peek() {
	case ',':
		s.i++
		s.skipWS()
		return true, nil
	case '}':
		return false, nil
	}
	return false, s.unexpected("',' or '}' after a field")
}

// closeObject consumes the final '}' and checks nothing follows it.
func closeObject(s *scanner) error {
	s.i++
	s.skipWS()
	if s.i < len(s.b) {
		return s.unexpected("end of line after the object")
	}
	return nil
}
