package delivery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// This file is the oracle's own model of a history file: the header and
// one struct for every other line, written and read with encoding/json
// from the field names FORMAT.md gives. It deliberately does not use
// package history's types, so that the oracle reads the text as the
// format document describes it, not as chatseq's reader does.

// header is the first line. Only the fields the delivery invariants read
// are modelled: the extensions initial_counter and sole_writer (FORMAT.md,
// "Header": "sole_writer": true; absent or false claims nothing) and
// end_line.
type header struct {
	Format         string  `json:"format"`
	Version        int     `json:"version"`
	EndLine        bool    `json:"end_line,omitempty"`
	InitialCounter *uint64 `json:"initial_counter,omitempty"`
	SoleWriter     bool    `json:"sole_writer,omitempty"`
	// Contract is the header's "contract" object: send_authorization
	// reads its send_membership, read_authorization its read_membership.
	Contract map[string]string `json:"contract,omitempty"`
}

// line is any line after the header. Fields whose zero value must still
// be written (a sequence or count of 0) are pointers; everything else is
// omitted when empty, as the recorder omits empty optional fields.
type line struct {
	Type          string   `json:"type"`
	Process       int      `json:"process,omitempty"`
	F             string   `json:"f,omitempty"`
	Time          int64    `json:"time,omitempty"`
	Chat          string   `json:"chat,omitempty"`
	Key           string   `json:"key,omitempty"`
	Sender        string   `json:"sender,omitempty"`
	PayloadHash   string   `json:"payload_hash,omitempty"`
	Seq           *uint64  `json:"seq,omitempty"`
	MessageID     string   `json:"message_id,omitempty"`
	Dedup         *bool    `json:"dedup,omitempty"`
	Error         string   `json:"error,omitempty"`
	Table         string   `json:"table,omitempty"`
	Partition     *uint64  `json:"partition,omitempty"`
	Offset        *uint64  `json:"offset,omitempty"`
	Lines         *uint64  `json:"lines,omitempty"`
	Device        string   `json:"device,omitempty"`
	User          string   `json:"user,omitempty"`
	Refused       bool     `json:"refused,omitempty"`
	CatchUp       bool     `json:"catch_up,omitempty"`
	Seqs          []uint64 `json:"seqs,omitempty"`
	MessageIDs    []string `json:"message_ids,omitempty"`
	PayloadHashes []string `json:"payload_hashes,omitempty"`
	Senders       []string `json:"senders,omitempty"`
	LastAcked     *uint64  `json:"last_acked_sequence,omitempty"`
	// After and Limit are a sync invoke's (required there: FORMAT.md's
	// operation table).
	After *uint64 `json:"after,omitempty"`
	Limit *uint64 `json:"limit,omitempty"`
}

// Line types and persist completion types, as FORMAT.md spells them.
const (
	tInvoke     = "invoke"
	tOK         = "ok"
	tFail       = "fail"
	tInfo       = "info"
	tJoin       = "join"
	tLeave      = "leave"
	tConnect    = "connect"
	tDisconnect = "disconnect"
	tPush       = "push"
	tAck        = "delivery_ack"
	tSettled    = "settled"
	tStateRead  = "state_read"
	tFinal      = "final"
	tTableRead  = "table_read"
	tEnd        = "end"

	tableMessages      = "messages"
	tableEvents        = "events"
	tableDeliveryState = "delivery_state"
)

// doc is a whole history: its header and its other lines in file order.
type doc struct {
	hdr   header
	lines []line
}

func u64(v uint64) *uint64 { return &v }
func flag(v bool) *bool    { return &v }

// val reads an optional count as 0 when absent.
func val(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// clone copies a line deeply, so that a mutation of the copy's arrays or
// pointed-to counts never reaches the original.
func (l line) clone() line {
	c := l
	cp := func(p *uint64) *uint64 {
		if p == nil {
			return nil
		}
		return u64(*p)
	}
	c.Seq, c.Partition, c.Offset, c.Lines, c.LastAcked = cp(l.Seq), cp(l.Partition), cp(l.Offset), cp(l.Lines), cp(l.LastAcked)
	c.After, c.Limit = cp(l.After), cp(l.Limit)
	if l.Dedup != nil {
		c.Dedup = flag(*l.Dedup)
	}
	c.Seqs = append([]uint64(nil), l.Seqs...)
	c.MessageIDs = append([]string(nil), l.MessageIDs...)
	if l.PayloadHashes != nil {
		c.PayloadHashes = append([]string(nil), l.PayloadHashes...)
	}
	if l.Senders != nil {
		c.Senders = append([]string(nil), l.Senders...)
	}
	return c
}

func (d doc) clone() doc {
	c := doc{hdr: d.hdr, lines: make([]line, len(d.lines))}
	for i, l := range d.lines {
		c.lines[i] = l.clone()
	}
	return c
}

// encode writes the history as JSON lines.
func (d doc) encode() []byte {
	var b bytes.Buffer
	h, err := json.Marshal(d.hdr)
	if err != nil {
		panic(err)
	}
	b.Write(h)
	b.WriteByte('\n')
	for _, l := range d.lines {
		j, err := json.Marshal(l)
		if err != nil {
			panic(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// decode reads what encode writes (and hand-written cases): blank lines
// are skipped, as FORMAT.md says they are anywhere.
func decode(data []byte) (doc, error) {
	var d doc
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	first := true
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if first {
			if err := json.Unmarshal([]byte(text), &d.hdr); err != nil {
				return d, fmt.Errorf("line %d: %v", n, err)
			}
			first = false
			continue
		}
		var l line
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return d, fmt.Errorf("line %d: %v", n, err)
		}
		d.lines = append(d.lines, l)
	}
	return d, sc.Err()
}

// fileLine is the file line number of d.lines[i]: the header is line 1
// and encode writes no blank lines.
func fileLine(i int) int { return i + 2 }
