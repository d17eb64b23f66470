package history

import (
	"math"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// lineViews are the strings of the line being decoded, as views into its
// text (see jsonscan.Scanner), until lineDecoder.parse makes the ones the line's
// kind carries into the line's strings.
type lineViews struct {
	chat, key    []byte
	sender       []byte
	payloadHash  []byte
	messageID    []byte
	errorCode    []byte
	device, user []byte   // receivers' lines (receiver_read.go)
	unknown      [][]byte // names of unknown fields, in line order
}

// decodeLine parses an event or final line into l, its strings into v. It
// checks JSON syntax and each known field's type, but not which fields the
// line's kind needs. Message ids in sync results are made with newString,
// or, if hashID is set, turned into hashes instead (a Sink that is an
// IDHasher).
func decodeLine(s *jsonscan.Scanner, text []byte, l *parsedLine, v *lineViews, newString func([]byte) string, hashID func([]byte) uint64) error {
	s.Reset(text)
	*l = parsedLine{}
	*v = lineViews{unknown: v.unknown[:0]}
	s.SkipWS()
	if err := openObject(s); err != nil {
		return err
	}
	for more := s.Peek() != '}'; more; {
		id, name, err := eventFieldName(s)
		if err != nil {
			return err
		}
		if id == fieldUnknown {
			if err := v.addUnknown(name); err != nil {
				return err
			}
			err = s.SkipValue()
		} else {
			if l.present.has(id) {
				return contentErr("duplicate field %q", fieldNames[id])
			}
			l.present |= 1 << id
			err = decodeField(s, id, l, v, newString, hashID)
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
func eventFieldName(s *jsonscan.Scanner) (id fieldID, name []byte, err error) {
	if id, n := knownFieldAt(s.Rest()); n > 0 {
		s.Skip(n)
		s.SkipWS()
		return id, nil, nil
	}
	if name, err = fieldName(s); err != nil {
		return fieldUnknown, nil, err
	}
	return lookupField(name), name, nil
}

func (v *lineViews) addUnknown(name []byte) error {
	if len(name) > MaxStringBytes {
		return contentErr("a field name of %d bytes, more than the %d a string may have: %s", len(name), MaxStringBytes, jsonscan.QuoteBytes(name))
	}
	for _, u := range v.unknown {
		if string(u) == string(name) {
			return contentErr("duplicate field %s", jsonscan.QuoteBytes(u))
		}
	}
	v.unknown = append(v.unknown, name)
	return nil
}

func decodeField(s *jsonscan.Scanner, id fieldID, l *parsedLine, v *lineViews, newString func([]byte) string, hashID func([]byte) uint64) error {
	name := fieldNames[id]
	var err error
	switch id {
	case fieldType:
		var v []byte
		if v, err = s.ReadStr(name, -1); err == nil {
			l.kind, err = parseKind(v)
		}
	case fieldF:
		var v []byte
		if v, err = s.ReadStr(name, -1); err == nil {
			l.f, err = parseF(v)
		}
	case fieldTable:
		var v []byte
		if v, err = s.ReadStr(name, -1); err == nil {
			l.table, err = parseTable(v)
		}
	case fieldProcess:
		var v uint64
		v, err = s.ReadUint(name, -1, math.MaxInt)
		l.process = int(v)
	case fieldTime:
		l.time, err = s.ReadInt(name)
	case fieldStart:
		l.start, err = s.ReadInt(name)
	case fieldChat:
		v.chat, err = s.ReadStr(name, -1)
	case fieldKey:
		v.key, err = s.ReadStr(name, -1)
	case fieldSender:
		v.sender, err = s.ReadStr(name, -1)
	case fieldPayloadHash:
		v.payloadHash, err = s.ReadStr(name, -1)
	case fieldMessageID:
		v.messageID, err = s.ReadStr(name, -1)
	case fieldError:
		v.errorCode, err = s.ReadStr(name, -1)
	case fieldSeq:
		l.seq, err = s.ReadUint(name, -1, math.MaxUint64)
	case fieldAfter:
		l.after, err = s.ReadUint(name, -1, math.MaxUint64)
	case fieldLimit:
		var v uint64
		v, err = s.ReadUint(name, -1, math.MaxInt)
		l.limit = int(v)
	case fieldValue:
		l.value, err = s.ReadUint(name, -1, math.MaxUint64)
	case fieldPartition:
		var v uint64
		v, err = s.ReadUint(name, -1, math.MaxInt32)
		l.partition = int32(v)
	case fieldOffset:
		var v uint64
		v, err = s.ReadUint(name, -1, math.MaxInt64)
		l.offset = int64(v)
	case fieldDedup:
		l.dedup, err = s.ReadBool(name)
	case fieldMissing:
		l.missing, err = s.ReadBool(name)
	case fieldSeqs:
		l.seqs, err = s.ReadUintArray(name)
	case fieldMessageIDs:
		if hashID != nil {
			l.idHashes, err = s.ReadHashArray(name, hashID)
		} else {
			l.messageIDs, err = s.ReadStringArray(name, newString)
		}
	case fieldReader:
		l.reader, err = s.ReadBool(name)
	case fieldLines:
		l.lines, err = s.ReadUint(name, -1, math.MaxUint64)
	case fieldDevice:
		v.device, err = s.ReadStr(name, -1)
	case fieldUser:
		v.user, err = s.ReadStr(name, -1)
	case fieldRefused:
		l.refused, err = s.ReadBool(name)
	case fieldCatchUp:
		l.catchUp, err = s.ReadBool(name)
	case fieldLastAcked:
		l.lastAcked, err = s.ReadUint(name, -1, math.MaxUint64)
	case fieldPayloadHashes:
		l.payloadHashes, err = s.ReadStringArray(name, newString)
	case fieldSenders:
		l.senders, err = s.ReadStringArray(name, newString)
	case fieldKeys:
		l.keys, err = s.ReadStringArray(name, newString)
	}
	return err
}

func parseKind(v []byte) (Kind, error) {
	for k := KindInvoke; k <= lastKind; k++ {
		if string(v) == kindNames[k] {
			return k, nil
		}
	}
	return 0, contentErr(`unknown "type" %s; expected invoke, ok, fail, info, trace, final, table_read or end, or a receiver's connect, disconnect, push, delivery_ack, join, leave, settled or state_read`, jsonscan.QuoteBytes(v))
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
	return "", contentErr(`unknown "f" %s; expected persist, sync or allocate (trace lines)`, jsonscan.QuoteBytes(v))
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
	case TableDeliveryState:
		return TableDeliveryState, nil
	}
	return "", contentErr(`unknown "table" %s; expected counters, messages, idempotency or events, or the receivers' delivery_state`, jsonscan.QuoteBytes(v))
}

// lineShape checks that l names a valid kind of line and carries the fields
// that kind requires, and returns its shape; v holds its unknown fields.
func lineShape(l *parsedLine, v *lineViews) (*shape, error) {
	if !l.present.has(fieldType) {
		for _, u := range v.unknown {
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
	case KindConnect, KindDisconnect, KindPush, KindDeliveryAck, KindJoin, KindLeave, KindSettled, KindStateRead:
		sh = receiverShape(l.kind)
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

func isHeaderField(name string) bool {
	switch name {
	case headerFormat, headerVersion, headerContract, headerTarget, headerScenario, headerSeed, headerEndLine:
		return true
	}
	return false
}

// headerExample is what a header must look like, for messages.
const headerExample = `{"format":"chatseq-history","version":1}`

func decodeHeader(s *jsonscan.Scanner, line []byte) (Header, error) {
	var h Header
	s.Reset(line)
	s.SkipWS()
	if err := openObject(s); err != nil {
		return h, err
	}
	seen := map[string]bool{}
	var format []byte
	var err error
	for more := s.Peek() != '}'; more; {
		var name []byte
		if name, err = fieldName(s); err != nil {
			return h, err
		}
		if seen[string(name)] {
			return h, contentErr("duplicate field %s", jsonscan.QuoteBytes(name))
		}
		seen[string(name)] = true
		switch string(name) {
		case headerFormat:
			format, err = s.ReadStr(headerFormat, -1)
		case headerVersion:
			var v int64
			if v, err = s.ReadInt(headerVersion); err == nil {
				h.Version = int(v)
				if v != Version {
					err = contentErr(`unsupported "version" %d; this reader understands version %d`, v, Version)
				}
			}
		case headerContract:
			h.Contract, err = decodeContract(s)
		case headerTarget:
			var v []byte
			v, err = s.ReadStr(headerTarget, -1)
			h.Target = string(v)
		case headerScenario:
			var v []byte
			v, err = s.ReadStr(headerScenario, -1)
			h.Scenario = string(v)
		case headerSeed:
			h.Seed, err = s.ReadInt(headerSeed)
			h.HasSeed = true
		case headerEndLine:
			h.EndLine, err = s.ReadBool(headerEndLine)
		default:
			// Kept in Extra verbatim, or, for an extension chatseq
			// reads, checked and in its canonical form.
			start := s.Pos()
			var v string
			if x := lookupExtension(string(name)); x != nil {
				v, err = x.read(s)
			} else if err = s.SkipValue(); err == nil {
				v = string(line[start:s.Pos()])
			}
			if err == nil {
				if h.Extra == nil {
					h.Extra = map[string]string{}
				}
				h.Extra[string(name)] = v
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
		return h, notHistory(contentErr(`"format" must be %q, got %s`, Format, jsonscan.QuoteBytes(format)))
	case !seen[headerVersion]:
		return h, contentErr(`missing "version" in the header`)
	}
	return h, nil
}

func decodeContract(s *jsonscan.Scanner) (Contract, error) {
	var c Contract
	if s.Peek() != '{' {
		if s.Peek() == 0 {
			return c, s.Unexpected("a value")
		}
		return c, contentErr(`"contract" must be an object, got %s`, s.Token(s.Pos()))
	}
	s.Skip(1)
	s.SkipWS()
	for more := s.Peek() != '}'; more; {
		name, err := fieldName(s)
		if err != nil {
			return c, err
		}
		f := LookupContractField(string(name))
		if f == nil {
			return c, contentErr(`unknown contract field %s; expected %s`, jsonscan.QuoteBytes(name), ContractFieldNames())
		}
		field := f.Of(&c)
		if *field != "" {
			return c, contentErr(`duplicate contract field %q`, name)
		}
		label := "contract." + f.Name
		v, err := s.ReadStr(label, -1)
		if err != nil {
			return c, err
		}
		if !f.Allows(string(v)) {
			return c, contentErr(`%q must be %s, got %s`, label, f.Choices(true, "or"), jsonscan.QuoteBytes(v))
		}
		*field = string(v)
		if more, err = nextField(s); err != nil {
			return c, err
		}
	}
	s.Skip(1) // the '}' that ended the loop
	return c, nil
}

func openObject(s *jsonscan.Scanner) error {
	if c := s.Peek(); c != '{' {
		if c == '"' || c == '[' || c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n' {
			return contentErr("each line must be a JSON object, got %s", s.Token(s.Pos()))
		}
		return s.Unexpected("'{'")
	}
	s.Skip(1)
	s.SkipWS()
	return nil
}

// fieldName reads `"name":` and leaves the cursor at the value.
func fieldName(s *jsonscan.Scanner) ([]byte, error) {
	if s.Peek() != '"' {
		return nil, s.Unexpected("a field name")
	}
	name, err := s.ReadString()
	if err != nil {
		return nil, err
	}
	s.SkipWS()
	if err := s.Expect(':', "':' after a field name"); err != nil {
		return nil, err
	}
	s.SkipWS()
	return name, nil
}

// nextField moves past the ',' before another field (more) or stops at the
// closing '}'.
func nextField(s *jsonscan.Scanner) (more bool, err error) {
	if s.Peek() == ',' { // fast path, as recorded
		s.Skip(1)
		s.SkipWS()
		return true, nil
	}
	s.SkipWS()
	switch s.Peek() {
	case ',':
		s.Skip(1)
		s.SkipWS()
		return true, nil
	case '}':
		return false, nil
	}
	return false, s.Unexpected("',' or '}' after a field")
}

// closeObject consumes the final '}' and checks nothing follows it.
func closeObject(s *jsonscan.Scanner) error {
	s.Skip(1)
	s.SkipWS()
	if !s.AtEnd() {
		return s.Unexpected("end of line after the object")
	}
	return nil
}
