package httptarget

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/jsonambig"
)

// PushChannel is the service's delivery plane as bench's receivers reach
// it (gateway.ChannelServer): chatseq's push channel, GET /v1/push
// (docs/http-api.md), a catch-up page as the device's user, and GET
// /v1/chats/{chat}/delivery_state.
func (c *client) PushChannel(context.Context) (gateway.Channel, error) {
	// The handshake's own client: the requests' timeout would bound the
	// whole connection, which lives as long as the device, and their
	// transport may be one that reads answers whole.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if c.settings.tls != nil {
		tr.TLSClientConfig = c.settings.tls
	}
	hc := &http.Client{Transport: tr, CheckRedirect: c.http.CheckRedirect}
	p := &pushChannel{c: c, dial: httpapi.PushDialOptions{HTTPClient: hc, Header: c.settings.header}}
	if !chatseqsFrames(c.api.Push) {
		// Another service's push channel, through the mapping.
		return &mappedChannel{pushChannel: p}, nil
	}
	return p, nil
}

// chatseqsFrames: p reaches chatseq's push channel and its frames,
// wherever and however it reads delivery_state (a mapping reads it
// loosely unless it says typed).
func chatseqsFrames(p PushSpec) bool {
	p.DeliveryState = DefaultPush().DeliveryState
	return p == DefaultPush()
}

type pushChannel struct {
	c    *client
	dial httpapi.PushDialOptions
}

func (p *pushChannel) Dial(ctx context.Context, user string) (gateway.Conn, error) {
	if user == "" {
		return nil, fmt.Errorf("push channel: a device names its user")
	}
	return p.dialAs(ctx, user)
}

// DialAnonymous is a handshake without X-User-Id, which the API refuses
// (401 auth.required): bench's anonymous device (gateway.AnonymousDialer).
func (p *pushChannel) DialAnonymous(ctx context.Context) (gateway.Conn, error) {
	return p.dialAs(ctx, "")
}

// NamesUsers: chatseq's handshake names its user in X-User-Id.
func (p *pushChannel) NamesUsers() bool { return true }

func (p *pushChannel) dialAs(ctx context.Context, user string) (gateway.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.c.settings.timeout)
	defer cancel()
	conn, err := httpapi.DialPush(ctx, p.c.base.String(), user, p.dial)
	if err != nil {
		return nil, err
	}
	return &pushConn{conn: conn, timeout: p.c.settings.timeout}, nil
}

// MostMessages bounds a device's catch-up of chat as the final state's
// read back is bounded (gateway.MessageBound).
func (p *pushChannel) MostMessages(chat string) int64 { return p.c.mostMessages(chat) }

func (p *pushChannel) CatchUp(ctx context.Context, user, chat string, after uint64, limit int) ([]gateway.Message, error) {
	msgs, given, _, err := p.c.pageAs(ctx, user, chat, after, min(limit, p.c.api.Sync.MaxLimit), noRetry)
	if err != nil {
		return nil, err
	}
	out := make([]gateway.Message, len(msgs))
	for i, m := range msgs {
		// Compared only where the page gave a content, empty included.
		out[i] = gateway.Message{ChatID: chat, Sequence: m.Seq, MessageID: m.MessageID, SenderID: m.Sender, Content: m.Content, ContentGiven: given != nil && given[i]}
	}
	return out, nil
}

// DeliveryStates reads the chat's delivery_state as the member the run
// created it with, at the mapping's paths or chatseq's: by exact names,
// as its clients read it (decoded into a struct, "Last_Acked_Sequence"
// was read as the row's last_acked_sequence, which a JavaScript client
// finds absent).
func (p *pushChannel) DeliveryStates(ctx context.Context, chat string) ([]gateway.DeliveryState, error) {
	spec := p.c.api.Push.DeliveryState
	to := p.c.url(spec.Path, chat, nil)
	a, err := p.readDeliveryState(ctx, to, chat)
	if err != nil {
		return nil, err
	}
	body, _ := decode(a.body)
	if problem := deliveryStateProblem(body, spec, chat); problem != "" {
		return nil, fmt.Errorf("GET %s: an answer %s", requestPath(to), problem)
	}
	list, _ := walk(body, spec.Rows)
	rows, ok := list.([]any)
	if !ok {
		return nil, fmt.Errorf("GET %s: an answer without a list at %q", requestPath(to), spec.Rows)
	}
	out := make([]gateway.DeliveryState, 0, len(rows))
	for i, r := range rows {
		u, _ := walk(r, spec.User)
		sv, _ := walk(r, spec.Sequence)
		if spec.Typed {
			if problem := untypedRow(r, u, sv, spec); problem != "" {
				return nil, fmt.Errorf("GET %s: row %d %s", requestPath(to), i, problem)
			}
		}
		seq, ok := uintOf(sv)
		if stringOf(u) == "" || !ok {
			return nil, fmt.Errorf("GET %s: row %d without a user at %q and a sequence at %q", requestPath(to), i, spec.User, spec.Sequence)
		}
		out = append(out, gateway.DeliveryState{ChatID: chat, UserID: stringOf(u), LastAckedSequence: seq})
	}
	return out, nil
}

// deliveryStateProblem says, unless "", why a delivery_state answer is
// not chat's: it names another chat where spec reads one, or, typed, a
// twin of the name of its chat or its list.
func deliveryStateProblem(body any, spec DeliveryStateSpec, chat string) string {
	if spec.Typed {
		if twin := decodedTwin(body, spec.Chat, spec.Rows); twin != "" {
			return "with " + twin
		}
	}
	if spec.Chat == "" {
		return ""
	}
	v, ok := walk(body, spec.Chat)
	if _, isString := v.(string); !ok || spec.Typed && !isString || stringOf(v) != chat {
		return fmt.Sprintf("not naming the chat asked for, %q, at %q", chat, spec.Chat)
	}
	return ""
}

// untypedRow says, unless "", how a typed row's user u or sequence sv is
// not of the API's type, or names either by a twin.
func untypedRow(row, u, sv any, spec DeliveryStateSpec) string {
	if twin := decodedTwin(row, spec.User, spec.Sequence); twin != "" {
		return "with " + twin
	}
	if _, ok := u.(string); !ok && u != nil {
		return fmt.Sprintf("with its user at %q not a JSON string: the API's is a string", spec.User)
	}
	if _, ok := sv.(json.Number); !ok && sv != nil {
		return fmt.Sprintf("with its sequence at %q not a JSON number: the API's is an integer", spec.Sequence)
	}
	return ""
}

// readDeliveryState reads chat's delivery_state at to, as the member the
// run created it with: a 200 whose body is UTF-8 and whole, or an error
// saying which it is not.
func (p *pushChannel) readDeliveryState(ctx context.Context, to, chat string) (*answer, error) {
	a, err := p.c.do(ctx, http.MethodGet, to, p.c.asUser(nil, p.c.reader(chat)), nil, MaxCallAnswerBytes)
	switch {
	case err != nil:
		return nil, err
	case a.status != http.StatusOK:
		return nil, fmt.Errorf("GET %s: %d %s", requestPath(to), a.status, errorCode(a.body))
	case a.cut:
		// Read up to its bound and no further: decoded, it read as
		// "unexpected end of JSON input".
		return nil, fmt.Errorf("GET %s: an answer over %d bytes, read no further", requestPath(to), MaxCallAnswerBytes)
	case !utf8.Valid(a.body):
		return nil, fmt.Errorf("GET %s: an answer %s", requestPath(to), notUTF8)
	}
	if problem := jsonambig.Problem(a.body); problem != "" {
		return nil, fmt.Errorf("GET %s: an answer with %s", requestPath(to), problem)
	}
	return a, nil
}

// ReadStateAs reads chat's delivery_state as user, answered or refused
// (gateway.StateReaderAs): an outsider device's read, which the API
// refuses to a non-member (403).
func (p *pushChannel) ReadStateAs(ctx context.Context, user, chat string) error {
	if p.c.api.UserHeader == "" {
		return fmt.Errorf("the API names no caller: a read as %q is a read as anyone", user)
	}
	to := p.c.url(p.c.api.Push.DeliveryState.Path, chat, nil)
	a, err := p.c.do(ctx, http.MethodGet, to, p.c.asUser(nil, user), nil, MaxCallAnswerBytes)
	switch {
	case err != nil:
		return err
	case a.status/100 == 2:
		return nil
	case a.status/100 == 4 && a.status != http.StatusTooManyRequests:
		return fmt.Errorf("%w: GET %s: %d %s", gateway.ErrRefused, requestPath(to), a.status, errorCode(a.body))
	}
	return fmt.Errorf("GET %s: %d %s", requestPath(to), a.status, errorCode(a.body))
}

// Quiesce has nothing to wait on: the service's topic consumer is its
// own, and each device's last catch-up brings what it has not pushed.
func (p *pushChannel) Quiesce(context.Context) error { return nil }
func (p *pushChannel) Close()                        {}

// pushConn is one device's WebSocket.
type pushConn struct {
	conn    *httpapi.PushConn
	timeout time.Duration
}

func (c *pushConn) Next(ctx context.Context) ([]gateway.Message, error) {
	msgs, err := c.conn.Next(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]gateway.Message, len(msgs))
	for i, m := range msgs {
		// chatseq's push frame carries a message's content: one pushed
		// without it was pushed empty.
		out[i] = gateway.Message{ChatID: m.ChatID, Sequence: m.Sequence, MessageID: m.MessageID, SenderID: m.SenderID, Content: m.Content, ContentType: m.ContentType, CreatedAt: m.CreatedAt, ContentGiven: true}
	}
	return out, nil
}

func (c *pushConn) Ack(ctx context.Context, chat string, seq uint64) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.conn.Ack(ctx, chat, seq)
}

func (c *pushConn) Drop()  { _ = c.conn.CloseNow() }
func (c *pushConn) Close() { _ = c.conn.Close() }
