package httpapi

import (
	"strconv"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/internal/jsonstr"
)

// The push channel (GET /v1/push, docs/asyncapi.yaml): a device's
// WebSocket, on which the server sends MessagesFrame and the device sends
// AckFrame.
const (
	PushPath = "/v1/push"
	// FrameMessages and FrameAck are the frames' type fields.
	FrameMessages = "messages"
	FrameAck      = "ack"
	// MaxFrameMessages is the most messages a MessagesFrame holds
	// (asyncapi.yaml: maxItems).
	MaxFrameMessages = 256
)

// Machine codes of the push channel's HTTP refusals (before the upgrade).
const (
	// CodePushOff: the server has no events topic to push from.
	CodePushOff = "push.unavailable"
	// CodeTooManyConnections: the server holds its cap of devices.
	CodeTooManyConnections = "push.too_many_connections"
)

// PushedMessage is one message of a MessagesFrame: the MessagePersisted
// event's payload.
type PushedMessage struct {
	ChatID      string    `json:"chat_id"`
	Sequence    uint64    `json:"sequence"`
	MessageID   string    `json:"message_id"`
	SenderID    string    `json:"sender_id"`
	Content     string    `json:"content"`
	ContentType string    `json:"content_type,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

// MessagesFrame carries messages as the server's topic consumer read them:
// per chat in the topic's order, which may repeat a message (at-least-once)
// or, across a reconnect, overlap a sync; a device reorders by sequence
// (ADR-001 §6).
type MessagesFrame struct {
	Type     string          `json:"type"`
	Messages []PushedMessage `json:"messages"`
}

// AckFrame is ADR-001 §5's delivery acknowledgment: the device has every
// message of ChatID up to LastAckedSequence.
type AckFrame struct {
	Type              string  `json:"type"`
	ChatID            string  `json:"chat_id"`
	LastAckedSequence *uint64 `json:"last_acked_sequence"`
}

// DeliveryStateResponse is GET /v1/chats/{chat_id}/delivery_state.
type DeliveryStateResponse struct {
	ChatID        string              `json:"chat_id"`
	DeliveryState []DeliveryStateItem `json:"delivery_state"`
}

// DeliveryStateItem is one member's acknowledged position.
type DeliveryStateItem struct {
	UserID            string `json:"user_id"`
	LastAckedSequence uint64 `json:"last_acked_sequence"`
}

// messagesFramePrefix opens a MessagesFrame; appendPushedMessage adds
// one message and "]}" closes it. They encode without reflection (every
// delivery passes here) and read back through MessagesFrame's tags.
const messagesFramePrefix = `{"type":"messages","messages":[`

func appendPushedMessage(b []byte, m *gateway.Message) []byte {
	b = append(b, `{"chat_id":`...)
	b = jsonstr.Append(b, m.ChatID)
	b = append(b, `,"sequence":`...)
	b = strconv.AppendUint(b, m.Sequence, 10)
	b = append(b, `,"message_id":`...)
	b = jsonstr.Append(b, m.MessageID)
	b = append(b, `,"sender_id":`...)
	b = jsonstr.Append(b, m.SenderID)
	b = append(b, `,"content":`...)
	b = jsonstr.Append(b, m.Content)
	if m.ContentType != "" {
		b = append(b, `,"content_type":`...)
		b = jsonstr.Append(b, m.ContentType)
	}
	b = append(b, `,"created_at":"`...)
	b = m.CreatedAt.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...)
}

// appendMessagesFrame encodes msgs from the first into one frame, stopping
// once the frame reaches maxBytes (the first message always goes) or
// holds MaxFrameMessages; it returns the frame and how many messages it
// holds.
func appendMessagesFrame(b []byte, msgs []*gateway.Message, maxBytes int) ([]byte, int) {
	b = append(b, messagesFramePrefix...)
	n := 0
	for n < len(msgs) && n < MaxFrameMessages && (n == 0 || len(b) < maxBytes) {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendPushedMessage(b, msgs[n])
		n++
	}
	return append(b, "]}"...), n
}
