package httptarget

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
)

// cannedRT answers every request with chatseq serve's 201 to a send,
// without a network or a server: what is left is the client's own work.
type cannedRT struct{}

const cannedSendBody = `{"chat_id":"c","client_message_id":"k1","message_id":"msg_01M8B6JR9MJ7DWPX1WGGGF7983","sequence":12345}` + "\n"

func (cannedRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusCreated, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(cannedSendBody)),
		ContentLength: int64(len(cannedSendBody)), Request: req,
	}, nil
}

// pipeTransport is a net/http Transport whose connections are in-memory
// pipes to a goroutine answering every request with cannedSendBody: the
// whole of net/http's client runs (its connection's read and write loops
// included), with no kernel network and no real server.
func pipeTransport() *http.Transport {
	answer := []byte("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(cannedSendBody)) + "\r\n\r\n" + cannedSendBody)
	return &http.Transport{
		MaxIdleConnsPerHost: 16,
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				rd := bufio.NewReader(server)
				for {
					req, err := http.ReadRequest(rd)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					if _, err := server.Write(answer); err != nil {
						return
					}
				}
			}()
			return client, nil
		},
	}
}

// BenchmarkPersistClient is one send's work in the client alone, the part
// of every send's measured latency that is chatseq's and not the
// service's: building the request, net/http's client side, reading the
// answer. BenchmarkVegetaHitClient is the same for vegeta's hit.
//
//	go test -run '^$' -bench 'PersistClient|VegetaHitClient' -benchmem ./targets/httptarget/
func BenchmarkPersistClient(b *testing.B) {
	base, _ := url.Parse("http://127.0.0.1:8480")
	c := newClient(base, DefaultAPI(), defaultSettings(), 4, pipeTransport())
	c.retry = statusRetry{attempts: 1}
	ctx := context.Background()
	// The chat and key cannedSendBody acknowledges.
	req := sequencer.Request{Chat: "c", Key: "k1", Sender: "user-1", Content: "message 1 from user-1"}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := c.Persist(ctx, req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the process's CPU time per op (the pipe's server
// goroutine's included, the same for both benchmarks): on a machine
// others load, wall time per op says more about them than about the
// client.
func reportCPU(b *testing.B) (stop func()) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}

// BenchmarkVegetaHitClient is what vegeta's Attacker.hit does between
// the timestamp it measures from and the end of its latency (vegeta
// v12.13.0, lib/attack.go), over the transport vegeta builds, with the
// targeter of BenchmarkHTTPDriverVsVegeta.
func BenchmarkVegetaHitClient(b *testing.B) {
	tr := pipeTransport()
	tr.MaxIdleConnsPerHost = vegeta.DefaultConnections
	client := &http.Client{Timeout: vegeta.DefaultTimeout, Transport: tr}
	var n atomic.Int64
	body := []byte(`{"sender_id":"u","content":"message"}`)
	targeter := func(t *vegeta.Target) error {
		i := n.Add(1)
		t.Method = http.MethodPost
		t.URL = "http://127.0.0.1:8480/v1/chats/v1-" + strconv.FormatInt(i%64, 10) + "/messages"
		t.Body = body
		t.Header = http.Header{"Content-Type": {"application/json"}, httpapi.HeaderIdempotencyKey: {"k" + strconv.FormatInt(i, 10)}, httpapi.HeaderUser: {"u"}}
		return nil
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	var seq uint64
	for b.Loop() {
		var tgt vegeta.Target
		if err := targeter(&tgt); err != nil {
			b.Fatal(err)
		}
		req, err := tgt.Request()
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("X-Vegeta-Attack", "vegeta")
		req.Header.Set("X-Vegeta-Seq", strconv.FormatUint(seq, 10))
		seq++
		r, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		res := vegeta.Result{Method: tgt.Method, URL: tgt.URL}
		// vegeta limits the body only when its max body is set (the
		// default, -1, reads it all).
		if res.Body, err = io.ReadAll(r.Body); err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		res.Code, res.Headers = uint16(r.StatusCode), r.Header
	}
}
