package httptarget

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

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

// BenchmarkPersistClient is one send's work in the client alone, the part
// of every send's measured latency that is chatseq's and not the
// service's: building the request, net/http's client side, reading the
// answer.
//
//	go test -run '^$' -bench PersistClient -benchmem ./targets/httptarget/
func BenchmarkPersistClient(b *testing.B) {
	base, _ := url.Parse("http://127.0.0.1:8480")
	c := newClient(base, DefaultAPI(), RequestTimeout, 4, cannedRT{})
	c.retry = statusRetry{attempts: 1}
	ctx := context.Background()
	req := sequencer.Request{Chat: "b1-chat-0001", Key: "w1-m1", Sender: "user-1", Content: "message 1 from user-1"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Persist(ctx, req, nil); err != nil {
			b.Fatal(err)
		}
	}
}
