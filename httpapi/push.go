package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/gateway"
)

// Bounds of the push channel.
const (
	// MaxDeviceFrame is the largest frame a device may send (an ack is
	// under a hundred bytes); a larger one closes the connection with
	// 1009.
	MaxDeviceFrame = 4 << 10
	// maxPushFrame is where the server starts a new frame: a batch of
	// large messages goes out in several frames of about this size (one
	// message larger than it goes alone).
	maxPushFrame = 256 << 10
	// DefaultPingEvery is how often the server pings a device; one that
	// has not answered by the next ping is cut off.
	DefaultPingEvery = 30 * time.Second
	// DefaultPushWriteTimeout bounds one frame's write: a device whose
	// connection does not drain is cut off.
	DefaultPushWriteTimeout = 10 * time.Second
)

// Push is what the push channel needs: the fan-out, fed from the events
// topic, and where delivery acks are kept.
type Push struct {
	Gateway *gateway.Gateway
	States  gateway.DeliveryStore
	// PingEvery and WriteTimeout: 0 takes the defaults.
	PingEvery, WriteTimeout time.Duration
}

// WithPush serves the push channel and delivery_state from p; without it
// both answer 503 (push.unavailable).
func (s *Server) WithPush(p *Push) *Server {
	if p != nil {
		q := *p
		if q.PingEvery <= 0 {
			q.PingEvery = DefaultPingEvery
		}
		if q.WriteTimeout <= 0 {
			q.WriteTimeout = DefaultPushWriteTimeout
		}
		p = &q
	}
	s.push = p
	return s
}

// pushOff answers a push path of a server without the channel.
func pushOff(w http.ResponseWriter) {
	w.Header().Set(HeaderRetryAfter, retryAfterSeconds)
	writeError(w, http.StatusServiceUnavailable, CodePushOff, "the push channel needs the events topic it is fed from: start chatseq serve with --kafka embedded or --brokers", "")
}

// pushDevice serves one device: the identity is checked and the device
// subscribed before the upgrade, so a refused one gets an HTTP error and
// no frame, and one that got its 101 misses nothing published after it.
func (s *Server) pushDevice(w http.ResponseWriter, r *http.Request) {
	if s.push == nil {
		pushOff(w)
		return
	}
	user := caller(w, r)
	if user == "" {
		return
	}
	dev, err := s.push.Gateway.Subscribe(user)
	switch {
	case errors.Is(err, gateway.ErrTooManyDevices):
		w.Header().Set(HeaderRetryAfter, retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, CodeTooManyConnections, err.Error(), "")
		return
	case err != nil:
		writeUnavailable(w, err)
		return
	}
	defer dev.Close()
	s.pushing.started()
	defer s.pushing.ended()
	// The server's request timeouts end with the hijack (net/http clears
	// the connection's deadlines); the keepalive bounds it from here.
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered
	}
	conn.SetReadLimit(MaxDeviceFrame)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		defer cancel()
		s.readAcks(ctx, conn, user)
	}()
	go func() {
		defer cancel()
		s.keepAlive(ctx, conn)
	}()
	code, reason := s.pushFrames(ctx, conn, dev)
	_ = conn.Close(code, reason)
}

// pushFrames writes what the device's queue holds until the connection or
// the device ends, and says how to close.
func (s *Server) pushFrames(ctx context.Context, conn *websocket.Conn, dev *gateway.Device) (websocket.StatusCode, string) {
	var batch []*gateway.Message
	var buf []byte
	for {
		var err error
		batch, err = dev.Next(ctx, batch[:0])
		switch {
		case errors.Is(err, gateway.ErrOverflow):
			return websocket.StatusTryAgainLater, "the device fell behind and missed messages: reconnect and catch up by sync"
		case errors.Is(err, gateway.ErrClosed):
			return websocket.StatusGoingAway, "the server is shutting down"
		case err != nil:
			return websocket.StatusGoingAway, ""
		}
		for rest := batch; len(rest) > 0; {
			var n int
			buf, n = appendMessagesFrame(buf[:0], rest, maxPushFrame)
			if err := s.writeFrame(ctx, conn, buf); err != nil {
				return websocket.StatusGoingAway, ""
			}
			rest = rest[n:]
		}
		clear(batch)
	}
}

func (s *Server) writeFrame(ctx context.Context, conn *websocket.Conn, frame []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.push.WriteTimeout)
	defer cancel()
	return conn.Write(ctx, websocket.MessageText, frame)
}

// keepAlive pings the device; one that does not answer in time is cut
// off (Ping's context ending closes the connection).
func (s *Server) keepAlive(ctx context.Context, conn *websocket.Conn) {
	tick := time.NewTicker(s.push.PingEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		pctx, cancel := context.WithTimeout(ctx, s.push.PingEvery)
		err := conn.Ping(pctx)
		cancel()
		if err != nil {
			return
		}
	}
}

// pushRefusal is why a device's frame closes its connection.
type pushRefusal struct {
	code   websocket.StatusCode
	reason string
}

func (e *pushRefusal) Error() string { return e.reason }

// readAcks persists the device's delivery acks until its connection ends
// or a frame breaks the protocol, which closes it with the code that says
// why.
func (s *Server) readAcks(ctx context.Context, conn *websocket.Conn, user string) {
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return // closed, or too large (the library closed it with 1009)
		}
		if typ != websocket.MessageText {
			_ = conn.Close(websocket.StatusUnsupportedData, "frames are JSON text")
			return
		}
		if err := s.ack(ctx, user, data); err != nil {
			var refusal *pushRefusal
			if errors.As(err, &refusal) {
				_ = conn.Close(refusal.code, refusal.reason)
			} else {
				_ = conn.Close(websocket.StatusInternalError, "delivery_state could not be stored; reconnect")
			}
			return
		}
	}
}

// closeReasonMax is how long a close frame's reason may be (a control
// frame's payload is 125 bytes, 2 of them the code).
const closeReasonMax = 123

func refuse(code websocket.StatusCode, format string, args ...any) error {
	reason := fmt.Sprintf(format, args...)
	if len(reason) > closeReasonMax {
		reason = reason[:closeReasonMax]
	}
	return &pushRefusal{code: code, reason: reason}
}

// ack reads one AckFrame and raises the user's delivery_state.
func (s *Server) ack(ctx context.Context, user string, data []byte) error {
	var f AckFrame
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || dec.More() {
		return refuse(websocket.StatusPolicyViolation, "not an ack frame (JSON {type, chat_id, last_acked_sequence})")
	}
	switch {
	case f.Type != FrameAck:
		return refuse(websocket.StatusPolicyViolation, "unknown frame type %q", f.Type)
	case f.ChatID == "" || f.LastAckedSequence == nil:
		return refuse(websocket.StatusPolicyViolation, "an ack names chat_id and last_acked_sequence")
	}
	member, err := s.members.isMember(ctx, s.target, f.ChatID, user)
	if err != nil {
		return err
	}
	if !member {
		return refuse(websocket.StatusPolicyViolation, "not a member of the chat acked")
	}
	seq := *f.LastAckedSequence
	exists, err := s.sequenceExists(ctx, f.ChatID, seq)
	if err != nil {
		return err
	}
	if !exists {
		// ADR-001 Appendix C: delivery_state never passes the chat's
		// highest persisted sequence.
		return refuse(websocket.StatusPolicyViolation, "ack of sequence %d, past the chat's last message", seq)
	}
	_, err = s.push.States.RecordAck(ctx, f.ChatID, user, seq)
	return err
}

// sequenceExists reports whether chat has a message at seq or above: the
// gateway has seen one on the topic, or else a sync finds one (the
// device may have synced a message whose event the topic has not brought
// yet).
func (s *Server) sequenceExists(ctx context.Context, chat string, seq uint64) (bool, error) {
	if seq == 0 || seq <= s.push.Gateway.Highest(chat) {
		return true, nil
	}
	msgs, err := s.target.Sync(ctx, chat, seq-1, 1)
	if err != nil {
		return false, err
	}
	return len(msgs) > 0, nil
}

// deliveryState answers GET /v1/chats/{chat_id}/delivery_state to the
// chat's members.
func (s *Server) deliveryState(w http.ResponseWriter, r *http.Request) {
	if s.push == nil {
		pushOff(w)
		return
	}
	chat, ok := s.memberChat(w, r)
	if !ok {
		return
	}
	rows, err := s.push.States.DeliveryStates(r.Context(), chat)
	if err != nil {
		writeUnavailable(w, err)
		return
	}
	out := DeliveryStateResponse{ChatID: chat, DeliveryState: make([]DeliveryStateItem, 0, len(rows))}
	for _, row := range rows {
		out.DeliveryState = append(out.DeliveryState, DeliveryStateItem{UserID: row.UserID, LastAckedSequence: row.LastAckedSequence})
	}
	writeJSON(w, http.StatusOK, out)
}
