// Package oracle is a test-only reference checker for chatseq histories,
// written from HISTORY.md, history/FORMAT.md and ADR-001/ADR-004 alone: it
// shares no code and no reading with package checker. It decides small
// histories by brute force (every linearization of each chat) and is
// cross-checked against the exact checker and porcupine on random
// histories. It parses JSONL with encoding/json, never with chatseq's
// reader.
package oracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// never is the completion time of an operation whose effect may come at any
// time after its invoke (info, or never completed), and the invoke time of
// an effect that may come at any time at all (another writer's).
const (
	never  = int64(math.MaxInt64)
	always = int64(math.MinInt64)
)

// spec is one history as the oracle reads it.
type spec struct {
	gapsForbidden bool
	reject        bool // key_reuse: reject
	clientScope   bool // key_scope: client
	initial       uint64
	soleWriter    bool
	// read names the final tables the writer read: those with a
	// table_read line or with at least one final line.
	read   map[string]bool
	ops    []operation
	finals []finalLine
}

type opKind int

const (
	persistOK opKind = iota
	persistFail
	persistInfo // info, or invoked and never completed
	syncOK
	syncOther // a sync that failed or whose outcome is unknown reads nothing
)

type operation struct {
	kind             opKind
	process          int64
	chat             string
	invoke, complete int64
	key, sender      string
	payload          string
	seq              uint64
	mid              string
	dedup            bool
	errCode          string
	after, limit     uint64
	seqs             []uint64
	mids             []string
	// what a sync ok said each returned message carried, nil or paired
	// with seqs, "" where it said nothing
	shownKeys, shownSenders, shownPayloads []string
}

type finalLine struct {
	table     string
	chat      string
	seq       uint64
	mid       string
	key       string
	sender    string
	hasSender bool
	payload   string // messages: the stored content's payload_hash, "" when not given
	value     uint64
	missing   bool
}

// rawLine holds every field a line may carry; pointers tell absent from zero.
type rawLine struct {
	Type       string       `json:"type"`
	Process    *int64       `json:"process"`
	F          string       `json:"f"`
	Time       *int64       `json:"time"`
	Chat       *string      `json:"chat"`
	Key        *string      `json:"key"`
	Sender     *string      `json:"sender"`
	Payload    *string      `json:"payload_hash"`
	Seq        *uint64      `json:"seq"`
	MessageID  *string      `json:"message_id"`
	Dedup      *bool        `json:"dedup"`
	Error      string       `json:"error"`
	After      *uint64      `json:"after"`
	Limit      *uint64      `json:"limit"`
	Seqs       []uint64     `json:"seqs"`
	MessageIDs []string     `json:"message_ids"`
	Keys       []string     `json:"keys"`
	Senders    []string     `json:"senders"`
	Payloads   []string     `json:"payload_hashes"`
	Table      string       `json:"table"`
	Value      *uint64      `json:"value"`
	Missing    bool         `json:"missing"`
	Lines      *int64       `json:"lines"`
	Format     string       `json:"format"`
	Version    *int64       `json:"version"`
	Contract   *rawContract `json:"contract"`
	Initial    *uint64      `json:"initial_counter"`
	SoleWriter *bool        `json:"sole_writer"`
}

type rawContract struct {
	Gaps     string `json:"gaps"`
	KeyReuse string `json:"key_reuse"`
	KeyScope string `json:"key_scope"`
}

// parseSpec reads a history file's bytes. It accepts what the generator and
// the hand-written cases produce (operations, final lines, table_read and
// end lines); traces and receivers are outside the oracle's reach.
func parseSpec(data []byte) (*spec, error) {
	s := &spec{read: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	open := map[int64]int{} // process -> index of its outstanding operation
	lineNo, header := 0, false
	for sc.Scan() {
		lineNo++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var l rawLine
		if err := json.Unmarshal(text, &l); err != nil {
			return nil, fmt.Errorf("line %d: %v", lineNo, err)
		}
		if !header {
			header = true
			if l.Format != "chatseq-history" || l.Version == nil || *l.Version != 1 {
				return nil, fmt.Errorf("line %d: not a version 1 chatseq history header", lineNo)
			}
			if c := l.Contract; c != nil {
				s.gapsForbidden = c.Gaps == "forbidden"
				s.reject = c.KeyReuse == "reject"
				// sender: per sender across chats, judged within a
				// chat as client (FORMAT.md's key_scope).
				s.clientScope = c.KeyScope == "client" || c.KeyScope == "sender"
			}
			if l.Initial != nil {
				s.initial = *l.Initial
			}
			s.soleWriter = l.SoleWriter != nil && *l.SoleWriter
			continue
		}
		if err := s.addLine(&l, open, lineNo); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !header {
		return nil, fmt.Errorf("no header")
	}
	return s, nil
}

func (s *spec) addLine(l *rawLine, open map[int64]int, lineNo int) error {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	u := func(p *uint64) uint64 {
		if p == nil {
			return 0
		}
		return *p
	}
	switch l.Type {
	case "invoke":
		if l.Process == nil || l.Time == nil || l.Chat == nil {
			return fmt.Errorf("line %d: invoke without process, time or chat", lineNo)
		}
		if _, busy := open[*l.Process]; busy {
			return fmt.Errorf("line %d: process %d already has an operation outstanding", lineNo, *l.Process)
		}
		op := operation{process: *l.Process, chat: *l.Chat, invoke: *l.Time, complete: never}
		switch l.F {
		case "persist":
			op.kind = persistInfo
			op.key, op.sender, op.payload = str(l.Key), str(l.Sender), str(l.Payload)
		case "sync":
			op.kind = syncOther
			op.after, op.limit = u(l.After), u(l.Limit)
		default:
			return fmt.Errorf("line %d: unknown f %q", lineNo, l.F)
		}
		open[*l.Process] = len(s.ops)
		s.ops = append(s.ops, op)
	case "ok", "fail", "info":
		if l.Process == nil || l.Time == nil {
			return fmt.Errorf("line %d: completion without process or time", lineNo)
		}
		i, ok := open[*l.Process]
		if !ok {
			return fmt.Errorf("line %d: completion with nothing outstanding", lineNo)
		}
		delete(open, *l.Process)
		op := &s.ops[i]
		if l.Type == "info" {
			return nil // the effect may come at any time after the invoke
		}
		op.complete = *l.Time
		op.errCode = l.Error
		isPersist := op.kind == persistInfo
		switch {
		case l.Type == "fail" && isPersist:
			op.kind = persistFail
		case l.Type == "fail":
			op.kind = syncOther
		case isPersist:
			op.kind = persistOK
			op.seq, op.mid = u(l.Seq), str(l.MessageID)
			op.dedup = l.Dedup != nil && *l.Dedup
		default:
			op.kind = syncOK
			op.seqs, op.mids = l.Seqs, l.MessageIDs
			if len(op.seqs) != len(op.mids) {
				return fmt.Errorf("line %d: seqs and message_ids differ in length", lineNo)
			}
			for _, shown := range [][]string{l.Keys, l.Senders, l.Payloads} {
				if len(shown) > 0 && len(shown) != len(op.seqs) {
					return fmt.Errorf("line %d: keys, senders or payload_hashes not paired with seqs", lineNo)
				}
			}
			op.shownKeys, op.shownSenders, op.shownPayloads = l.Keys, l.Senders, l.Payloads
		}
	case "final":
		f := finalLine{table: l.Table, chat: str(l.Chat), seq: u(l.Seq), mid: str(l.MessageID),
			key: str(l.Key), value: u(l.Value), missing: l.Missing}
		if l.Sender != nil {
			f.sender, f.hasSender = *l.Sender, true
		}
		if l.Table == "messages" {
			f.payload = str(l.Payload)
		}
		s.read[l.Table] = true
		s.finals = append(s.finals, f)
	case "table_read":
		s.read[l.Table] = true
	case "end":
	default:
		return fmt.Errorf("line %d: the oracle does not read %q lines", lineNo, l.Type)
	}
	return nil
}

// chats lists every chat the history names, sorted.
func (s *spec) chats() []string {
	seen := map[string]bool{}
	for _, op := range s.ops {
		seen[op.chat] = true
	}
	for _, f := range s.finals {
		seen[f.chat] = true
	}
	out := make([]string, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
