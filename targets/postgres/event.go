package postgres

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chatseq/chatseq/sequencer"
)

// Outbox row constants (§2: aggregate_type, event_type).
const (
	aggregateType = "conversation"
	eventType     = "MessageSentEvent"
)

// Topic is where the relay publishes (§1: "messages-topic").
const Topic = "messages-topic"

// encodeEvent serialises the event into the outbox payload, in the same
// JSON the other targets publish, so the topic reads back the same way.
func encodeEvent(ev *sequencer.MessagePersisted) []byte {
	return ev.AppendJSON(make([]byte, 0, 384))
}

// eventJSON mirrors MessagePersisted.AppendJSON's layout.
type eventJSON struct {
	EventID   string `json:"event_id"`
	EventTime string `json:"event_time"`
	Payload   struct {
		MessageID   string `json:"message_id"`
		ChatID      string `json:"chat_id"`
		Sequence    uint64 `json:"sequence"`
		SenderID    string `json:"sender_id"`
		Content     string `json:"content"`
		ContentType string `json:"content_type"`
		CreatedAt   string `json:"created_at"`
	} `json:"payload"`
}

// decodeEvent turns an outbox payload back into the event the publisher
// sends; the relay only ever reads payloads encodeEvent wrote.
func decodeEvent(b []byte) (sequencer.MessagePersisted, error) {
	var e eventJSON
	if err := json.Unmarshal(b, &e); err != nil {
		return sequencer.MessagePersisted{}, fmt.Errorf("outbox payload: %w", err)
	}
	evTime, err1 := time.Parse(time.RFC3339Nano, e.EventTime)
	created, err2 := time.Parse(time.RFC3339Nano, e.Payload.CreatedAt)
	if err1 != nil || err2 != nil {
		return sequencer.MessagePersisted{}, fmt.Errorf("outbox payload: bad time (%v, %v)", err1, err2)
	}
	return sequencer.MessagePersisted{
		EventID: e.EventID, EventTime: evTime, Chat: e.Payload.ChatID, Seq: e.Payload.Sequence,
		MessageID: e.Payload.MessageID, Sender: e.Payload.SenderID, Content: e.Payload.Content,
		ContentType: e.Payload.ContentType, CreatedAt: created,
	}, nil
}

// response is the cached gRPC response idempotency_keys.payload holds
// (§7.4: "the previously computed gRPC response (stored in payload)").
type response struct {
	ConversationID string `json:"conversation_id"`
	Sequence       uint64 `json:"sequence"`
	MessageID      string `json:"message_id"`
}
