// Package httpapi is chatseq's chat sequencing HTTP API (docs/http-api.md,
// docs/openapi.yaml): the wire format, and a server that puts any
// target.Target behind it, the reference implementation `chatseq serve`
// runs and the http target drives.
package httpapi

// Headers of the API.
const (
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderReplayed       = "Idempotency-Replayed"
	HeaderRetryAfter     = "Retry-After"
	// HeaderFaults and HeaderRace are the reference server's test hooks
	// (faults.go): a client asks chatseq serve to fail this request the
	// way a fault plan says, or to race it with its twin. Other services
	// ignore them.
	HeaderFaults = "Chatseq-Faults"
	HeaderRace   = "Chatseq-Race"
)

// Machine codes in error bodies.
const (
	CodeKeyRequired     = "idempotency.key_required"
	CodeKeyTooLong      = "idempotency.key_too_long"
	CodePayloadMismatch = "idempotency.payload_mismatch"
	CodeNotAMember      = "chat.not_a_member"
	CodeChatExists      = "chat.exists"
	CodeChatNotFound    = "chat.not_found"
	CodeBadRequest      = "request.invalid"
	CodeUnavailable     = "service.unavailable"
	CodeUnknownOutcome  = "service.unknown_outcome"
	// CodeUnauthenticated: no X-User-Id (401). CodeSenderMismatch: a
	// body's sender_id that is not the caller (403).
	CodeUnauthenticated = "auth.required"
	CodeSenderMismatch  = "auth.sender_mismatch"
	// CodeTestHooksOff: a test hook asked of a server started without
	// them (chatseq serve --test-hooks).
	CodeTestHooksOff = "test_hooks.off"
	// CodeKafkaOff: a Kafka outage asked of a server that publishes to
	// no Kafka (chatseq serve without --kafka embedded or --brokers).
	CodeKafkaOff = "kafka.off"
)

// KafkaOutagePath is the test hook that fails the server's Kafka
// produces for a while (the kafka_outage fault of bench --target http).
const KafkaOutagePath = "/v1/test/kafka_outage"

// SettlePath is the test hook that waits for the work the server does
// after answering (an outbox relay's publishes): bench --target http calls
// it before it reads the final state and the topic back.
const SettlePath = "/v1/test/settle"

// KafkaOutageRequest is POST KafkaOutagePath's body: how long, from now,
// every produce of the server fails.
type KafkaOutageRequest struct {
	ForMS int64 `json:"for_ms"`
}

// MaxKeyLength is the consistency strategy's limit on Idempotency-Key.
const MaxKeyLength = 128

// CreateChatRequest is PUT /v1/chats/{chat_id}'s body.
type CreateChatRequest struct {
	Members []string `json:"members"`
}

// Chat is a created chat.
type Chat struct {
	ChatID  string   `json:"chat_id"`
	Members []string `json:"members"`
}

// SendRequest is POST /v1/chats/{chat_id}/messages's body. SenderID may
// be left out; when given it must be the caller (HeaderUser).
type SendRequest struct {
	SenderID    string `json:"sender_id,omitempty"`
	Content     string `json:"content"`
	ContentType string `json:"content_type,omitempty"`
}

// SendResponse is the ACK: 201, and the same body again on a replay.
type SendResponse struct {
	ChatID          string `json:"chat_id"`
	ClientMessageID string `json:"client_message_id"`
	MessageID       string `json:"message_id"`
	Sequence        uint64 `json:"sequence"`
}

// Message is one message of a sync page.
type Message struct {
	Sequence        uint64 `json:"sequence"`
	MessageID       string `json:"message_id"`
	ClientMessageID string `json:"client_message_id"`
	SenderID        string `json:"sender_id"`
	Content         string `json:"content"`
}

// SyncResponse is GET /v1/chats/{chat_id}/messages: messages with sequence
// above after, ascending, at most limit; NextAfter is where the next page
// starts (the last sequence returned), absent when this page was not full.
type SyncResponse struct {
	Messages  []Message `json:"messages"`
	NextAfter *uint64   `json:"next_after,omitempty"`
}

// Counter is the reference server's test hook on a chat's counter.
type Counter struct {
	Value uint64 `json:"value"`
}

// ErrorBody is every error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail names the error by machine code; Cause is the sequencer's
// own code (counter_missing, crash_after_allocate…), when there is one.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Cause   string `json:"cause,omitempty"`
}
