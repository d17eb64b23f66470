package httptarget

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/sequencer"
)

// countingConn counts the writes on a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

func testClient(t *testing.T, srv *httptest.Server, writes *atomic.Int64) *client {
	t.Helper()
	base, _ := url.Parse(srv.URL)
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil || writes == nil {
			return c, err
		}
		return countingConn{c, writes}, nil
	}}
	c := newClient(base, DefaultAPI(), settings{timeout: 5 * time.Second, maxPage: DefaultMaxPageBytes}, 4, tr)
	c.retry = statusRetry{attempts: 1}
	t.Cleanup(func() { c.Close() })
	return c
}

var testSend = sequencer.Request{Chat: "c", Key: "k1", Sender: "u", Content: "hello"}

// A send leaves in one write, headers and body together, as vegeta's
// do: a body net/http does not know as in memory made it flush the
// headers first, two writes and two wake-ups of the server per send,
// which at 1000 sends/s put chatseq's p99 above vegeta's.
func TestASendIsOneWrite(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"chat_id":"c","client_message_id":"k1","sequence":1,"message_id":"m1"}`)
	}))
	defer srv.Close()
	var writes atomic.Int64
	c := testClient(t, srv, &writes)
	out, err := c.Persist(context.Background(), testSend, nil)
	if err != nil || out.Seq != 1 {
		t.Fatalf("persist: %+v, %v", out, err)
	}
	if n := writes.Load(); n != 1 {
		t.Fatalf("the send took %d writes on the connection, want 1", n)
	}
}

// net/http resends a replayable request on its own when a reused
// connection drops before the answer (a crashed server), and a request
// with an Idempotency-Key and a rewindable body is replayable: the
// history would show one attempt where the service saw two. A send is
// made once.
func TestADroppedSendIsNotResentByNetHTTP(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"messages":[]}`)
			return
		}
		posts.Add(1)
		io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // the server dies before answering
		}
	}))
	defer srv.Close()
	c := testClient(t, srv, nil)
	// A sync first, so that the send goes on a reused connection, the
	// one net/http would retry on.
	if _, err := c.Sync(context.Background(), "c", 0, 10); err != nil {
		t.Fatal(err)
	}
	_, err := c.Persist(context.Background(), testSend, nil)
	if e, ok := err.(*sequencer.Error); !ok || e.Code != CodeConnection {
		t.Fatalf("persist on a dropped connection: %v, want %s", err, CodeConnection)
	}
	if n := posts.Load(); n != 1 {
		t.Fatalf("the service saw the send %d times, want once", n)
	}
}
