package httpapi

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// A client that sends its headers and then holds its body back, or opens
// a connection and sends nothing, is cut off once the timeouts pass, not
// served for as long as it likes.
func TestSlowClientsAreCutOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	short := timeouts{header: 200 * time.Millisecond, read: 300 * time.Millisecond, write: time.Second, idle: 300 * time.Millisecond}
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}), short)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	for name, request := range map[string]string{
		"a body held back":  "POST /v1/chats/c1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"sender_id\":",
		"headers held back": "POST /v1/chats/c1/messages HTTP/1.1\r\nHost: x\r\n",
		"nothing sent":      "",
	} {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, request); err != nil {
			t.Fatal(err)
		}
		// Generous: the server must close well within it, however loaded
		// the machine; without the timeouts it never does.
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err = io.Copy(io.Discard, conn)
		conn.Close()
		if err != nil {
			t.Errorf("%s: the server kept the connection open: %v", name, err)
		}
	}
}
