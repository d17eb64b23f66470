package httptarget_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
)

// ackRefuser stands in front of chatseq serve: every request goes
// through, and every push connection too, until the device sends a frame
// (a delivery ack): then it closes the device's connection with 1008,
// policy violation, without passing the ack on. Its delivery_state never
// moves, whatever the devices acknowledge.
type ackRefuser struct {
	upstream *url.URL
	proxy    *httputil.ReverseProxy
}

func (a *ackRefuser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != httpapi.PushPath {
		a.proxy.ServeHTTP(w, r)
		return
	}
	server, device, ok := bridgePush(w, r, a.upstream, http.Header{httpapi.HeaderUser: r.Header.Values(httpapi.HeaderUser)})
	if !ok {
		return
	}
	defer server.CloseNow()
	defer device.CloseNow()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // the server's pushes, on to the device
		defer cancel()
		relayPushes(ctx, server, device)
	}()
	if _, _, err := device.Read(ctx); err == nil {
		device.Close(websocket.StatusPolicyViolation, "delivery ack refused")
	}
}

// A service that answers every delivery ack by closing the connection
// (1008) lost every ack, and passed: an ack on a connection that then
// dropped is no lower bound on the delivery_state row, and it left no
// other. The devices now acknowledge every chat again on their last
// connection and hold it open before settling, so the refusal shows
// there; with no acknowledgement left standing, delivery_state_consistency
// is unknown (exit 3), not a pass. chatseq serve itself, unproxied,
// passes the same run.
func TestAServiceThatRefusesEveryDeliveryAckIsNotPassed(t *testing.T) {
	s := startServer(t, sequencer.SyncWatermark, true)
	base, _ := url.Parse("http://" + s.Addr)
	front := httptest.NewServer(&ackRefuser{upstream: base, proxy: proxyTo(base)})
	t.Cleanup(front.Close)

	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 2, 200, 0
	cfg.Receivers = 2
	cfg.Faults = bench.FaultRates{} // no crash the proxy would have to pass on
	cfg.Brokers, cfg.Topic = s.Brokers, s.Topic
	rep, _ := benchThrough(t, front.URL, cfg)
	r, _ := rep.Result(checker.NameDeliveryStateConsistency)
	if r.Status != checker.Unknown || rep.ExitCode() != 3 {
		t.Fatalf("delivery_state_consistency %s (%s), exit %d; want unknown, exit 3", r.Status, r.Detail, rep.ExitCode())
	}
	if !strings.Contains(r.Detail, "none of their acknowledgements was sent on a connection still open") {
		t.Fatalf("detail %q", r.Detail)
	}

	direct := cfg
	direct.HistoryPath = filepath.Join(t.TempDir(), "direct.jsonl")
	if r, _ := runThroughHTTP(t, startServer(t, sequencer.SyncWatermark, true), direct).Result(checker.NameDeliveryStateConsistency); r.Status != checker.Pass {
		t.Fatalf("chatseq serve, unproxied: delivery_state_consistency %s (%s), want pass", r.Status, r.Detail)
	}
}
