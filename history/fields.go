package history

import (
	"encoding/binary"
	"math/bits"
)

// fieldID names a known field of an event or final line.
type fieldID uint8

const (
	fieldType fieldID = iota
	fieldProcess
	fieldF
	fieldTime
	fieldStart
	fieldChat
	fieldKey
	fieldSender
	fieldPayloadHash
	fieldSeq
	fieldMessageID
	fieldDedup
	fieldError
	fieldAfter
	fieldLimit
	fieldSeqs
	fieldMessageIDs
	fieldTable
	fieldValue
	fieldMissing
	fieldPartition
	fieldOffset
	fieldReader
	fieldLines
	fieldDevice
	fieldUser
	fieldRefused
	fieldCatchUp
	fieldLastAcked
	fieldPayloadHashes
	fieldSenders
	fieldKeys
	numFields
	fieldUnknown = numFields
)

var fieldNames = [numFields]string{
	"type", "process", "f", "time", "start", "chat", "key", "sender",
	"payload_hash", "seq", "message_id", "dedup", "error", "after", "limit",
	"seqs", "message_ids", "table", "value", "missing", "partition", "offset",
	"reader", "lines", "device", "user", "refused", "catch_up", "last_acked_sequence",
	"payload_hashes", "senders", "keys",
}

// fieldTokens are the known names as the recorder writes them, quoted and
// followed by a colon, split for fast matching: the first eight bytes as a
// little-endian word (with a mask when shorter) and the rest.
// fieldsByInitial lists the candidates for each first letter. Together they
// let the reader recognize a field with a word comparison or two, rather
// than scanning its name as a generic string.
type fieldToken struct {
	head, mask uint64
	len        int
	tail       string
}

var (
	fieldTokens     [numFields]fieldToken
	fieldsByInitial [256][]fieldID
)

func init() {
	for id, name := range fieldNames {
		tok := `"` + name + `":`
		var word [8]byte
		n := copy(word[:], tok)
		mask := uint64(1)<<(8*n) - 1
		if n == 8 {
			mask = ^uint64(0)
		}
		fieldTokens[id] = fieldToken{head: binary.LittleEndian.Uint64(word[:]), mask: mask, len: len(tok), tail: tok[n:]}
		fieldsByInitial[name[0]] = append(fieldsByInitial[name[0]], fieldID(id))
	}
}

// knownFieldAt recognizes a known field name at the start of b, written
// plainly (no escapes, no space before the colon), and returns it and the
// length of `"name":`. Otherwise it returns fieldUnknown and 0, and the
// caller reads the name the general way.
func knownFieldAt(b []byte) (fieldID, int) {
	if len(b) < 8 || b[0] != '"' {
		return fieldUnknown, 0
	}
	word := binary.LittleEndian.Uint64(b)
	for _, id := range fieldsByInitial[b[1]] {
		tok := &fieldTokens[id]
		if word&tok.mask == tok.head && (tok.len <= 8 || len(b) >= tok.len && string(b[8:tok.len]) == tok.tail) {
			return id, tok.len
		}
	}
	return fieldUnknown, 0
}

func lookupField(name []byte) fieldID {
	switch string(name) {
	case "type":
		return fieldType
	case "process":
		return fieldProcess
	case "f":
		return fieldF
	case "time":
		return fieldTime
	case "start":
		return fieldStart
	case "chat":
		return fieldChat
	case "key":
		return fieldKey
	case "sender":
		return fieldSender
	case "payload_hash":
		return fieldPayloadHash
	case "seq":
		return fieldSeq
	case "message_id":
		return fieldMessageID
	case "dedup":
		return fieldDedup
	case "error":
		return fieldError
	case "after":
		return fieldAfter
	case "limit":
		return fieldLimit
	case "seqs":
		return fieldSeqs
	case "message_ids":
		return fieldMessageIDs
	case "table":
		return fieldTable
	case "value":
		return fieldValue
	case "missing":
		return fieldMissing
	case "partition":
		return fieldPartition
	case "offset":
		return fieldOffset
	case "reader":
		return fieldReader
	case "lines":
		return fieldLines
	case "device":
		return fieldDevice
	case "user":
		return fieldUser
	case "refused":
		return fieldRefused
	case "catch_up":
		return fieldCatchUp
	case "last_acked_sequence":
		return fieldLastAcked
	case "payload_hashes":
		return fieldPayloadHashes
	case "senders":
		return fieldSenders
	case "keys":
		return fieldKeys
	}
	return fieldUnknown
}

// fieldSet is a set of fieldIDs.
type fieldSet uint64

func fields(ids ...fieldID) fieldSet {
	var s fieldSet
	for _, id := range ids {
		s |= 1 << id
	}
	return s
}

func (s fieldSet) has(id fieldID) bool { return s&(1<<id) != 0 }

// first is the lowest field in a non-empty set.
func (s fieldSet) first() fieldID { return fieldID(bits.TrailingZeros64(uint64(s))) }

// shape is what one kind of line must and may carry.
type shape struct {
	name     string   // for messages, e.g. "persist invoke"
	required fieldSet // a line without one of these is an error
	allowed  fieldSet // others are ignored with a warning
}

func newShape(name string, required, optional fieldSet) *shape {
	return &shape{name: name, required: required, allowed: required | optional}
}

var (
	operation = fields(fieldType, fieldProcess, fieldF, fieldTime)
	// Completions may repeat the invoke's chat (and key): the reader checks
	// that they match and fills them in when absent.
	persistCompletion = fields(fieldChat, fieldKey)
	finalRow          = fields(fieldType, fieldTable, fieldChat)

	persistInvoke = newShape("persist invoke", operation|fields(fieldChat, fieldKey), fields(fieldSender, fieldPayloadHash))
	persistOK     = newShape("persist ok", operation|fields(fieldSeq, fieldMessageID), persistCompletion|fields(fieldDedup))
	persistFail   = newShape("persist fail", operation, persistCompletion|fields(fieldError))
	persistInfo   = newShape("persist info", operation, persistCompletion|fields(fieldError))
	syncInvoke    = newShape("sync invoke", operation|fields(fieldChat, fieldAfter, fieldLimit), fields(fieldReader, fieldUser))
	syncOK        = newShape("sync ok", operation|fields(fieldSeqs, fieldMessageIDs), fields(fieldChat, fieldKeys, fieldSenders, fieldPayloadHashes))
	syncFail      = newShape("sync fail", operation, fields(fieldChat, fieldError))
	syncInfo      = newShape("sync info", operation, fields(fieldChat, fieldError))
	traceAllocate = newShape("trace allocate", operation|fields(fieldChat, fieldSeq), fields(fieldStart))

	// A counters row has "value", or "missing":true instead; readFinal
	// checks which.
	finalCounters    = newShape("final counters", finalRow, fields(fieldValue, fieldMissing))
	finalMessages    = newShape("final messages", finalRow|fields(fieldSeq, fieldMessageID, fieldKey), fields(fieldSender, fieldPayloadHash))
	finalIdempotency = newShape("final idempotency", finalRow|fields(fieldKey, fieldSeq, fieldMessageID), fields(fieldSender))
	finalEvents      = newShape("final events", finalRow|fields(fieldSeq, fieldMessageID, fieldPartition, fieldOffset), 0)

	// A table_read line says a final table was read and how many of its
	// lines the file holds.
	tableReadShape = newShape("table_read", fields(fieldType, fieldTable, fieldLines), 0)

	// The end line is {"type":"end"}: anything else on it is ignored
	// with a warning, as on other lines.
	endShape = newShape("end", fields(fieldType), 0)
)

func operationShape(k Kind, f string) *shape {
	persist := f == FPersist
	switch k {
	case KindInvoke:
		if persist {
			return persistInvoke
		}
		return syncInvoke
	case KindOK:
		if persist {
			return persistOK
		}
		return syncOK
	case KindFail:
		if persist {
			return persistFail
		}
		return syncFail
	}
	if persist {
		return persistInfo
	}
	return syncInfo
}

func finalShape(table string) *shape {
	switch table {
	case TableCounters:
		return finalCounters
	case TableMessages:
		return finalMessages
	case TableIdempotency:
		return finalIdempotency
	case TableDeliveryState:
		return finalDeliveryState
	}
	return finalEvents
}
