package history

import (
	"unicode/utf8"
	"unsafe"
)

// A Tap hands the builder each recorded line as the decoder would have
// read it from the file, without the file: tapLineOf fills a parsedLine
// from the Event the recorder encoded, writing the fields the encoder
// writes (encode.go) and nothing else. Only lines whose every value reads
// back as it was take this way: a string of invalid UTF-8 (written as
// U+FFFD), an unknown kind or function, or a number the reader refuses
// (a negative process, limit, partition or offset) is encoded and decoded
// instead, so the tap's lines are the file's in every case
// (TestTapLineIsTheDecodedLine).

// tapLine is one line a flush took: an operation or trace (Event, its
// Time stamped), or a final line recorded one at a time (final).
type tapLine struct {
	Event
	final *Final
}

// tapDecoder turns recorded lines into parsedLines for one Tap.
type tapDecoder struct {
	hashID  func([]byte) uint64
	hashes  carver[uint64] // sync answers' id hashes, exact-length copies
	scratch []uint64
	slow    *lineDecoder // the lines the fast way cannot vouch for
	enc     []byte
}

func newTapDecoder(file string, hashID func([]byte) uint64) *tapDecoder {
	return &tapDecoder{hashID: hashID, slow: newLineDecoder(file, hashID)}
}

// event fills pl with e as line lineNo reads back from the file.
func (d *tapDecoder) event(e *Event, lineNo int, pl *parsedLine) error {
	if d.eventFast(e, lineNo, pl) {
		return nil
	}
	d.enc = appendEvent(d.enc[:0], e)
	return d.decode(lineNo, pl)
}

// final fills pl with f as line lineNo reads back from the file.
func (d *tapDecoder) final(f *Final, lineNo int, pl *parsedLine) error {
	if finalFast(f, lineNo, pl) {
		return nil
	}
	d.enc = appendFinal(d.enc[:0], f)
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

func (d *tapDecoder) eventFast(e *Event, lineNo int, pl *parsedLine) bool {
	if e.Process < 0 || !utf8.ValidString(e.Chat) {
		return false
	}
	var sh *shape
	switch {
	case e.Kind == KindTrace && e.F == FAllocate:
		sh = traceAllocate
	case e.Kind >= KindInvoke && e.Kind <= KindInfo && (e.F == FPersist || e.F == FSync):
		sh = operationShape(e.Kind, e.F)
	default:
		return false
	}
	*pl = parsedLine{lineNo: lineNo, shape: sh, present: operation, kind: e.Kind, f: e.F, process: e.Process, time: e.Time}
	switch e.Kind {
	case KindInvoke:
		pl.chat = e.Chat
		pl.present |= fields(fieldChat)
		if e.F == FSync {
			if e.Limit < 0 {
				return false
			}
			pl.after, pl.limit, pl.reader = e.After, e.Limit, e.Reader
			pl.present |= fields(fieldAfter, fieldLimit)
			if e.Reader {
				pl.present |= fields(fieldReader)
			}
			return true
		}
		if !validUTF8(e.Key, e.Sender, e.PayloadHash) {
			return false
		}
		pl.key = e.Key
		pl.present |= fields(fieldKey)
		if e.Sender != "" {
			pl.sender = e.Sender
			pl.present |= fields(fieldSender)
		}
		if e.PayloadHash != "" {
			pl.payloadHash = e.PayloadHash
			pl.present |= fields(fieldPayloadHash)
		}
	case KindTrace:
		pl.chat, pl.seq = e.Chat, e.Seq
		pl.present |= fields(fieldChat, fieldSeq)
		if e.HasStart {
			pl.start = e.Start
			pl.present |= fields(fieldStart)
		}
	default: // completions
		if e.Chat != "" {
			pl.chat = e.Chat
			pl.present |= fields(fieldChat)
		}
		if e.F != FSync && e.Key != "" {
			if !utf8.ValidString(e.Key) {
				return false
			}
			pl.key = e.Key
			pl.present |= fields(fieldKey)
		}
		switch {
		case e.Kind != KindOK:
			if e.Error != "" {
				if !utf8.ValidString(e.Error) {
					return false
				}
				pl.errorCode = e.Error
				pl.present |= fields(fieldError)
			}
		case e.F == FSync:
			pl.present |= fields(fieldSeqs, fieldMessageIDs)
			return d.syncResult(e.Sync, pl)
		default:
			if !utf8.ValidString(e.MessageID) {
				return false
			}
			pl.seq, pl.messageID, pl.dedup = e.Seq, e.MessageID, e.Dedup
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
	for _, id := range r.MessageIDs {
		if !utf8.ValidString(id) {
			return false
		}
	}
	if len(r.Seqs) > 0 {
		pl.seqs = r.Seqs
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
		pl.idHashes = d.hashes.take(hs)
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
		if !validUTF8(f.MessageID, f.Key, f.Sender) {
			return false
		}
		pl.seq, pl.messageID, pl.key = f.Seq, f.MessageID, f.Key
		pl.present |= fields(fieldSeq, fieldMessageID, fieldKey)
		if f.Sender != "" {
			pl.sender = f.Sender
			pl.present |= fields(fieldSender)
		}
	default:
		return false
	}
	pl.shape = finalShape(f.Table)
	return true
}

func validUTF8(a, b, c string) bool {
	return utf8.ValidString(a) && utf8.ValidString(b) && utf8.ValidString(c)
}
