package httptarget_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// idSwapper stands in front of a correct server and makes every message
// id it answers end in an invalid UTF-8 byte: 0xff in a send's answer,
// 0xfe in a page. The service acknowledges one id and stores another.
type idSwapper struct{ next http.Handler }

var messageIDField = regexp.MustCompile(`"message_id":"[^"]*`)

func (s idSwapper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	last := "\xfe"
	if r.Method == http.MethodPost {
		last = "\xff"
	}
	body := messageIDField.ReplaceAllFunc(rec.Body.Bytes(), func(m []byte) []byte { return append(bytes.Clone(m), last...) })
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	w.Write(body)
}

// A service that acknowledges message ids and stores others, which
// differ only in an invalid UTF-8 byte, passed: read as JSON, both became
// "…\uFFFD". An answer that is not UTF-8 is now no answer of the API
// (bad_response), and api_conformance fails the run.
func TestIDsThatDifferInInvalidUTF8DoNotPass(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := httptest.NewServer(idSwapper{chatseqAPI(t)})
	defer srv.Close()
	opened, err := targets.Open(ctx, httptarget.Name, targets.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	cfg := bench.DefaultConfig()
	cfg.Seed, cfg.Ops, cfg.Duration, cfg.Writers, cfg.Chats = 1, 60, 0, 4, 2
	cfg.Faults = bench.FaultRates{}
	cfg.Target, cfg.Contract, cfg.KafkaOff = httptarget.Name, opened.Contract, true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	// The final state's pages are not UTF-8 either: the run cannot read
	// it back, and says so; the history holds the sends.
	if _, err := bench.RunTarget(ctx, cfg, opened.Factory); err != nil && !bytes.Contains([]byte(err.Error()), []byte("not valid UTF-8")) {
		t.Fatalf("run: %v", err)
	}
	rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rep.Result(checker.NameAPIConformance)
	if rep.ExitCode() != 1 || !ok || r.Status != checker.Fail || !bytes.Contains([]byte(r.Detail), []byte("bad_response")) {
		t.Fatalf("exit %d, api_conformance %+v: want a failure for answers that are not UTF-8", rep.ExitCode(), r)
	}
}
