package history

import (
	"fmt"
	"strconv"
)

// appendReceiver encodes a receiver line, its time included (none on a
// final delivery_state line), in the field order FORMAT.md gives.
func appendReceiver(b []byte, r *Receiver) []byte {
	if r.Kind == KindFinal {
		b = append(b, `{"type":"final","table":"delivery_state","chat":`...)
		b = appendString(b, r.Chat)
		b = appendStringField(b, `,"user":`, r.User)
		b = appendUintField(b, `,"last_acked_sequence":`, r.Seq)
		return append(b, "}\n"...)
	}
	b = appendReceiverHead(b, r)
	b = strconv.AppendInt(b, r.Time, 10)
	return appendReceiverTail(b, r)
}

// appendReceiverHead encodes a receiver line up to its time, which the
// recorder stamps between head and tail.
func appendReceiverHead(b []byte, r *Receiver) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, r.Kind.String()...)
	return append(b, `","time":`...)
}

func appendReceiverTail(b []byte, r *Receiver) []byte {
	switch r.Kind {
	case KindConnect:
		b = appendStringField(b, `,"device":`, r.Device)
		b = appendStringField(b, `,"user":`, r.User)
		if r.Refused {
			b = append(b, `,"refused":true`...)
		}
		if r.Error != "" {
			b = appendStringField(b, `,"error":`, r.Error)
		}
	case KindDisconnect:
		b = appendStringField(b, `,"device":`, r.Device)
		if r.Error != "" {
			b = appendStringField(b, `,"error":`, r.Error)
		}
	case KindPush:
		b = appendStringField(b, `,"device":`, r.Device)
		b = appendStringField(b, `,"chat":`, r.Chat)
		b = appendSyncResult(b, &SyncResult{Seqs: r.Seqs, MessageIDs: r.MessageIDs})
		b = appendStringArray(b, `,"payload_hashes":`, r.PayloadHashes)
		b = appendStringArray(b, `,"senders":`, r.Senders)
		if r.CatchUp {
			b = append(b, `,"catch_up":true`...)
		}
	case KindDeliveryAck:
		b = appendStringField(b, `,"device":`, r.Device)
		b = appendStringField(b, `,"chat":`, r.Chat)
		b = appendUintField(b, `,"last_acked_sequence":`, r.Seq)
	case KindJoin, KindLeave:
		b = appendStringField(b, `,"chat":`, r.Chat)
		b = appendStringField(b, `,"user":`, r.User)
	case KindSettled:
		b = appendStringField(b, `,"device":`, r.Device)
	case KindStateRead:
		b = appendStringField(b, `,"chat":`, r.Chat)
		b = appendStringField(b, `,"user":`, r.User)
		if r.Refused {
			b = append(b, `,"refused":true`...)
		}
	}
	return append(b, "}\n"...)
}

// receiverShard is the one shard every receiver line goes to. The
// reader's rules between receiver lines (a device's connect before its
// pushes, a join before the pushes it allows, a connect before its
// disconnect) need the order they were recorded in; lines of two shards
// are merged by time alone, and two lines stamped with the same
// nanosecond (a coarse clock, two cores) could come out the other way
// round. In one shard they keep their order. Their rate, a few tens of
// thousands a second, costs that shard's lock nothing.
const receiverShard = recordShards - 1

// RecordReceiver appends a receiver line (FORMAT.md, "Receivers"): a
// device's connect, disconnect, push, delivery_ack or settled line, or a
// chat's join or leave, stamped with Now, which it returns and sets in
// r.Time. Receiver lines keep the order they were recorded in. r.Line is
// ignored. A final delivery_state row (Kind KindFinal) is written at once
// after every line recorded before it, as RecordFinals writes final
// lines; call RecordTableRead(TableDeliveryState, n) once the table is
// read. A kind that is no receiver line is refused and nothing is
// written. A tapped recorder keeps r's strings and slices until its tap
// has the line.
func (r *Recorder) RecordReceiver(rv *Receiver) (int64, error) {
	if !isReceiverKind(rv.Kind) && rv.Kind != KindFinal {
		return 0, fmt.Errorf("history: RecordReceiver of a %s line, which is not a receiver line", rv.Kind)
	}
	if rv.Kind == KindFinal {
		r.recordReceiverRow(rv)
		return 0, nil
	}
	var scratch [recordScratch]byte
	line := appendReceiverHead(scratch[:0], rv)
	head := len(line)
	line = appendReceiverTail(line, rv)
	sh := &r.shards[receiverShard]
	sh.mu.Lock()
	t := r.Now()
	sh.last = t
	rv.Time = t
	sh.buf = append(sh.buf, line[:head]...)
	sh.buf = strconv.AppendInt(sh.buf, t, 10)
	sh.buf = append(sh.buf, line[head:]...)
	if r.tap != nil {
		rc := new(Receiver)
		*rc = *rv
		sh.taps = append(sh.taps, receiverTapLine(rc))
	}
	r.unlockAndMaybeFlush(sh, t)
	return t, nil
}

// recordReceiverRow writes a final delivery_state row after every line
// recorded before it.
func (r *Recorder) recordReceiverRow(rv *Receiver) {
	line := appendReceiver(nil, rv)
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.flushLocked()
	if r.write(line) && r.tap != nil {
		rc := new(Receiver)
		*rc = *rv
		r.tap.add(tapItem{lines: []tapLine{receiverTapLine(rc)}}, 1)
	}
}

// receiver fills pl with a recorded receiver line as line lineNo reads
// back from the file: encoded and decoded, as the reader would.
func (d *tapDecoder) receiver(r *Receiver, lineNo int, pl *parsedLine) error {
	d.enc = appendReceiver(d.enc[:0], r)
	return d.decode(lineNo, pl)
}

// appendStringArray appends name and the strings as a JSON array, or
// nothing when there are none.
func appendStringArray(b []byte, name string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(b, name...)
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}
