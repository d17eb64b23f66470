package httptarget_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// foreignPush fronts chatseq serve with another service's push dialect,
// the one docs/examples/push-mapping.yaml maps: a socket at /stream?who=U
// whose frames are one event each (a typing event before every message,
// which a device must skip), read receipts as their own event, and the
// kept receipts at /conversations/{chat}/receipts. Sends and syncs go
// through to the server; its own push channel is not served.
func foreignPush(t *testing.T, server string) *httptest.Server {
	t.Helper()
	up, _ := url.Parse("http://" + server)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		user := r.URL.Query().Get("who")
		if user == "" || r.Header.Get(httpapi.HeaderUser) != "" {
			http.Error(w, "say who you are in ?who=, and only there", http.StatusUnauthorized)
			return
		}
		src, err := httpapi.DialPush(r.Context(), up.String(), user, httpapi.PushDialOptions{})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		dst, err := websocket.Accept(w, r, nil)
		if err != nil {
			_ = src.CloseNow()
			return
		}
		ctx := r.Context()
		go func() {
			for {
				_, data, err := dst.Read(ctx)
				if err != nil {
					_ = src.CloseNow()
					return
				}
				var read struct {
					Event        string `json:"event"`
					Conversation string `json:"conversation"`
					UpTo         uint64 `json:"up_to"`
				}
				if json.Unmarshal(data, &read) != nil || read.Event != "read" {
					_ = dst.Close(websocket.StatusPolicyViolation, "not a read receipt")
					return
				}
				if src.Ack(ctx, read.Conversation, read.UpTo) != nil {
					return
				}
			}
		}()
		for {
			msgs, err := src.Next(ctx)
			if err != nil {
				_ = dst.CloseNow()
				return
			}
			for _, m := range msgs {
				typing, _ := json.Marshal(map[string]any{"event": "typing", "payload": map[string]any{"conversation": m.ChatID}})
				frame, _ := json.Marshal(map[string]any{"event": "message", "payload": map[string]any{
					"conversation": m.ChatID, "seq": strconv.FormatUint(m.Sequence, 10), "id": m.MessageID,
					"author": m.SenderID, "body": m.Content, "sent_at": m.CreatedAt.Format(time.RFC3339Nano),
				}})
				if dst.Write(ctx, websocket.MessageText, typing) != nil || dst.Write(ctx, websocket.MessageText, frame) != nil {
					_ = src.CloseNow()
					return
				}
			}
		}
	})
	mux.HandleFunc("GET /conversations/{chat}/receipts", func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, up.String()+"/v1/chats/"+url.PathEscape(r.PathValue("chat"))+"/delivery_state", nil)
		req.Header.Set(httpapi.HeaderUser, r.Header.Get(httpapi.HeaderUser))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var ds httpapi.DeliveryStateResponse
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&ds) != nil {
			http.Error(w, "no receipts", http.StatusBadGateway)
			return
		}
		rows := make([]map[string]any, len(ds.DeliveryState))
		for i, row := range ds.DeliveryState {
			rows[i] = map[string]any{"member": row.UserID, "read_up_to": row.LastAckedSequence}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"conversation": ds.ChatID, "receipts": rows})
	})
	// chatseq's own push channel and delivery_state are not this
	// service's: only the mapping reaches the delivery plane.
	notHere := func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
	mux.HandleFunc(httpapi.PushPath, notHere)
	mux.HandleFunc("GET /v1/chats/{chat}/delivery_state", notHere)
	mux.Handle("/", httputil.NewSingleHostReverseProxy(up))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// bench --receivers against a service whose push channel speaks another
// dialect, through docs/examples/push-mapping.yaml: every device connects,
// skips the frames that carry no message, acks in the service's words,
// and the receipts it kept are read back; connections are dropped on a
// clock. The four delivery invariants are judged and hold.
func TestReceiversThroughAPushMapping(t *testing.T) {
	file := filepath.Join("..", "..", "docs", "examples", "push-mapping.yaml")
	api, err := httptarget.LoadAPI(file)
	if err != nil {
		t.Fatal(err)
	}
	// Connections dropped every 5 ms on a busy machine (the race detector)
	// may leave every message to the catch-ups, which time no fan-out: a
	// run with no streamed receipt is no evidence, and another seed runs.
	// Each try gets a fresh service: a rerun against the first one's
	// would find its chats already created.
	evidence.Rerun(t, evidence.Default, func(n int) string {
		s := startServer(t, sequencer.SyncWatermark, true)
		proxy := foreignPush(t, s.Addr)
		opened, err := targets.Open(context.Background(), httptarget.Name, targets.Options{URL: proxy.URL, API: file})
		if err != nil {
			t.Fatal(err)
		}
		base, _ := url.Parse(proxy.URL)
		cfg := bench.DefaultConfig()
		cfg.Seed = int64(n)
		cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 3, 600, 0
		cfg.Receivers, cfg.DropConnectionsEvery, cfg.SyncLimit = 2, 5*time.Millisecond, 7
		cfg.Target, cfg.Contract = httptarget.Name, opened.Contract
		cfg.Brokers, cfg.Topic = s.Brokers, s.Topic
		cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := bench.RunTarget(ctx, cfg, httptarget.Factory(base, api, nil))
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		status := map[string]checker.Status{}
		for _, inv := range rep.Invariants {
			status[inv.Name] = inv.Status
			if inv.Status == checker.Fail {
				t.Errorf("%s failed: %s", inv.Name, inv.Detail)
			}
		}
		for _, name := range []string{checker.NameEventualVisibility, checker.NameIdenticalOrder, checker.NameDeliveryStateConsistency, checker.NamePushAuthorization} {
			if status[name] != checker.Pass {
				t.Errorf("%s: %q, want pass (judged)", name, status[name])
			}
		}
		// The mapping's content and sender reach the history, and are
		// compared with what was sent.
		if r, _ := rep.Result(checker.NameIdenticalOrder); !strings.Contains(r.Detail, "carried as their persist sent them (content hash and sender)") {
			t.Errorf("identical_order compared no pushed content: %s", r.Detail)
		}
		r := res.Receivers
		if r.Pushes == 0 || r.Acks == 0 || r.Drops == 0 || res.FanOut.TotalCount() == 0 {
			return fmt.Sprintf("pushes, acks, drops and fan-out latencies read from sent_at (receivers %+v, fan-out timed %d times)", r, res.FanOut.TotalCount())
		}
		return ""
	})
}
