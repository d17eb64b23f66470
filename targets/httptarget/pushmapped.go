package httptarget

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/jsonambig"
	"github.com/chatseq/chatseq/internal/redact"
)

// mappedChannel is another service's push channel, read through the
// --api file's push mapping (PushSpec): its handshake, its frames, its
// ack. Catch-ups go through the mapped sync, as the device's user.
type mappedChannel struct {
	*pushChannel
}

func (m *mappedChannel) Dial(ctx context.Context, user string) (gateway.Conn, error) {
	if user == "" {
		return nil, fmt.Errorf("push channel: a device names its user")
	}
	return m.dialAs(ctx, user)
}

// DialAnonymous is a handshake naming no user (neither the mapping's
// user_param nor the API's user header), which the service must refuse
// (gateway.AnonymousDialer).
func (m *mappedChannel) DialAnonymous(ctx context.Context) (gateway.Conn, error) {
	return m.dialAs(ctx, "")
}

// NamesUsers: the handshake names its user where the mapping gives a
// user_param or the API a user header; else every handshake is anonymous.
func (m *mappedChannel) NamesUsers() bool {
	return m.c.api.Push.UserParam != "" || m.c.api.UserHeader != ""
}

// dialAs is the handshake as user; "" names none.
func (m *mappedChannel) dialAs(ctx context.Context, user string) (gateway.Conn, error) {
	spec := &m.c.api.Push
	ctx, cancel := context.WithTimeout(ctx, m.c.settings.timeout)
	defer cancel()
	var q url.Values
	if spec.UserParam != "" && user != "" {
		q = url.Values{spec.UserParam: {user}}
	}
	to := m.c.url(spec.Path, "", q)
	h := m.dial.Header.Clone()
	if spec.UserParam == "" {
		h = m.c.asUser(h, user)
	}
	conn, resp, err := websocket.Dial(ctx, to, &websocket.DialOptions{HTTPClient: m.dial.HTTPClient, HTTPHeader: h})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, fmt.Errorf("%w: GET %s: %d", gateway.ErrRefused, requestPath(to), resp.StatusCode)
		}
		return nil, fmt.Errorf("push channel: %w", err)
	}
	conn.SetReadLimit(httpapi.MaxPushFrame)
	return &mappedConn{conn: conn, spec: spec, timeout: m.c.settings.timeout}, nil
}

// mappedConn is one device's WebSocket to another service.
type mappedConn struct {
	conn    *websocket.Conn
	spec    *PushSpec
	timeout time.Duration
}

// limitedFrame is err, a frame past the read limit marked a bad frame.
func limitedFrame(err error) error {
	if strings.Contains(err.Error(), "read limited at") {
		return fmt.Errorf("%w: push channel: a frame over %d bytes: %v", gateway.ErrBadFrame, httpapi.MaxPushFrame, err)
	}
	return err
}

// Next reads frames until one carries messages; frames of another type
// are skipped. A frame the mapping cannot read is an error, which ends
// the connection: the device reconnects and catches up.
func (c *mappedConn) Next(ctx context.Context) ([]gateway.Message, error) {
	for {
		typ, data, err := c.conn.Read(ctx)
		if err != nil {
			return nil, limitedFrame(err)
		}
		if typ != websocket.MessageText {
			return nil, fmt.Errorf("%w: push channel: a binary frame (the mapping reads JSON text)", gateway.ErrBadFrame)
		}
		if !utf8.Valid(data) {
			return nil, fmt.Errorf("%w: push channel: a frame that is not valid UTF-8 (read on, two ids that differ in their invalid bytes would read as one)", gateway.ErrBadFrame)
		}
		if problem := jsonambig.Problem(data); problem != "" {
			return nil, fmt.Errorf("%w: push channel: a frame with %s", gateway.ErrBadFrame, problem)
		}
		v, ok := decode(data)
		if !ok {
			return nil, fmt.Errorf("%w: push channel: a frame that is not JSON: %s", gateway.ErrBadFrame, redact.Quote(data, 200))
		}
		if c.spec.FrameType != "" {
			if t, _ := walk(v, c.spec.FrameType); stringOf(t) != c.spec.MessagesType {
				continue
			}
		}
		items := []any{v}
		if c.spec.Messages != "" {
			list, _ := walk(v, c.spec.Messages)
			var isList bool
			if items, isList = list.([]any); !isList {
				return nil, fmt.Errorf("%w: push channel: a frame of messages without a list at %q: %s", gateway.ErrBadFrame, c.spec.Messages, redact.Quote(data, 200))
			}
		}
		out := make([]gateway.Message, 0, len(items))
		for i, it := range items {
			m, err := c.message(it)
			if err != nil {
				return nil, fmt.Errorf("%w: push channel: message %d of a frame: %v: %s", gateway.ErrBadFrame, i, err, redact.Quote(data, 200))
			}
			out = append(out, m)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
}

func (c *mappedConn) message(it any) (gateway.Message, error) {
	s := c.spec
	var m gateway.Message
	chat, _ := walk(it, s.ChatID)
	id, _ := walk(it, s.MessageID)
	seqV, _ := walk(it, s.Sequence)
	seq, ok := uintOf(seqV)
	m.ChatID, m.MessageID, m.Sequence = stringOf(chat), stringOf(id), seq
	if m.ChatID == "" || m.MessageID == "" || !ok || seq == 0 {
		return m, fmt.Errorf("it needs a chat at %q, a message id at %q and a sequence above 0 at %q", s.ChatID, s.MessageID, s.Sequence)
	}
	if s.Sender != "" {
		// A sender the mapping names must be there: one left out was
		// recorded as "not said" and never compared.
		v, _ := walk(it, s.Sender)
		if m.SenderID = stringOf(v); m.SenderID == "" {
			return m, fmt.Errorf("it needs a sender at %q, not empty", s.Sender)
		}
	}
	if s.Content != "" {
		v, _ := walk(it, s.Content)
		m.Content, m.ContentGiven = stringOf(v), true
	}
	if s.CreatedAt != "" {
		if v, ok := walk(it, s.CreatedAt); ok {
			at, err := time.Parse(time.RFC3339Nano, stringOf(v))
			if err != nil {
				return m, fmt.Errorf("created_at at %q is not RFC 3339: %w", s.CreatedAt, err)
			}
			m.CreatedAt = at
		}
	}
	return m, nil
}

func (c *mappedConn) Ack(ctx context.Context, chat string, seq uint64) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.conn.Write(ctx, websocket.MessageText, renderAck(c.spec.Ack, chat, seq))
}

func (c *mappedConn) Drop()  { _ = c.conn.CloseNow() }
func (c *mappedConn) Close() { _ = httpapi.CloseConn(c.conn) }
