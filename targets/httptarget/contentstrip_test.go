package httptarget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// contentField is a message's content in a sync page of chatseq's API.
var contentField = regexp.MustCompile(`"content":"(?:[^"\\]|\\.)*"`)

// A service whose sync pages give every message an empty content, while
// its push channel streams the content sent, passed identical_order: a
// device's catch-up page could not tell an empty content from none, and
// compared neither. An empty string at the content path is now content,
// hashed and compared with what the persist sent: identical_order fails.
func TestCatchUpPagesThatEmptyTheContentFail(t *testing.T) {
	rep := runBehindPageRewrite(t, func(body []byte) []byte {
		return contentField.ReplaceAll(body, []byte(`"content":""`))
	})
	if r, _ := rep.Result(checker.NameIdenticalOrder); r.Status != checker.Fail {
		t.Fatalf("identical_order %s (%s), want fail", r.Status, r.Detail)
	} else {
		t.Logf("identical_order: %s", r.Detail)
	}
}

// runBehindPageRewrite runs bench with receivers (a drop every 5 ms, so
// catch-ups on every reconnect) against chatseq serve behind a proxy that
// rewrites each successful GET answer's body, and checks the history.
func runBehindPageRewrite(t *testing.T, rewrite func([]byte) []byte) checker.Report {
	t.Helper()
	return runBehindRewrite(t, func(r *http.Response, body []byte) []byte {
		if r.Request.Method != http.MethodGet || r.StatusCode != http.StatusOK {
			return body
		}
		return rewrite(body)
	}, func(cfg *bench.Config) {
		cfg.Receivers, cfg.DropConnectionsEvery = 2, 5*time.Millisecond
	})
}

// runBehindRewrite runs bench (4 writers, 2 chats, 300 sends, no faults),
// as set changes it, against chatseq serve behind a proxy that hands
// rewrite each answer (its status may be changed) and its body, and sends
// on the body it returns; it checks the history.
func runBehindRewrite(t *testing.T, rewrite func(*http.Response, []byte) []byte, set func(*bench.Config)) checker.Report {
	t.Helper()
	s := startServer(t, sequencer.SyncWatermark, true)
	base, _ := url.Parse("http://" + s.Addr)
	proxy := httputil.NewSingleHostReverseProxy(base)
	proxy.ModifyResponse = func(r *http.Response) error {
		if r.StatusCode == http.StatusSwitchingProtocols {
			return nil // the push channel's upgrade: its body is the stream
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		body = rewrite(r, body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	frontURL, _ := url.Parse(front.URL)

	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 2, 300, 0
	cfg.Faults = bench.FaultRates{}
	cfg.Target, cfg.Brokers, cfg.Topic = httptarget.Name, s.Brokers, s.Topic
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	set(&cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := bench.RunTarget(ctx, cfg, httptarget.Factory(frontURL, httptarget.DefaultAPI(), nil)); err != nil {
		t.Fatalf("run: %v", err)
	}
	rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A service whose sync pages leave every message's content out, while its
// push channel streams it, passed identical_order: chatseq's API requires
// the content, but a message without one was read as a channel that
// carries none, and not compared. Under a required content it is read as
// empty, and compared: identical_order fails. A service's own mapping
// reads content only if given back (content_required: false), as before.
func TestCatchUpPagesThatLeaveTheContentOutFail(t *testing.T) {
	rep := runBehindPageRewrite(t, func(body []byte) []byte { return withoutContent(t, body) })
	if r, _ := rep.Result(checker.NameIdenticalOrder); r.Status != checker.Fail {
		t.Fatalf("identical_order %s (%s), want fail", r.Status, r.Detail)
	} else {
		t.Logf("identical_order: %s", r.Detail)
	}
}

// withoutContent is a sync page with each message's content taken out;
// any other answer as it came.
func withoutContent(t *testing.T, body []byte) []byte {
	var page map[string]any
	if json.Unmarshal(body, &page) != nil {
		return body
	}
	msgs, ok := page["messages"].([]any)
	if !ok {
		return body
	}
	for _, m := range msgs {
		if item, ok := m.(map[string]any); ok {
			delete(item, "content")
		}
	}
	out, err := json.Marshal(page)
	if err != nil {
		t.Error(err)
		return body
	}
	return out
}
