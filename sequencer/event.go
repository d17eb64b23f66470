package sequencer

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// Topic is where ADR-004 step 5 publishes, keyed by chat id.
const Topic = "messages.persisted"

// MessagePersisted is the event of ADR-004 step 5.
type MessagePersisted struct {
	EventID     string
	EventTime   time.Time
	Chat        string
	Seq         uint64
	MessageID   string
	Sender      string
	Content     string
	ContentType string
	CreatedAt   time.Time
}

// AppendJSON encodes the event as ADR-004 lays it out, without reflection
// (this is on the hot path of every persist).
func (ev *MessagePersisted) AppendJSON(b []byte) []byte {
	b = append(b, `{"event_type":"MessagePersisted","event_id":`...)
	b = appendJSONString(b, ev.EventID)
	b = append(b, `,"event_time":`...)
	b = appendJSONString(b, ev.EventTime.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"partition_key":`...)
	b = appendJSONString(b, ev.Chat)
	b = append(b, `,"payload":{"message_id":`...)
	b = appendJSONString(b, ev.MessageID)
	b = append(b, `,"chat_id":`...)
	b = appendJSONString(b, ev.Chat)
	b = append(b, `,"sequence":`...)
	b = strconv.AppendUint(b, ev.Seq, 10)
	b = append(b, `,"sender_id":`...)
	b = appendJSONString(b, ev.Sender)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, ev.Content)
	b = append(b, `,"content_type":`...)
	b = appendJSONString(b, ev.ContentType)
	b = append(b, `,"created_at":`...)
	b = appendJSONString(b, ev.CreatedAt.UTC().Format(time.RFC3339Nano))
	return append(b, "}}"...)
}

const hexDigits = "0123456789abcdef"

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
