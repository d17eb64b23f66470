package httptarget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/targets/core"
)

// chatseqAPI is chatseq's own API over ADR-004's core in memory: a
// correct service, which the services below each break in one way.
func chatseqAPI(t *testing.T) http.Handler {
	t.Helper()
	backing, err := core.Factory(nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backing.Close() })
	return httpapi.NewServer(backing).Handler()
}

// checkedRunAgainst is runAgainst, with the history checked: the run's
// error (a run a hostile answer stops still leaves its history) and the
// report.
func checkedRunAgainst(t *testing.T, h http.Handler, set func(*bench.Config)) (checker.Report, error) {
	t.Helper()
	_, path, runErr := runAgainst(t, h, set)
	rep, _, err := checker.CheckFile(path, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep, runErr
}

// creatorOnly serves a chat's messages only to the member that created
// it: any other member's sync is refused as no member (refuse), or
// answered with an empty page (stale).
type creatorOnly struct {
	next    http.Handler
	refuse  bool
	mu      sync.Mutex
	creator map[string]string // chat → the user that created it
	others  int               // syncs by another member
}

func (s *creatorOnly) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/") // v1 chats {chat} [messages]
	user := r.Header.Get(httpapi.HeaderUser)
	if len(parts) == 3 && r.Method == http.MethodPut {
		s.mu.Lock()
		s.creator[parts[2]] = user
		s.mu.Unlock()
	}
	if len(parts) == 4 && parts[3] == "messages" && r.Method == http.MethodGet {
		s.mu.Lock()
		other := s.creator[parts[2]] != user
		if other {
			s.others++
		}
		s.mu.Unlock()
		switch {
		case other && s.refuse:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`{"error":{"code":"chat.not_a_member","message":"not a member"}}`))
			return
		case other:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"messages":[]}`))
			return
		}
	}
	s.next.ServeHTTP(w, r)
}

// Every sync a run made, the writers' and the final state's read back,
// was its chat's creator's: a service that served no other member (403,
// or an empty page) passed (an outside tester's). Syncs now read a chat
// as each of its members in turn: the refusal is a breach of the API
// (api_conformance), the empty pages miss acknowledged messages.
func TestASyncAsAnyMemberReadsWhatTheCreatorReads(t *testing.T) {
	for _, refuse := range []bool{true, false} {
		svc := &creatorOnly{next: chatseqAPI(t), refuse: refuse, creator: map[string]string{}}
		// A writer syncs after its own last acknowledged send, so its page
		// is owed only what others acknowledged in between: on a loaded
		// machine, too few for empty pages to miss any (ci, 12-07). A
		// reader polling by cursor is owed every acknowledgement since
		// its last page.
		rep, err := checkedRunAgainst(t, svc, func(cfg *bench.Config) { cfg.SyncRatio, cfg.Readers = 0.3, 1 })
		if err != nil && !refuse {
			t.Fatalf("run: %v", err)
		}
		failing := checker.NameSyncCompleteness
		if refuse {
			failing = checker.NameAPIConformance
		}
		if r, _ := rep.Result(failing); r.Status != checker.Fail || svc.others == 0 {
			t.Fatalf("refusing %v: %s is %s after %d syncs by other members (exit %d): %s", refuse, failing, r.Status, svc.others, rep.ExitCode(), r.Detail)
		}
	}
}

// cappedPages answers at most cap messages a page, whatever the limit,
// and says where to ask again from while more follow: "at most limit"
// allows it. The final state read back stopped at its first page shorter
// than it asked for, and the run failed ack_implies_persistence for
// messages the service held (an outside tester's false FAIL).
type cappedPages struct {
	next http.Handler
	cap  int
}

func (s cappedPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/messages") {
		s.next.ServeHTTP(w, r)
		return
	}
	q := r.URL.Query()
	asked, _ := strconv.Atoi(q.Get("limit"))
	q.Set("limit", strconv.Itoa(s.cap+1)) // one more: whether more follow
	r.URL.RawQuery = q.Encode()
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	var page struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &page) != nil {
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	n := min(s.cap, len(page.Messages), max(asked, 1))
	more := len(page.Messages) > n
	var out bytes.Buffer
	out.WriteString(`{"messages":[`)
	out.Write(bytes.Join(func() [][]byte {
		var b [][]byte
		for _, m := range page.Messages[:n] {
			b = append(b, m)
		}
		return b
	}(), []byte(",")))
	out.WriteString("]")
	if more || n == asked {
		var last struct {
			Sequence uint64 `json:"sequence"`
		}
		json.Unmarshal(page.Messages[n-1], &last)
		fmt.Fprintf(&out, `,"next_after":%d`, last.Sequence)
	}
	out.WriteString("}")
	w.Header().Set("Content-Type", "application/json")
	w.Write(out.Bytes())
}

// A sync, too, is the messages after its cursor up to its limit, however
// many pages the service gives them in: its line records the limit
// asked, and a capped page alone was taken for the chat's end (a writer's
// sync failed sync_completeness on a loaded machine; a reader pausing
// between its rounds, as here, finds more than a page waiting on most).
func TestPagesCappedBelowTheLimitAreFollowed(t *testing.T) {
	rep, err := checkedRunAgainst(t, cappedPages{next: chatseqAPI(t), cap: 7}, func(cfg *bench.Config) {
		cfg.Ops, cfg.Readers, cfg.ReaderPoll = 400, 1, 20*time.Millisecond
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	for _, r := range rep.Invariants {
		if r.Status == checker.Fail || r.Status == checker.Unknown {
			t.Errorf("%s is %s: %s", r.Name, r.Status, r.Detail)
		}
	}
}

// badCursor breaks "Syncing"'s next_after: full pages leave it out
// (missing), or empty pages say to ask again from 500 further on (jumps).
type badCursor struct {
	next http.Handler
	how  string
}

func (s badCursor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/messages") {
		s.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	after, _ := strconv.Atoi(r.URL.Query().Get("after"))
	switch {
	case s.how == "missing":
		if i := bytes.Index(body, []byte(`,"next_after":`)); i >= 0 {
			body = append(append([]byte{}, body[:i]...), []byte("}\n")...)
		}
	case s.how == "jumps" && bytes.HasPrefix(body, []byte(`{"messages":[]`)):
		body = []byte(fmt.Sprintf(`{"messages":[],"next_after":%d}`, after+500))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	w.Write(body)
}

// A full page without next_after, or an empty one whose next_after skips
// ahead, passed: next_after was checked only where a page with messages
// gave one. Each is a bad_response (api_conformance).
func TestAPageCursorThatMisleadsIsABadResponse(t *testing.T) {
	for _, how := range []string{"missing", "jumps"} {
		rep, err := checkedRunAgainst(t, badCursor{next: chatseqAPI(t), how: how}, func(cfg *bench.Config) {
			// Readers page through every chat 5 at a time: full pages.
			cfg.SyncRatio, cfg.SyncLimit, cfg.Ops, cfg.Readers = 0.3, 5, 400, 2
		})
		if err != nil && how == "jumps" {
			t.Fatalf("run: %v", err)
		}
		if r, _ := rep.Result(checker.NameAPIConformance); r.Status != checker.Fail {
			t.Errorf("next_after %s: api_conformance is %s: %s", how, r.Status, r.Detail)
		}
	}
}

// keyFolding keys idempotency by the key in lower case, cut to 16
// characters (a case-insensitive VARCHAR(16) column), and answers with
// the key as sent. bench's keys were short and lower-case, so it passed.
type keyFolding struct{ next http.Handler }

func (s keyFolding) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(httpapi.HeaderIdempotencyKey)
	if key == "" {
		s.next.ServeHTTP(w, r)
		return
	}
	folded := strings.ToLower(key)
	folded = folded[:min(len(folded), 16)]
	r.Header.Set(httpapi.HeaderIdempotencyKey, folded)
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	body := bytes.Replace(rec.Body.Bytes(), []byte(`"client_message_id":`+strconv.Quote(folded)), []byte(`"client_message_id":`+strconv.Quote(key)), 1)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	w.Write(body)
}

// At bench's defaults (--odd-keys 0.01) a service folding keys fails;
// with no odd key sent it passes, its flaw unseen.
func TestAServiceFoldingKeysFails(t *testing.T) {
	for _, odd := range []float64{0, -1} {
		rep, err := checkedRunAgainst(t, keyFolding{next: chatseqAPI(t)}, func(cfg *bench.Config) {
			cfg.Ops = 1500
			if odd >= 0 {
				cfg.OddKeys = odd
			}
		})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		var failing []string
		for _, r := range rep.Invariants {
			if r.Status == checker.Fail {
				failing = append(failing, r.Name)
			}
		}
		if want := map[bool]int{true: 0, false: 1}[odd == 0]; rep.ExitCode() != want {
			t.Fatalf("odd keys %g: exit %d (failing %v), want %d", odd, rep.ExitCode(), failing, want)
		}
	}
}

// readsForAnyone is chatseq's API but that any user reads any chat: a
// sync is served as the chat's first member whoever asks.
type readsForAnyone struct{ next http.Handler }

func (s readsForAnyone) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/messages") {
		r.Header.Set(httpapi.HeaderUser, bench.SenderID(0))
	}
	s.next.ServeHTTP(w, r)
}

// A service that showed a chat to anyone passed: every sync a run made
// was a member's, and no line said who read. Writers' syncs now name
// their user, and some read as a member of no chat (--outsider-syncs),
// which read_authorization judges by the join lines: chatseq's API
// refuses them and passes, the service above fails. With no read from
// outside it passes too: the case is what finds it.
func TestAServiceShowingAChatToAnyoneFails(t *testing.T) {
	for _, tc := range []struct {
		name     string
		svc      func() http.Handler
		outsider float64
		want     checker.Status
	}{
		{"chatseq's API", func() http.Handler { return chatseqAPI(t) }, 0.2, checker.Pass},
		{"reads for anyone", func() http.Handler { return readsForAnyone{chatseqAPI(t)} }, 0.2, checker.Fail},
		{"reads for anyone, no read from outside", func() http.Handler { return readsForAnyone{chatseqAPI(t)} }, 0, checker.Pass},
	} {
		res, path, err := runAgainst(t, tc.svc(), func(cfg *bench.Config) { cfg.Ops, cfg.SyncRatio, cfg.OutsiderSyncs = 300, 0.3, tc.outsider })
		if err != nil {
			t.Fatalf("%s: run: %v", tc.name, err)
		}
		rep, _, err := checker.CheckFile(path, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := rep.Result(checker.NameReadAuthorization)
		if r.Status != tc.want || (tc.outsider > 0) != (res.Counts.OutsiderSyncs > 0) {
			t.Errorf("%s: read_authorization %s after %d syncs from outside, want %s: %s", tc.name, r.Status, res.Counts.OutsiderSyncs, tc.want, r.Detail)
		}
		if tc.want == checker.Pass && rep.ExitCode() != 0 {
			t.Errorf("%s: exit %d: %+v", tc.name, rep.ExitCode(), rep.Invariants)
		}
	}
}
