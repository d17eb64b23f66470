package httptarget_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// An interrupt while the receivers connect and catch up, before any
// writer ran, ends the run there (the command quits with 130): it went
// on to run no writer, settle every device and record a final state, a
// hostile service's catch-ups keeping it 30 s past the Ctrl-C (an
// outside tester's). Here the interrupt comes with the last device's
// first catch-up page, every device connected.
func TestAnInterruptWhileReceiversConnectEndsTheRun(t *testing.T) {
	s := startServer(t, sequencer.SyncWatermark, true)
	backend, _ := url.Parse("http://" + s.Addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const devices = 4 // 2 chats, 2 receivers each
	var mu sync.Mutex
	caughtUp := map[string]bool{}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/messages") {
			// A device's first catch-up comes once it has connected: with
			// the last device's, every device is connected, none ready.
			mu.Lock()
			if caughtUp[r.Header.Get(httptarget.DefaultAPI().UserHeader)] = true; len(caughtUp) == devices {
				cancel()
			}
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	base, _ := url.Parse(front.URL)
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 2, 2, 200, 0
	cfg.Receivers = 2
	cfg.Target, cfg.Brokers, cfg.Topic = httptarget.Name, s.Brokers, s.Topic
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	res, err := bench.RunTarget(ctx, cfg, httptarget.Factory(base, httptarget.DefaultAPI(), nil))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the run went on: %v (result %v)", err, res != nil)
	}
}
