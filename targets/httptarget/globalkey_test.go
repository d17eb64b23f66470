package httptarget_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
)

// globalKeyService keeps each chat's messages and serves them honestly,
// but keys idempotency by the key alone, not by chat and key (ADR-004's
// table): a key first sent to one chat, sent to another, is answered as a
// replay of the first chat's message. Its answers name the request's chat
// and key, whatever message they acknowledge, so only the invariants can
// show the flaw.
type globalKeyService struct {
	mu      sync.Mutex
	msgs    map[string][]map[string]any // by chat
	answers map[string]map[string]any   // by key alone
}

func (s *globalKeyService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/") // v1 chats {chat} [messages]
	w.Header().Set("Content-Type", "application/json")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(parts) == 3 && r.Method == http.MethodPut:
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{}`))
	case len(parts) == 4 && parts[3] == "messages" && r.Method == http.MethodPost:
		chat, key := parts[2], r.Header.Get(httpapi.HeaderIdempotencyKey)
		if answer, replay := s.answers[key]; replay {
			w.Header().Set(httpapi.HeaderReplayed, "true")
			w.WriteHeader(http.StatusOK)
			answer["chat_id"] = chat
			b, _ := json.Marshal(answer)
			w.Write(b)
			return
		}
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		seq := len(s.msgs[chat]) + 1
		m := map[string]any{"sequence": seq, "message_id": fmt.Sprintf("m-%s-%d", chat, seq), "client_message_id": key,
			"sender_id": body["sender_id"], "content": body["content"]}
		s.msgs[chat] = append(s.msgs[chat], m)
		answer := map[string]any{"chat_id": chat, "client_message_id": key, "sequence": seq, "message_id": m["message_id"]}
		s.answers[key] = answer
		w.WriteHeader(http.StatusCreated)
		b, _ = json.Marshal(answer)
		w.Write(b)
	case len(parts) == 4 && parts[3] == "messages" && r.Method == http.MethodGet:
		after, _ := strconv.Atoi(r.URL.Query().Get("after"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		page := []map[string]any{}
		for _, m := range s.msgs[parts[2]] {
			if m["sequence"].(int) > after && (limit <= 0 || len(page) < limit) {
				page = append(page, m)
			}
		}
		out, _ := json.Marshal(map[string]any{"messages": page})
		w.Write(out)
	default:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{}`))
	}
}

// A service keying idempotency by the key alone passed every run: chatseq's
// keys never repeated across chats. Sends that use the key their client
// last sent to another chat (--key-across-chats, on by default) are new
// messages, which it answers with the other chat's: the run fails.
func TestAServiceKeyingIdempotencyByKeyAloneFails(t *testing.T) {
	for _, across := range []float64{0, 0.3} {
		svc := &globalKeyService{msgs: map[string][]map[string]any{}, answers: map[string]map[string]any{}}
		_, path, err := runAgainst(t, svc, func(cfg *bench.Config) {
			// The service keeps no members: its one flaw here is the key.
			cfg.KeyAcrossChats, cfg.OutsiderSends = across, 0
		})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		rep, _, err := checker.CheckFile(path, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var failing []string
		for _, r := range rep.Invariants {
			if r.Status == checker.Fail {
				failing = append(failing, r.Name+": "+r.Detail)
			}
		}
		switch {
		case across == 0 && rep.ExitCode() != 0:
			t.Fatalf("keys never across chats: exit %d %v; the service's flaw cannot show", rep.ExitCode(), failing)
		case across > 0 && (rep.ExitCode() != 1 || len(failing) == 0):
			t.Fatalf("keys across chats: exit %d, want a failure", rep.ExitCode())
		case across > 0:
			t.Logf("failing: %v", failing)
		}
	}
}
