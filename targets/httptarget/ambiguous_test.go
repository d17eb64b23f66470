package httptarget_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/httptarget"
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
// and a row naming a field twice is refused. chatseq's API types it
// (docs/openapi.yaml): a twin of a name but for case, which a client
// matching names regardless of case reads instead, a sequence sent as a
// string, a user as a number, and an answer naming another chat (whose
// rows passed as this one's) are refused too.
func TestADeliveryStateIsReadByExactNames(t *testing.T) {
	row := `{"user_id":"u","last_acked_sequence":5}`
	for _, c := range []struct{ answer, want string }{
		{`{"chat_id":"c","delivery_state":[{"user_id":"u","Last_Acked_Sequence":5}]}`, `row 0 with a member "Last_Acked_Sequence", which a client matching names regardless of case (Go's encoding/json) reads for the API's "last_acked_sequence"`},
		{`{"chat_id":"c","delivery_state":[{"user_id":"u","last_acked_sequence":0,"last_acked_sequence":5}]}`, `names "last_acked_sequence" twice`},
		{`{"chat_id":"c","delivery_state":[{"user_id":"u","last_acked_sequence":5,"Last_Acked_Sequence":0}]}`, `a member "Last_Acked_Sequence"`},
		{`{"chat_id":"c","delivery_state":[{"user_id":"u","last_acked_sequence":"5"}]}`, `row 0 with its sequence at "last_acked_sequence" not a JSON number`},
		{`{"chat_id":"c","delivery_state":[{"user_id":7,"last_acked_sequence":5}]}`, `row 0 with its user at "user_id" not a JSON string`},
		{`{"chat_id":"c","delivery_state":[{"user_id":"u","last_acked_sequence":5,"uſer_id":"v"}]}`, `a member "uſer_id"`},
		{`{"chat_id":"c","delivery_state":[` + row + `],"Delivery_State":[]}`, `a member "Delivery_State"`},
		{`{"chat_id":"c","Chat_ID":"d","delivery_state":[` + row + `]}`, `a member "Chat_ID"`},
		{`{"chat_id":"d","delivery_state":[` + row + `]}`, `not naming the chat asked for, "c", at "chat_id"`},
		{`{"delivery_state":[` + row + `]}`, `not naming the chat asked for, "c", at "chat_id"`},
		{`{"chat_id":7,"delivery_state":[` + row + `]}`, `not naming the chat asked for`},
		{`{"chat_id":"c","delivery_state":[` + row + `]}`, ""},
		{`{"chat_id":"c","delivery_state":[{"user_id":"u","last_acked_sequence":5,"device":"d1"}]}`, ""},
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

// A mapping's delivery_state names its chat where push.delivery_state.chat
// says (docs/examples/push-mapping.yaml: "conversation"): another chat's
// receipts, which passed as this one's, leave the final state unread.
// Read loosely (typed false), a sequence may come as a string of digits
// and a twin of a name is a member like any.
func TestAMappedDeliveryStateNamesItsChat(t *testing.T) {
	api, err := httptarget.ParseAPI("m.yaml", []byte("push:\n  path: /stream\n  delivery_state:\n    path: /conversations/{chat}/receipts\n    rows: receipts\n    user: member\n    sequence: read_up_to\n    chat: conversation\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ answer, want string }{
		{`{"conversation":"c","receipts":[{"member":"u","read_up_to":"5","Read_Up_To":0}]}`, ""},
		{`{"conversation":"d","receipts":[{"member":"u","read_up_to":5}]}`, `not naming the chat asked for, "c", at "conversation"`},
		{`{"receipts":[{"member":"u","read_up_to":5}]}`, `not naming the chat asked for, "c", at "conversation"`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(c.answer))
		}))
		base, _ := url.Parse(srv.URL)
		tgt, err := httptarget.Factory(base, api, nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
		if err != nil {
			t.Fatal(err)
		}
		ch, err := tgt.(gateway.ChannelServer).PushChannel(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := ch.DeliveryStates(context.Background(), "c")
		switch {
		case c.want == "" && (err != nil || len(rows) != 1 || rows[0].LastAckedSequence != 5):
			t.Errorf("%s: %+v, %v; want u at 5", c.answer, rows, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %+v, %v; want an error naming %q", c.answer, rows, err, c.want)
		}
		tgt.Close()
		srv.Close()
	}
}
