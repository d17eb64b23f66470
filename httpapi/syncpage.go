package httpapi

import (
	"net/http"
	"strconv"

	"github.com/chatseq/chatseq/internal/jsonstr"
	"github.com/chatseq/chatseq/store"
)

// writeSyncPage writes a SyncResponse a message at a time, so that what one
// sync holds beyond the store's answer is one message's encoding: encoded
// whole, eight pages of a thousand 1 MB messages took serve to 3.5 GB. The
// page's one buffer is reused for every message rather than json.Encoder's
// pooled one, which the race detector's sync.Pool drops a quarter of the time.
func writeSyncPage(w http.ResponseWriter, msgs []store.Message, next *uint64) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	buf := []byte(`{"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendMessageJSON(buf, Message{Sequence: m.Seq, MessageID: m.MessageID, ClientMessageID: m.Key, SenderID: m.Sender, Content: m.Content})
		if _, err := w.Write(buf); err != nil {
			return
		}
		buf = buf[:0]
	}
	buf = append(buf, ']')
	if next != nil {
		buf = append(buf, `,"next_after":`...)
		buf = strconv.AppendUint(buf, *next, 10)
	}
	buf = append(buf, "}\n"...)
	_, _ = w.Write(buf)
}

// appendMessageJSON encodes m as its json tags name its fields.
func appendMessageJSON(b []byte, m Message) []byte {
	b = append(b, `{"sequence":`...)
	b = strconv.AppendUint(b, m.Sequence, 10)
	b = append(b, `,"message_id":`...)
	b = jsonstr.Append(b, m.MessageID)
	b = append(b, `,"client_message_id":`...)
	b = jsonstr.Append(b, m.ClientMessageID)
	b = append(b, `,"sender_id":`...)
	b = jsonstr.Append(b, m.SenderID)
	b = append(b, `,"content":`...)
	b = jsonstr.Append(b, m.Content)
	return append(b, '}')
}
