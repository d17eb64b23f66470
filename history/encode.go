package history

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
	"github.com/chatseq/chatseq/internal/jsonstr"
	"github.com/chatseq/chatseq/internal/redact"
)

// The encoders append one line, newline included, to b. They write fields in
// a fixed order and only the fields the line's kind carries, so that reading
// the line back gives the same Event. They are reflection-free because the
// recorder calls them on the load generator's hot path.

func appendEvent(b []byte, e *Event) []byte {
	b = appendEventHead(b, e)
	b = strconv.AppendInt(b, e.Time, 10)
	b, _ = appendEventTail(b, e)
	return b
}

// appendEventHead encodes the line up to its time; appendEventTail the
// rest. The recorder encodes both before taking its lock, and stamps the
// time between them under it.
func appendEventHead(b []byte, e *Event) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, e.Kind.String()...)
	b = append(b, `","process":`...)
	b = strconv.AppendInt(b, int64(e.Process), 10)
	switch e.F { // the known names need no escaping
	case FPersist:
		return append(b, `,"f":"persist","time":`...)
	case FAllocate:
		return append(b, `,"f":"allocate","time":`...)
	case FSync:
		return append(b, `,"f":"sync","time":`...)
	}
	b = append(b, `,"f":`...)
	b = appendString(b, e.F)
	return append(b, `,"time":`...)
}

// appendEventTail also reports whether the line's strings, but for a
// sync's answer, were all plain ASCII (jsonstr.AppendPlain): the tap's
// reader then need not check them again.
func appendEventTail(b []byte, e *Event) (line []byte, plain bool) {
	plain = true
	switch e.Kind {
	case KindInvoke:
		b = appendPlainField(b, `,"chat":`, e.Chat, &plain)
		if e.F == FSync {
			b = appendUintField(b, `,"after":`, e.After)
			b = append(b, `,"limit":`...)
			b = strconv.AppendInt(b, int64(e.Limit), 10)
			if e.Reader {
				b = append(b, `,"reader":true`...)
			}
			if e.Sender != "" {
				b = appendPlainField(b, `,"user":`, e.Sender, &plain)
			}
			break
		}
		b = appendPlainField(b, `,"key":`, e.Key, &plain)
		if e.Sender != "" {
			b = appendPlainField(b, `,"sender":`, e.Sender, &plain)
		}
		if e.PayloadHash != "" {
			b = appendPlainField(b, `,"payload_hash":`, e.PayloadHash, &plain)
		}
	case KindTrace:
		b = appendPlainField(b, `,"chat":`, e.Chat, &plain)
		b = appendUintField(b, `,"seq":`, e.Seq)
		if e.HasStart {
			b = append(b, `,"start":`...)
			b = strconv.AppendInt(b, e.Start, 10)
		}
	default: // completions; chat and key may be left to the invoke
		if e.Chat != "" {
			b = appendPlainField(b, `,"chat":`, e.Chat, &plain)
		}
		if e.F != FSync && e.Key != "" {
			b = appendPlainField(b, `,"key":`, e.Key, &plain)
		}
		switch {
		case e.Kind != KindOK:
			if e.Error != "" {
				b = appendPlainField(b, `,"error":`, e.Error, &plain)
			}
		case e.F == FSync:
			b = appendSyncResult(b, e.Sync)
		default:
			b = appendUintField(b, `,"seq":`, e.Seq)
			b = appendPlainField(b, `,"message_id":`, e.MessageID, &plain)
			b = append(b, `,"dedup":`...)
			b = strconv.AppendBool(b, e.Dedup)
		}
	}
	return append(b, "}\n"...), plain
}

func appendSyncResult(b []byte, r *SyncResult) []byte {
	var seqs []uint64
	var ids []string
	if r != nil {
		seqs, ids = r.Seqs, r.MessageIDs
	}
	b = append(b, `,"seqs":[`...)
	for i, s := range seqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, s, 10)
	}
	b = append(b, `],"message_ids":[`...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, id)
	}
	b = append(b, ']')
	if r != nil {
		b = appendStringArray(b, `,"keys":`, r.Keys)
		b = appendStringArray(b, `,"senders":`, r.Senders)
		b = appendStringArray(b, `,"payload_hashes":`, r.PayloadHashes)
	}
	return b
}

func appendFinal(b []byte, f *Final) (line []byte, plain bool) {
	b, plain = appendFinalPrefix(b, f)
	return appendFinalRest(b, f, plain)
}

// appendFinalPrefix encodes a final line up to its chat.
func appendFinalPrefix(b []byte, f *Final) (line []byte, plain bool) {
	b = append(b, `{"type":"final","table":`...)
	b, plain = jsonstr.AppendPlain(b, f.Table)
	return appendPlainField(b, `,"chat":`, f.Chat, &plain), plain
}

// finalPrefixes encodes final lines, each line's table and chat once for
// a run of lines that share them: a store's final state lists a chat's
// messages, then its idempotency records, thousands at a time.
type finalPrefixes struct {
	table, chat string
	prefix      []byte
	plain       bool
}

func (c *finalPrefixes) appendFinal(b []byte, f *Final) (line []byte, plain bool) {
	if c.prefix == nil || f.Table != c.table || f.Chat != c.chat {
		c.table, c.chat = f.Table, f.Chat
		c.prefix, c.plain = appendFinalPrefix(c.prefix[:0], f)
	}
	return appendFinalRest(append(b, c.prefix...), f, c.plain)
}

// appendFinalRest encodes a final line after its chat.
func appendFinalRest(b []byte, f *Final, plain bool) (line []byte, _ bool) {
	switch f.Table {
	case TableCounters:
		if f.Missing {
			b = append(b, `,"missing":true`...)
		} else {
			b = appendUintField(b, `,"value":`, f.Value)
		}
	case TableEvents:
		b = appendUintField(b, `,"seq":`, f.Seq)
		b = appendPlainField(b, `,"message_id":`, f.MessageID, &plain)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(f.Partition), 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, f.Offset, 10)
	default: // messages, idempotency
		b = appendUintField(b, `,"seq":`, f.Seq)
		b = appendPlainField(b, `,"message_id":`, f.MessageID, &plain)
		b = appendPlainField(b, `,"key":`, f.Key, &plain)
		if f.Sender != "" {
			b = appendPlainField(b, `,"sender":`, f.Sender, &plain)
		}
		if f.PayloadHash != "" && f.Table == TableMessages {
			b = appendPlainField(b, `,"payload_hash":`, f.PayloadHash, &plain)
		}
	}
	return append(b, "}\n"...), plain
}

// appendTableRead encodes a table_read line: table was read and lines of
// its lines are in the file.
func appendTableRead(b []byte, t *TableRead) []byte {
	b = append(b, `{"type":"table_read","table":`...)
	b = appendString(b, t.Table)
	b = appendUintField(b, `,"lines":`, t.Lines)
	return append(b, "}\n"...)
}

// endLine is the line that ends a complete file whose header promised it.
const endLine = `{"type":"end"}` + "\n"

// appendHeader encodes the header line. Unlike events, a header comes from
// configuration, so it is checked: a bad one would make the whole file
// unreadable.
func appendHeader(b []byte, h *Header) ([]byte, error) {
	if h.Version != 0 && h.Version != Version {
		return b, fmt.Errorf("history header: version %d; this recorder writes version %d", h.Version, Version)
	}
	if err := checkContract(h.Contract); err != nil {
		return b, err
	}
	b = append(b, `{"format":"`+Format+`","version":`...)
	b = strconv.AppendInt(b, Version, 10)
	if h.EndLine {
		b = append(b, `,"end_line":true`...)
	}
	if c := h.Contract; c != (Contract{}) {
		b = append(b, `,"contract":{`...)
		sep := ""
		for _, f := range ContractFields {
			if v := *f.Of(&c); v != "" {
				b = append(b, sep...)
				b = appendStringField(b, `"`+f.Name+`":`, v)
				sep = ","
			}
		}
		b = append(b, '}')
	}
	if h.Target != "" {
		b = appendStringField(b, `,"target":`, h.Target)
	}
	if h.Scenario != "" {
		b = appendStringField(b, `,"scenario":`, h.Scenario)
	}
	if h.HasSeed {
		b = append(b, `,"seed":`...)
		b = strconv.AppendInt(b, h.Seed, 10)
	}
	names := make([]string, 0, len(h.Extra))
	for name := range h.Extra {
		names = append(names, name)
	}
	slices.Sort(names) // a stable order makes files comparable
	for _, name := range names {
		value := h.Extra[name]
		if isHeaderField(name) {
			return b, fmt.Errorf("history header: extra field %q would shadow the header's own field", name)
		}
		if !isExtraValue(value) {
			return b, fmt.Errorf("history header: extra field %q is not one JSON value on one line: %q", name, value)
		}
		if x := lookupExtension(name); x != nil {
			if err := x.check(value); err != nil {
				return b, fmt.Errorf("history header: %w", err)
			}
		}
		b = append(b, ',')
		b = appendString(b, name)
		b = append(b, ':')
		b = append(b, value...)
	}
	return append(b, "}\n"...), nil
}

// isExtraValue reports whether v can be written verbatim as a header field's
// value and read back unchanged: one JSON value, no surrounding space, no
// line break.
func isExtraValue(v string) bool {
	return v != "" && strings.TrimSpace(v) == v && !strings.ContainsRune(v, '\n') && jsonscan.CheckValue([]byte(v)) == nil
}

func checkContract(c Contract) error {
	return c.Validate(func(f *ContractField, v string) error {
		return fmt.Errorf("history header: contract %s must be %s, got %q", f.Name, f.Choices(true, "or"), v)
	})
}

func appendStringField(b []byte, prefix, s string) []byte {
	return appendString(append(b, prefix...), s)
}

// appendPlainField is appendStringField, and clears *plain unless s was
// plain ASCII (jsonstr.AppendPlain).
func appendPlainField(b []byte, prefix, s string, plain *bool) []byte {
	b, p := jsonstr.AppendPlain(append(b, prefix...), redact.Value(s))
	*plain = *plain && p
	return b
}

func appendUintField(b []byte, prefix string, v uint64) []byte {
	return strconv.AppendUint(append(b, prefix...), v, 10)
}

// appendString appends s as a JSON string. Every string a line holds
// passes here or appendPlainField: one a service gave that holds a
// credential chatseq was given is written as a stand-in (redact.Value).
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, redact.Value(s)) }
