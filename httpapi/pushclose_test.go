package httpapi

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/gateway"
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
	case <-time.After(45 * time.Second): // closeTimeout is 5 s: far past it
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

// Frames in breach of the push API end Next with an error wrapping
// gateway.ErrBadFrame, which the device records (bad_frame) and
// api_conformance fails on: a push channel whose every frame was garbage
// passed, its devices catching up by sync.
func TestAFrameInBreachOfThePushAPIIsABadFrame(t *testing.T) {
	for name, frame := range map[string]string{
		"not JSON":           `{"type":"messages","messages":[`,
		"another type":       `{"type":"hello"}`,
		"without messages":   `{"type":"messages","messages":[]}`,
		"without a sequence": `{"type":"messages","messages":[{"chat_id":"c","message_id":"m"}]}`,
		// asyncapi.yaml requires these too; a sender left out was never
		// compared.
		"without a sender":    withoutField("sender_id"),
		"an empty sender":     strings.Replace(wholeFrame, `"sender_id":"u1"`, `"sender_id":""`, 1),
		"a sender not a text": strings.Replace(wholeFrame, `"sender_id":"u1"`, `"sender_id":7`, 1),
		"without content":     withoutField("content"),
		"content not a text":  strings.Replace(wholeFrame, `"content":"hi"`, `"content":null`, 1),
		"without created_at":  withoutField("created_at"),
		// asyncapi.yaml: maxItems 256. A service pushing frames of 20,000
		// messages was read whole, frame after frame (found by an
		// outside walk-through).
		"257 messages": framesOf(MaxFrameMessages + 1),
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			c.Write(r.Context(), websocket.MessageText, []byte(frame))
			c.Read(r.Context()) // until the client goes
		}))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		d, err := DialPush(ctx, srv.URL, "u1", PushDialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Next(ctx)
		if !errors.Is(err, gateway.ErrBadFrame) || !strings.HasPrefix(err.Error(), "bad_frame: ") {
			t.Errorf("%s: %v; want a bad frame", name, err)
		}
		d.CloseNow()
		cancel()
		srv.Close()
	}
}

// wholeFrame is a frame with every field asyncapi.yaml requires.
const wholeFrame = `{"type":"messages","messages":[{"chat_id":"c","sequence":1,"message_id":"m","sender_id":"u1","content":"hi","created_at":"2026-01-02T03:04:05Z"}]}`

// withoutField is wholeFrame without its message's field name.
func withoutField(name string) string {
	var f map[string]any
	if err := json.Unmarshal([]byte(wholeFrame), &f); err != nil {
		panic(err)
	}
	delete(f["messages"].([]any)[0].(map[string]any), name)
	b, _ := json.Marshal(f)
	return string(b)
}

// framesOf is a MessagesFrame of n copies of wholeFrame's message.
func framesOf(n int) string {
	msg := strings.TrimSuffix(strings.TrimPrefix(wholeFrame, `{"type":"messages","messages":[`), "]}")
	return `{"type":"messages","messages":[` + strings.Repeat(msg+",", n-1) + msg + "]}"
}

// chatseq serve's frames hold at most MaxFrameMessages, however small
// the messages: they were cut by size alone, about 1,300 of a chat's
// shortest messages to a frame.
func TestTheServersFramesHoldAtMostMaxFrameMessages(t *testing.T) {
	msgs := make([]*gateway.Message, 1000)
	for i := range msgs {
		msgs[i] = &gateway.Message{ChatID: "c", Sequence: uint64(i + 1), MessageID: "m", SenderID: "u"}
	}
	frame, n := appendMessagesFrame(nil, msgs, maxPushFrame)
	var c PushConn
	decoded, err := c.decodeFrame(frame)
	if n != MaxFrameMessages || err != nil || len(decoded) != n {
		t.Fatalf("a frame of %d messages (%d decoded, %v); want %d", n, len(decoded), err, MaxFrameMessages)
	}
}

// A big frame's memory is not kept for the next: a device reads one of a
// few MiB, and holds none of it once the frame is decoded (its buffer,
// the parser's values and the messages' slice each grew to the largest
// frame and stayed: about 30 MB a device under a flood of 8 MiB frames).
func TestABigFramesMemoryIsNotKept(t *testing.T) {
	big := `{"type":"messages","messages":[{"chat_id":"c","sequence":1,"message_id":"m","sender_id":"u1","content":"` + strings.Repeat("x", 3<<20) + `","created_at":"2026-01-02T03:04:05Z"}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.Write(r.Context(), websocket.MessageText, []byte(big))
		c.Write(r.Context(), websocket.MessageText, []byte(wholeFrame))
		c.Read(r.Context())
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := DialPush(ctx, srv.URL, "u1", PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.CloseNow()
	msgs, err := d.Next(ctx)
	if err != nil || len(msgs) != 1 || len(msgs[0].Content) != 3<<20 {
		t.Fatalf("the big frame: %d messages, %v", len(msgs), err)
	}
	if d.buf.Cap() != 0 || cap(d.msgs) != 0 {
		t.Fatalf("after a big frame the device keeps a %d-byte buffer and room for %d messages", d.buf.Cap(), cap(d.msgs))
	}
	if msgs, err := d.Next(ctx); err != nil || len(msgs) != 1 {
		t.Fatalf("the frame after: %d messages, %v", len(msgs), err)
	}
}

// A frame with every field the API requires decodes whole.
func TestAWholeFrameDecodes(t *testing.T) {
	var c PushConn
	msgs, err := c.decodeFrame([]byte(wholeFrame))
	if err != nil || len(msgs) != 1 {
		t.Fatalf("%v, %d messages", err, len(msgs))
	}
	m := msgs[0]
	if m.ChatID != "c" || m.Sequence != 1 || m.MessageID != "m" || m.SenderID != "u1" || m.Content != "hi" || m.CreatedAt.IsZero() {
		t.Fatalf("decoded %+v", m)
	}
}

// FuzzDecodeFrame: a text frame, whatever its bytes, decodes to messages
// that each have a chat, an id and a sequence above 0, or to a bad frame;
// never a panic (a message without a sequence panicked).
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{
		wholeFrame,
		`{"type":"messages","messages":[{"chat_id":"c","message_id":"m","sequence":1,"created_at":"2026-01-02T03:04:05Z"}]}`,
		`{"type":"messages","messages":[{"chat_id":"c","message_id":"m"}]}`,
		`{"type":"messages","messages":[1,"x",null]}`,
		`{"type":"messages","messages":{}}`,
		`{"type":"ack"}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c PushConn
		msgs, err := c.decodeFrame(b)
		if err != nil {
			if !errors.Is(err, gateway.ErrBadFrame) {
				t.Fatalf("%q: %v is not a bad frame", b, err)
			}
			return
		}
		for _, m := range msgs {
			if m.ChatID == "" || m.MessageID == "" || m.Sequence == 0 || m.SenderID == "" || m.CreatedAt.IsZero() {
				t.Fatalf("%q: decoded %+v", b, m)
			}
		}
	})
}

// A frame its readers may take two ways is a bad frame: fastjson, which
// reads it, takes a repeated name's first value, a service's JavaScript
// or encoding/json clients its last (a red-team's gateway pushed the
// chat's messages first and another chat's second, and passed), and half
// a surrogate pair reads as U+FFFD here, kept by the clients.
func TestAnAmbiguousFrameIsABadFrame(t *testing.T) {
	msg := strings.TrimSuffix(strings.TrimPrefix(wholeFrame, `{"type":"messages","messages":[`), "]}")
	for _, frame := range []string{
		strings.TrimSuffix(wholeFrame, "}") + `,"messages":[` + strings.Replace(msg, `"c"`, `"other"`, 1) + `]}`,
		strings.Replace(wholeFrame, `"content":"hi"`, `"content":"hi","content":"forged"`, 1),
		strings.Replace(wholeFrame, `"message_id":"m"`, `"message_id":"m\ud800"`, 1),
	} {
		var c PushConn
		msgs, err := c.decodeFrame([]byte(frame))
		if !errors.Is(err, gateway.ErrBadFrame) || !strings.Contains(err.Error(), "a frame with") {
			t.Errorf("%s: %+v, %v; want a bad frame", frame, msgs, err)
		}
	}
	var c PushConn
	if msgs, err := c.decodeFrame([]byte(wholeFrame)); err != nil || len(msgs) != 1 {
		t.Fatalf("the whole frame: %+v, %v", msgs, err)
	}
}

// A frame naming a member as one asyncapi.yaml names but for case is a
// bad frame: read exactly here (fastjson), "Sequence" beside or instead
// of "sequence" is read for the sequence by a client matching names
// regardless of case, as Go's encoding/json does into a struct, so a
// frame read one way by chatseq and another by the service's clients
// passed.
func TestAFrameNamingATwinButForCaseIsABadFrame(t *testing.T) {
	for frame, want := range map[string]string{
		strings.Replace(wholeFrame, `"sequence":1`, `"sequence":1,"Sequence":2`, 1):             `a member "Sequence"`,
		strings.Replace(wholeFrame, `"content":"hi"`, `"Content":"forged","content":"hi"`, 1):   `a member "Content"`,
		strings.Replace(wholeFrame, `"chat_id":"c"`, `"chat_id":"c","chat_ıd":"d"`, 1):          ``,
		strings.Replace(wholeFrame, `"chat_id":"c"`, `"chat_id":"c","\u0043hat_id":"d"`, 1):     `a member "Chat_id"`,
		strings.Replace(wholeFrame, `"sender_id":"u1"`, `"sender_id":"u1","ſender_id":"u2"`, 1): `a member "ſender_id"`,
		strings.Replace(wholeFrame, `"type":"messages"`, `"type":"messages","Type":"ack"`, 1):   `a member "Type"`,
		strings.TrimSuffix(wholeFrame, "}") + `,"MESSAGES":[]}`:                                 `a member "MESSAGES"`,
		strings.Replace(wholeFrame, `"content":"hi"`, `"content":"hi","lang":"en"`, 1):          ``,
	} {
		var c PushConn
		msgs, err := c.decodeFrame([]byte(frame))
		switch {
		case want == "" && (err != nil || len(msgs) != 1):
			t.Errorf("%s: %+v, %v; want it decoded", frame, msgs, err)
		case want != "" && (!errors.Is(err, gateway.ErrBadFrame) || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %+v, %v; want a bad frame naming %s", frame, msgs, err, want)
		}
	}
}
