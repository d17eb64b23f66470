package httptarget_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/report"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// forgetfulService answers every send 201 with a fresh sequence (a retry
// of a key gets its first answer again, as a replay) and every sync
// with no message: it keeps nothing it acknowledged. It has no counter
// hook.
type forgetfulService struct {
	mu      sync.Mutex
	next    map[string]uint64
	answers map[string][]byte // by chat and key
}

func (s *forgetfulService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/") // v1 chats {chat} [messages]
	w.Header().Set("Content-Type", "application/json")
	switch {
	case len(parts) == 3 && r.Method == http.MethodPut:
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{}`))
	case len(parts) == 4 && parts[3] == "messages" && r.Method == http.MethodPost:
		chat, key := parts[2], r.Header.Get(httpapi.HeaderIdempotencyKey)
		s.mu.Lock()
		answer, replay := s.answers[chat+"\x00"+key]
		if !replay {
			s.next[chat]++
			answer, _ = json.Marshal(map[string]any{"chat_id": chat, "client_message_id": key, "sequence": s.next[chat], "message_id": fmt.Sprintf("m-%s-%d", chat, s.next[chat])})
			s.answers[chat+"\x00"+key] = answer
		}
		s.mu.Unlock()
		if replay {
			w.Header().Set(httpapi.HeaderReplayed, "true")
		}
		w.WriteHeader(http.StatusCreated)
		w.Write(answer)
	case len(parts) == 4 && parts[3] == "messages" && r.Method == http.MethodGet:
		w.Write([]byte(`{"messages":[]}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{}`))
	}
}

// runAgainst runs bench's writers against h through the real http
// target (80 persists, 4 writers, 2 chats, no faults, as bench does for a
// remote target), after set changes the config; it returns the run and
// its history's path.
func runAgainst(t *testing.T, h http.Handler, set func(*bench.Config)) (*bench.Result, string, error) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	opened, err := targets.Open(context.Background(), httptarget.Name, targets.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { opened.Close() })
	cfg := bench.DefaultConfig()
	cfg.Seed, cfg.Ops, cfg.Duration, cfg.Writers, cfg.Chats = 1, 80, 0, 4, 2
	cfg.Faults = bench.FaultRates{} // what bench does for a remote target unless asked
	cfg.Target, cfg.Contract = httptarget.Name, opened.Contract
	cfg.KafkaOff = opened.NoTopicToRead(cfg.Brokers)
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	set(&cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := bench.RunTarget(ctx, cfg, opened.Factory)
	return res, cfg.HistoryPath, err
}

// Issue 27: a service that answers 201 to every send and [] to every
// sync lost every acknowledged message. Driven by the real http target,
// its history says the messages were read back and found empty, and
// ack_implies_persistence fails (it was n/a: the history could not say
// "read and empty"), exit 1.
func TestAServiceThatLosesEveryAckFails(t *testing.T) {
	res, history, err := runAgainst(t, &forgetfulService{next: map[string]uint64{}, answers: map[string][]byte{}}, func(*bench.Config) {})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	rep, h, err := checker.CheckFile(history, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !h.TableRead("messages") || res.Persisted != 0 {
		t.Fatalf("messages read back: %v, %d persisted", h.TablesRead, res.Persisted)
	}
	r, ok := rep.Result(checker.NameAckImpliesPersistence)
	if !ok || r.Status != checker.Fail || rep.ExitCode() != 1 {
		t.Fatalf("ack_implies_persistence %+v, exit %d; want fail, exit 1", r, rep.ExitCode())
	}
	if !strings.Contains(r.Detail, "the final messages table was read and is empty") {
		t.Fatalf("detail %q", r.Detail)
	}
}

// readBackBreaker is a service whose sends are answered well (by
// forgetfulService) and whose pages, read back after the run, hold a
// message without a sequence: an answer in breach of the API.
type readBackBreaker struct{ forgetfulService }

func (s *readBackBreaker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/messages") {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"messages":[{"message_id":"m1"}]}`))
		return
	}
	s.forgetfulService.ServeHTTP(w, r)
}

// A final state that cannot be read back (here a page in breach of the
// API) still leaves a judged run: the history holds every operation and
// ends, cut short, before the final state, whose invariants are unknown;
// the run says why. It was an error (bench exit 5): no verdict, no
// report, for a run that had happened.
func TestAFinalStateThatCannotBeReadIsJudgedOnTheOperations(t *testing.T) {
	breaker := &readBackBreaker{forgetfulService{next: map[string]uint64{}, answers: map[string][]byte{}}}
	res, history, err := runAgainst(t, breaker, func(cfg *bench.Config) { cfg.SyncRatio = 0 }) // every page read is the final state's
	if err != nil {
		t.Fatalf("run: %v; want a run judged on its operations", err)
	}
	if !strings.Contains(res.FinalStateUnread, "bad_response") || !strings.Contains(res.FinalStateUnread, "without a sequence") {
		t.Fatalf("FinalStateUnread %q; want the bad answer named", res.FinalStateUnread)
	}
	rep, _, err := checker.CheckFile(history, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rep.Result(checker.NameSequenceMonotonic); res.Counts.PersistOK == 0 || r.Status != checker.Pass || rep.ExitCode() != 3 {
		t.Fatalf("%d persists acked, sequence_monotonic %+v, exit %d; want the run's operations judged and unknown (exit 3)", res.Counts.PersistOK, r, rep.ExitCode())
	}
	if r, _ := rep.Result(checker.NameAckImpliesPersistence); r.Status != checker.Unknown {
		t.Fatalf("ack_implies_persistence %+v; want unknown (the final state was not read)", r)
	}
	judged := report.JudgedRun(res, rep)
	if len(judged.Warnings) == 0 || !strings.Contains(judged.Warnings[0], "the final state could not be read back") {
		t.Fatalf("warnings %q; want the first to say why the final state is unknown", judged.Warnings)
	}
}

// unsettledService answers sends well (forgetfulService) and fails the
// settle hook chatseq serve's API has, as a service stuck after its
// answers would.
type unsettledService struct{ forgetfulService }

func (s *unsettledService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == httpapi.SettlePath {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"settling: the relay is stuck"}`))
		return
	}
	s.forgetfulService.ServeHTTP(w, r)
}

// A service that does not settle after the writers leaves a judged run,
// as one whose final state cannot be read: its operations are judged and
// every invariant the final state decides is unknown, the run saying
// why. It was an error (bench exit 5): the finished run thrown away, no
// verdict, no report.
func TestATargetThatDoesNotSettleIsJudgedOnTheOperations(t *testing.T) {
	svc := &unsettledService{forgetfulService{next: map[string]uint64{}, answers: map[string][]byte{}}}
	res, history, err := runAgainst(t, svc, func(cfg *bench.Config) { cfg.SyncRatio = 0 }) // its syncs lose messages too
	if err != nil {
		t.Fatalf("run: %v; want a run judged on its operations", err)
	}
	if !strings.Contains(res.FinalStateUnread, "did not settle") || !strings.Contains(res.FinalStateUnread, "the relay is stuck") {
		t.Fatalf("FinalStateUnread %q; want the settle's failure named", res.FinalStateUnread)
	}
	rep, _, err := checker.CheckFile(history, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rep.Result(checker.NameAckImpliesPersistence); res.Counts.PersistOK == 0 || r.Status != checker.Unknown || !strings.Contains(r.Detail, "cut short") {
		t.Fatalf("%d persists acked, ack_implies_persistence %+v; want unknown, the final state cut short", res.Counts.PersistOK, r)
	}
	for _, r := range rep.Invariants {
		if r.Status == checker.Fail {
			t.Errorf("%s fails on the operations of a service that answered every send well (and was asked no sync): %s", r.Name, r.Detail)
		}
	}
}

// codeNamingService refuses every send with 503, nothing written, naming
// a cause no client should take as it is: 100 KB long, one holding a
// newline and a terminal escape, or a new code for every answer.
type codeNamingService struct {
	forgetfulService
	mu    sync.Mutex
	sends int
}

func (s *codeNamingService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/messages") {
		s.forgetfulService.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.sends++
	n := s.sends
	s.mu.Unlock()
	cause := fmt.Sprintf("code-%d", n)
	switch n % 3 {
	case 0:
		cause = strings.Repeat("c", 100_000)
	case 1:
		cause = "x\x1b[2J\nverdict: PASS"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": "service.unavailable", "cause": cause}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(body)
}

// A service's error codes are names, recorded and counted by name: one
// of 100 KB made a run pass whose history chatseq check then refused (a
// string over 64 KiB), one with a newline printed a line of its own in
// the report, and a new code for every answer grew the report, the
// results and the metrics by one name an answer. Now a code that is no
// name is recorded as unreadable_error_code, and the codes past the
// first 64 as other_error_code.
func TestAServicesErrorCodesAreTakenAsNamesAndBounded(t *testing.T) {
	svc := &codeNamingService{forgetfulService: forgetfulService{next: map[string]uint64{}, answers: map[string][]byte{}}}
	res, history, err := runAgainst(t, svc, func(cfg *bench.Config) { cfg.Ops, cfg.SyncRatio = 400, 0 })
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	codes := res.Counts.ErrorCodes
	if codes["unreadable_error_code"] == 0 || codes["other_error_code"] == 0 || len(codes) > 64+2 {
		t.Fatalf("%d codes counted (unreadable %d, other %d); want at most 66, the unreadable and the others counted apart", len(codes), codes["unreadable_error_code"], codes["other_error_code"])
	}
	for code := range codes {
		if len(code) > 64 || strings.ContainsAny(code, "\x1b\n ") {
			t.Fatalf("code %.80q counted as given", code)
		}
	}
	rep, _, err := checker.CheckFile(history, checker.Options{})
	if err != nil {
		t.Fatalf("chatseq check refuses the run's own history: %v", err)
	}
	if rep.ExitCode() != 0 {
		t.Fatalf("exit %d; want the run (every send refused, nothing written) to pass", rep.ExitCode())
	}
}
