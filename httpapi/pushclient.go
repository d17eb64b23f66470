package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"github.com/valyala/fastjson"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/internal/jsonambig"
	"github.com/chatseq/chatseq/internal/jsonstr"
	"github.com/chatseq/chatseq/internal/redact"
)

// MaxPushFrame is the largest server frame a PushConn reads: frames are
// cut at about 256 KiB, but one message goes whole, and a message of
// the API's largest body (1 MiB) may grow sixfold when escaped.
const MaxPushFrame = 8 << 20

// badFrame is a frame in breach of the API (gateway.ErrBadFrame), as
// format says.
func badFrame(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{gateway.ErrBadFrame}, args...)...)
}

// readLimited: the library's error for a frame past SetReadLimit.
func readLimited(err error) bool {
	return err != nil && strings.Contains(err.Error(), "read limited at")
}

// PushConn is a device's end of the push channel: it reads MessagesFrames
// and sends AckFrames. Next must be called from one goroutine at a time;
// Ack and Close from any.
type PushConn struct {
	conn   *websocket.Conn
	buf    bytes.Buffer      // the frame being decoded, reused
	parser fastjson.Parser   // reuses its memory frame to frame
	msgs   []PushedMessage   // Next's answer, reused
	intern map[string]string // chat and sender ids, which repeat
}

// bigFrame is the size past which a frame is big: read by at most
// cap(bigFrames) devices of the process at a time, its buffers dropped
// after it. The server cuts frames at about 256 KiB; only a frame of one
// large message, or a hostile one, is bigger.
const bigFrame = 1 << 20

var bigFrames = make(chan struct{}, 2)

// maxInterned bounds PushConn's interned ids.
const maxInterned = 1 << 14

// PushDialOptions reach a service's push channel.
type PushDialOptions struct {
	// HTTPClient makes the handshake (TLS settings, timeouts); nil: the
	// default client.
	HTTPClient *http.Client
	// Header is sent with the handshake (credentials: never shown);
	// DialPush sets HeaderUser in a copy.
	Header http.Header
}

// PushRefusedError is a handshake the server answered with an HTTP error:
// no connection, no frame.
type PushRefusedError struct {
	Status int
	Code   string // the error body's machine code, when it has one
	Msg    string
}

func (e *PushRefusedError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("push channel refused: %d: %s", e.Status, e.Msg)
	}
	return fmt.Sprintf("push channel refused: %d %s: %s", e.Status, e.Code, e.Msg)
}

// Unwrap makes a refusal gateway.ErrRefused to errors.Is.
func (e *PushRefusedError) Unwrap() error { return gateway.ErrRefused }

// DialPush opens the push channel of the service at base (http or https
// URL) as user; "" names no one (no user header: a handshake the server
// must refuse). Once it returns, the device is subscribed: it receives
// every message published afterwards.
func DialPush(ctx context.Context, base, user string, o PushDialOptions) (*PushConn, error) {
	u := strings.TrimSuffix(base, "/") + PushPath
	h := o.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if user != "" {
		h.Set(HeaderUser, user)
	} else {
		h.Del(HeaderUser)
	}
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: o.HTTPClient, HTTPHeader: h})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, refusedFrom(resp)
		}
		return nil, fmt.Errorf("push channel: %w", err)
	}
	conn.SetReadLimit(MaxPushFrame)
	return &PushConn{conn: conn}, nil
}

func refusedFrom(resp *http.Response) error {
	e := &PushRefusedError{Status: resp.StatusCode}
	if resp.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		var eb ErrorBody
		if json.Unmarshal(body, &eb) == nil && eb.Error.Code != "" {
			e.Code, e.Msg = eb.Error.Code, eb.Error.Message
		} else {
			e.Msg = strings.TrimSpace(string(body))
		}
		e.Msg = shownRefusal(e.Msg)
	}
	return e
}

// shownRefusalBytes is how much of a refusal's text an error shows, as
// of a send's answer: a service may echo the request's headers in it.
const shownRefusalBytes = 200

// shownRefusal is msg quoted, its first shownRefusalBytes bytes, and
// credentials it shows hidden (redact.Text).
func shownRefusal(msg string) string {
	q := redact.Quote(msg, shownRefusalBytes)
	if len(msg) > shownRefusalBytes {
		q += fmt.Sprintf(" … (%d bytes)", len(msg))
	}
	return q
}

// Next reads the next frame's messages. They stay valid until the next
// call. A closed connection returns an error websocket.CloseStatus reads
// the code of (1013: the device fell behind; 1001: the server is going
// away). A frame that is not a MessagesFrame is an error.
//
// It decodes with fastjson into reused memory, allocating only the
// strings it returns: this is the receive path of every delivery.
func (c *PushConn) Next(ctx context.Context) ([]PushedMessage, error) {
	typ, r, err := c.conn.Reader(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageText {
		_ = closeWithin(c.conn, websocket.StatusUnsupportedData, "frames are JSON text")
		return nil, badFrame("push channel: a binary frame")
	}
	c.buf.Reset()
	_, err = io.CopyN(&c.buf, r, bigFrame)
	if err == nil {
		// More to come: a big frame is read and decoded by a few devices
		// at a time, and its memory not kept for the next. A service
		// pushing 8 MiB frames of 20,000 messages to every device held
		// about 30 MB a device, 2 GB for 64.
		select {
		case bigFrames <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() {
			<-bigFrames
			c.buf, c.parser, c.msgs = bytes.Buffer{}, fastjson.Parser{}, nil
		}()
		_, err = c.buf.ReadFrom(r)
	} else if err == io.EOF {
		err = nil
	}
	if err != nil {
		if readLimited(err) {
			return nil, badFrame("push channel: a frame over %d bytes: %v", MaxPushFrame, err)
		}
		return nil, err
	}
	if !utf8.Valid(c.buf.Bytes()) {
		// A WebSocket text frame must be UTF-8: read on, two ids that
		// differ in their invalid bytes would be recorded as one.
		_ = closeWithin(c.conn, websocket.StatusInvalidFramePayloadData, "frames are UTF-8")
		return nil, badFrame("push channel: a frame that is not valid UTF-8")
	}
	return c.decodeFrame(c.buf.Bytes())
}

// decodeFrame reads a text frame's messages (FuzzDecodeFrame).
func (c *PushConn) decodeFrame(b []byte) ([]PushedMessage, error) {
	if problem := jsonambig.Problem(b); problem != "" {
		// fastjson reads a name's first value, the service's own
		// clients (JavaScript, encoding/json) its last.
		return nil, badFrame("push channel: a frame with %s", problem)
	}
	v, err := c.parser.ParseBytes(b)
	if err != nil {
		// Quoted, not the parser's error: it shows the frame's tail cut
		// anywhere, and a credential echoed there in pieces.
		return nil, badFrame("push channel: a frame that is not JSON: %s", redact.Quote(b, shownRefusalBytes))
	}
	if twin := caseTwin(v, frameNames); twin != "" {
		return nil, badFrame("push channel: a frame with %s", twin)
	}
	if t := v.GetStringBytes("type"); string(t) != FrameMessages {
		return nil, badFrame("push channel: a frame of type %s", redact.Quote(t, shownRefusalBytes))
	}
	items := v.GetArray("messages")
	if len(items) == 0 {
		return nil, badFrame("push channel: a messages frame without messages")
	}
	if len(items) > MaxFrameMessages {
		return nil, badFrame("push channel: a frame of %d messages, more than the %d a frame may hold", len(items), MaxFrameMessages)
	}
	c.msgs = c.msgs[:0]
	for i, o := range items {
		m, err := c.decodeMessage(o)
		if err != nil {
			return nil, badFrame("push channel: message %d of a frame: %v", i, err)
		}
		c.msgs = append(c.msgs, m)
	}
	return c.msgs, nil
}

func (c *PushConn) decodeMessage(o *fastjson.Value) (PushedMessage, error) {
	var m PushedMessage
	chat, id := o.GetStringBytes("chat_id"), o.GetStringBytes("message_id")
	var seq uint64
	err := errors.New("no sequence")
	if sv := o.Get("sequence"); sv != nil { // a message without one panicked here
		seq, err = sv.Uint64()
	}
	if len(chat) == 0 || len(id) == 0 || err != nil || seq == 0 {
		return m, errors.New("it needs chat_id, message_id and a sequence above 0")
	}
	m.ChatID, m.MessageID, m.Sequence = c.interned(chat), string(id), seq
	// The rest asyncapi.yaml requires too. A sender or content left out
	// was recorded as "not said" and never compared: a channel that
	// dropped sender_id passed identical_order. Every message has a
	// sender, so an empty one is a breach as well (the history cannot
	// tell it from one not said).
	sender, ok := stringField(o, "sender_id")
	if !ok || len(sender) == 0 {
		return m, errors.New("it needs a sender_id, a string that is not empty")
	}
	content, ok := stringField(o, "content")
	if !ok {
		return m, errors.New("it needs a content, a string")
	}
	at, ok := stringField(o, "created_at")
	if !ok {
		return m, errors.New("it needs a created_at, an RFC 3339 time")
	}
	if m.CreatedAt, err = time.Parse(time.RFC3339Nano, string(at)); err != nil {
		return m, fmt.Errorf("created_at: %w", err)
	}
	m.SenderID, m.Content = c.interned(sender), string(content)
	m.ContentType = c.interned(o.GetStringBytes("content_type"))
	if twin := caseTwin(o, messageNames); twin != "" {
		return m, errors.New(twin)
	}
	return m, nil
}

func isOneOf(key []byte, names []string) bool {
	for _, name := range names {
		if string(key) == name {
			return true
		}
	}
	return false
}

// frameNames and messageNames are the members of a messages frame and of
// each of its messages that asyncapi.yaml names, and decodeFrame reads.
var (
	frameNames   = []string{"type", "messages"}
	messageNames = []string{"chat_id", "sequence", "message_id", "sender_id", "content", "content_type", "created_at"}
)

// caseTwin says, unless "", which member of the object o is named as one
// of names but for case (jsonambig.CaseTwin): read exactly here, it is
// read for that name by a client matching names regardless of case.
func caseTwin(o *fastjson.Value, names []string) string {
	obj, err := o.Object()
	if err != nil {
		return ""
	}
	twin := ""
	obj.Visit(func(key []byte, _ *fastjson.Value) {
		if twin != "" || isOneOf(key, names) {
			return
		}
		for _, name := range names {
			if twin == "" && !jsonambig.PlainlyNoTwin(key, name) {
				twin = jsonambig.CaseTwin(string(key), name)
			}
		}
	})
	return twin
}

// stringField is o's field name if it is there and a string.
func stringField(o *fastjson.Value, name string) ([]byte, bool) {
	v := o.Get(name)
	if v == nil || v.Type() != fastjson.TypeString {
		return nil, false
	}
	b, err := v.StringBytes()
	return b, err == nil
}

// interned is b as a string, the same one each time it repeats.
func (c *PushConn) interned(b []byte) string {
	if s, ok := c.intern[string(b)]; ok {
		return s
	}
	if c.intern == nil || len(c.intern) >= maxInterned {
		c.intern = map[string]string{}
	}
	s := string(b)
	c.intern[s] = s
	return s
}

// Ack acknowledges every message of chat up to seq (ADR-001 §5).
func (c *PushConn) Ack(ctx context.Context, chat string, seq uint64) error {
	// A buffer per ack: Ack may run beside another Ack.
	b := append(make([]byte, 0, 64+len(chat)), `{"type":"ack","chat_id":`...)
	b = jsonstr.Append(b, chat)
	b = append(b, `,"last_acked_sequence":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, '}')
	return c.conn.Write(ctx, websocket.MessageText, b)
}

// Close closes the connection normally, or drops it when the server does
// not finish the closing handshake in time (CloseConn).
func (c *PushConn) Close() error { return CloseConn(c.conn) }

// closeTimeout is how long a close waits for the server's half of the
// closing handshake.
const closeTimeout = 5 * time.Second

// CloseConn closes conn normally, or drops it once closeTimeout has
// passed: the library reads on until the server's close frame, skipping
// the rest of the frame under way byte by byte whatever its context, and
// a server that announced an endless frame, or never answers the close,
// held a device, and the run's settle after it, for ever.
func CloseConn(conn *websocket.Conn) error {
	return closeWithin(conn, websocket.StatusNormalClosure, "")
}

// closeWithin is CloseConn with a status and reason.
func closeWithin(conn *websocket.Conn, code websocket.StatusCode, reason string) error {
	done := make(chan error, 1)
	go func() { done <- conn.Close(code, reason) }()
	t := time.NewTimer(closeTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		_ = conn.CloseNow() // the Close under way then fails at once
		return fmt.Errorf("push channel: the server did not finish the closing handshake within %s: dropped", closeTimeout)
	}
}

// CloseNow drops the connection without the closing handshake (a device
// that loses its network).
func (c *PushConn) CloseNow() error { return c.conn.CloseNow() }
