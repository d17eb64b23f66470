package sequencer

import (
	"strconv"
	"time"

	"github.com/chatseq/chatseq/internal/jsonstr"
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
	b = jsonstr.Append(b, ev.EventID)
	b = append(b, `,"event_time":`...)
	b = jsonstr.Append(b, ev.EventTime.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"partition_key":`...)
	b = jsonstr.Append(b, ev.Chat)
	b = append(b, `,"payload":{"message_id":`...)
	b = jsonstr.Append(b, ev.MessageID)
	b = append(b, `,"chat_id":`...)
	b = jsonstr.Append(b, ev.Chat)
	b = append(b, `,"sequence":`...)
	b = strconv.AppendUint(b, ev.Seq, 10)
	b = append(b, `,"sender_id":`...)
	b = jsonstr.Append(b, ev.Sender)
	b = append(b, `,"content":`...)
	b = jsonstr.Append(b, ev.Content)
	b = append(b, `,"content_type":`...)
	b = jsonstr.Append(b, ev.ContentType)
	b = append(b, `,"created_at":`...)
	b = jsonstr.Append(b, ev.CreatedAt.UTC().Format(time.RFC3339Nano))
	return append(b, "}}"...)
}
