package httptarget_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
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

// bridgePush opens upstream's push channel with header and then accepts
// the device's handshake, for a front that relays frames between the
// two; a refusal upstream reaches the device as it was answered. ok
// false: the handler has answered and has nothing to relay.
func bridgePush(w http.ResponseWriter, r *http.Request, upstream *url.URL, header http.Header) (server, device *websocket.Conn, ok bool) {
	up := *upstream
	up.Scheme, up.Path = "ws", httpapi.PushPath
	server, resp, err := websocket.Dial(r.Context(), up.String(), &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(resp.StatusCode)
			if resp.Body != nil {
				_, _ = io.Copy(w, resp.Body)
			}
			return nil, nil, false
		}
		http.Error(w, err.Error(), http.StatusBadGateway)
		return nil, nil, false
	}
	device, err = websocket.Accept(w, r, nil)
	if err != nil {
		server.CloseNow()
		return nil, nil, false
	}
	return server, device, true
}

// relayPushes passes the server's frames on to the device until either
// connection ends or ctx is done.
func relayPushes(ctx context.Context, server, device *websocket.Conn) {
	for {
		typ, data, err := server.Read(ctx)
		if err != nil || device.Write(ctx, typ, data) != nil {
			return
		}
	}
}
