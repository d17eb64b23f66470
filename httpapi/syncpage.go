package httpapi

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/chatseq/chatseq/internal/jsonstr"
	"github.com/chatseq/chatseq/store"
)

// writeSyncPage writes a SyncResponse: whole, with its length, when it
// encodes in syncPageWhole bytes, as most pages do; a larger page goes
// out in pieces of about that size, so that what one sync holds beyond
// the store's answer stays about syncPageWhole (encoded whole, eight pages
// of a thousand 1 MB messages took serve to 3.5 GB). Written a message at
// a time, through the server's 4 KB buffer and chunked, a page of a
// thousand small messages was forty-odd writes to the socket: a quarter
// of the CPU of a final state read back (BenchmarkReadBack in
// targets/httptarget).
func writeSyncPage(w http.ResponseWriter, msgs []store.Message, next *uint64) {
	w.Header().Set("Content-Type", "application/json")
	held := pageBuffers.Get().(*[]byte)
	buf := append((*held)[:0], `{"messages":[`...)
	streaming := false
	for i, m := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendMessageJSON(buf, Message{Sequence: m.Seq, MessageID: m.MessageID, ClientMessageID: m.Key, SenderID: m.Sender, Content: m.Content})
		if len(buf) >= syncPageWhole {
			if !streaming {
				w.WriteHeader(http.StatusOK)
				streaming = true
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, ']')
	if next != nil {
		buf = append(buf, `,"next_after":`...)
		buf = strconv.AppendUint(buf, *next, 10)
	}
	buf = append(buf, "}\n"...)
	if !streaming {
		w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
		w.WriteHeader(http.StatusOK)
	}
	_, _ = w.Write(buf)
	if cap(buf) <= 2*syncPageWhole { // one huge message's is let go
		*held = buf
		pageBuffers.Put(held)
	}
}

// syncPageWhole is how much of a page is encoded before it is written.
const syncPageWhole = 1 << 20

// pageBuffers are the pages' encoding buffers, one for each sync being
// answered at once.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

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
