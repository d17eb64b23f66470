package httpapi

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// endlessFrameServer accepts one WebSocket handshake, then announces a
// text frame of 2^40 bytes, sends a little more of it than a device
// reads of one frame and stalls: a hostile push channel.
func endlessFrameServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		t.Cleanup(func() { conn.Close() })
		req, err := http.ReadRequest(bufio.NewReader(conn))
		if err != nil {
			return
		}
		sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		conn.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
			base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"))
		// FIN, text; no mask; 127: a 64-bit length follows, 2^40.
		conn.Write([]byte{0x81, 127, 0, 0, 1, 0, 0, 0, 0, 0})
		conn.Write(make([]byte, MaxPushFrame+64<<10)) // past the read limit
		select {}                                     // stalls, the connection open
	}()
	return "http://" + ln.Addr().String()
}

// A device closing a connection whose server announced an endless frame
// and stalled gets its Close back: the library's close skipped the rest
// of the frame byte by byte whatever its context, and held the device,
// and bench's settle after it, for ever (found by an outside tester's
// hostile push channel: bench killed at 300 s, 3.4 GB).
func TestClosingAConnectionStalledMidFrameReturns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := DialPush(ctx, endlessFrameServer(t), "u1", PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Next(ctx); err == nil {
		t.Fatal("a frame over the read limit was read")
	}
	closed := make(chan error, 1)
	go func() { closed <- d.Close() }()
	select {
	case <-closed:
	case <-time.After(45 * time.Second): // closeWithin is 5 s: far past it
		t.Fatal("Close did not return")
	}
}

// A refused handshake's body is shown as a send's answer is: its first
// 200 bytes, quoted, credentials hidden. It was shown whole up to 4 KiB,
// and a service that echoed the request's Authorization header in it
// printed the URL's user and password (an outside tester's finding).
func TestARefusedHandshakeShowsLittleOfItsBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(strings.Repeat("x", 150) + " denied: Authorization: " + r.Header.Get("Authorization") + "\n" + strings.Repeat("x", 4000)))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := DialPush(ctx, srv.URL, "u1", PushDialOptions{Header: http.Header{"Authorization": {"Basic S3cretS3cret"}}})
	var refused *PushRefusedError
	if !errors.As(err, &refused) || refused.Status != http.StatusUnauthorized {
		t.Fatalf("%v; want the refusal", err)
	}
	if strings.Contains(err.Error(), "S3cret") || len(err.Error()) > 400 || !strings.Contains(err.Error(), " bytes)") {
		t.Fatalf("shown: %q; want 200 bytes quoted, no credential, the body's length", err)
	}
}
