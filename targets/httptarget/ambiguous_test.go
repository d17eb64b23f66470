package httptarget_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// An answer its readers may take two ways is no answer of the API
// (bad_response): a name given twice in one object (encoding/json and
// JavaScript take the last value, fastjson the first) or half a UTF-16
// surrogate pair escaped in a string (read as U+FFFD here, kept by a
// JavaScript client, so an acked id the client never finds again passed).
// A red-team's hostile service recorded the first value as the truth.
func TestAnAmbiguousAnswerIsABadResponse(t *testing.T) {
	for _, c := range []struct{ send, page, want string }{
		{`{"sequence":1,"message_id":"m1","sequence":2}`, `{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k","sender_id":"u","content":"hi","content":"forged"}]}`, `names "sequence" twice`},
		{`{"sequence":1,"message_id":"m1\ud800"}`, `{"messages":[{"sequence":1,"message_id":"m1\udc00","client_message_id":"k","sender_id":"u","content":"hi"}]}`, `\ud800 alone`},
	} {
		tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			if r.Method == http.MethodGet {
				w.Write([]byte(c.page))
				return
			}
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(c.send))
		}))
		_, err := tgt.Persist(context.Background(), sequencer.Request{Chat: "c", Key: "k", Sender: "u", Content: "hi"}, nil)
		if kind, code := target.Completion(err); kind != history.KindInfo || code != history.ErrorBadResponse || !strings.Contains(err.Error(), c.want) {
			t.Errorf("send answered %s: recorded %s %q (%v); want info %q naming %q", c.send, kind, code, err, history.ErrorBadResponse, c.want)
		}
		_, err = tgt.Sync(context.Background(), "c", 0, 10)
		if kind, code := target.Completion(err); kind != history.KindFail || code != history.ErrorBadResponse {
			t.Errorf("page %s: recorded %s %q (%v); want fail %q", c.page, kind, code, err, history.ErrorBadResponse)
		}
	}
}

// A delivery_state row is read by its exact names, as its clients read
// it: "Last_Acked_Sequence" is not the row's last_acked_sequence (decoded
// into a struct it was, and a service whose every client saw 0 passed),
// and a row naming a field twice is refused.
func TestADeliveryStateIsReadByExactNames(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{`{"delivery_state":[{"user_id":"u","Last_Acked_Sequence":5}]}`, `row 0 without a user at "user_id" and a sequence at "last_acked_sequence"`},
		{`{"delivery_state":[{"user_id":"u","last_acked_sequence":0,"last_acked_sequence":5}]}`, `names "last_acked_sequence" twice`},
		{`{"delivery_state":[{"user_id":"u","last_acked_sequence":5}]}`, ""},
	} {
		tgt := openTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(c.answer))
		}))
		ch, err := tgt.(gateway.ChannelServer).PushChannel(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := ch.DeliveryStates(context.Background(), "c")
		if c.want == "" {
			if err != nil || len(rows) != 1 || rows[0].LastAckedSequence != 5 || rows[0].UserID != "u" {
				t.Errorf("%s: %+v, %v; want u at 5", c.answer, rows, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %+v, %v; want an error naming %q", c.answer, rows, err, c.want)
		}
	}
}
