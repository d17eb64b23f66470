package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Log entry operations.
const (
	opCreate     = "create"      // a chat starts at sequence 0
	opWrite      = "write"       // one message
	opSetCounter = "set_counter" // a chat's last sequence is put at Value
)

// command is one Raft log entry. Everything the state machine decides
// from is in it (the time included), so every node applies it the same way.
type command struct {
	Op          string `json:"op"`
	Chat        string `json:"chat"`
	Sender      string `json:"sender,omitempty"`
	Key         string `json:"key,omitempty"` // the client's key as sent, for the final tables
	Key16       []byte `json:"key16,omitempty"`
	PayloadHash []byte `json:"payload_hash,omitempty"`
	MessageID   string `json:"message_id,omitempty"` // made by the proposer: apply must not draw randomness
	Content     string `json:"content,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Time        int64  `json:"time,omitempty"` // proposer's clock, unix ns: TTLs are judged by it
	Seq         uint64 `json:"seq,omitempty"`  // propose-time-sequence only
	Value       uint64 `json:"value,omitempty"`
}

func (c *command) encode() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("ledger: encoding a command: %v", err)) // only plain fields: cannot fail
	}
	return b
}

func decodeCommand(b []byte) (command, error) {
	var c command
	err := json.Unmarshal(b, &c)
	return c, err
}

// result is what applying an entry returned to the proposer.
type result struct {
	Seq       uint64
	MessageID string
	Dedup     bool   // the key was applied before: the original result
	Reused    bool   // the key was applied before with another payload
	Err       string // the entry was rejected (unknown chat)
}

// key16 is the ADR's 16-byte idempotency key, derived from the client's
// key (the bench's keys are strings, not UUIDs).
func key16(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:16]
}

// payloadHash is the ADR's "hash of serialized request (excluding
// idempotency_key field)": the chat, the sender and the content.
func payloadHash(chat, sender, contentType, content string) []byte {
	h := sha256.New()
	for _, s := range []string{chat, sender, contentType, content} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return h.Sum(nil)
}

// scope is the ADR's idempotency key (ns_id, vault_id, client_id,
// idempotency_key): the chat is the vault, the sender the client. The key
// is hex: scopes are JSON map keys in snapshots, and raw bytes that are
// not UTF-8 would come back altered.
func scope(chat, sender string, k16 []byte) string {
	return chat + "\x00" + sender + "\x00" + hex.EncodeToString(k16)
}
