package httptarget_test

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// benchThrough runs cfg over the http target against the service at
// serviceURL (a hostile one in front of chatseq serve, mostly) and checks
// the history: the report and the history's text. cfg names the
// service's topic (Brokers, Topic) or KafkaOff; its history goes to the
// test's directory.
func benchThrough(t *testing.T, serviceURL string, cfg bench.Config) (checker.Report, string) {
	t.Helper()
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	opened, err := targets.Open(context.Background(), httptarget.Name, targets.Options{URL: serviceURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { opened.Close() })
	cfg.Target, cfg.Contract = httptarget.Name, opened.Contract
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u, _ := url.Parse(serviceURL)
	if _, err := bench.RunTarget(ctx, cfg, httptarget.Factory(u, httptarget.DefaultAPI(), nil)); err != nil {
		t.Fatalf("run: %v", err)
	}
	rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := os.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	return rep, string(h)
}

// proxyTo passes every request on to upstream, a connection each (a
// hostile front's own answers never share one with it).
func proxyTo(upstream *url.URL) *httputil.ReverseProxy {
	p := httputil.NewSingleHostReverseProxy(upstream)
	p.Transport = &http.Transport{DisableKeepAlives: true}
	return p
}
