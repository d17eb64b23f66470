package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/httpapi/apitest"
	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/targets/core"
)

// pushServer is chatseq serve's assembly in small: a core publishing to
// an in-process Kafka, a gateway fed from the topic, the API in front.
type pushServer struct {
	srv    *httptest.Server
	gw     *gateway.Gateway
	feed   *kafka.Feed
	frames *apitest.Frames
	tr     *apitest.Transport
}

func newPushServer(t *testing.T, cfg gateway.Config) *pushServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cluster, err := embedded.Start("events", 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	pub, err := kafka.NewPublisher(ctx, cluster.Brokers(), "events", 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pub.Close)
	target, err := core.Factory(nil)(ctx, bench.DefaultConfig().TargetEnv(pub, nil))
	if err != nil {
		t.Fatal(err)
	}
	gw := gateway.New(cfg)
	t.Cleanup(gw.Close)
	feed, err := kafka.StartFeed(ctx, cluster.Brokers(), "events", nil, gw)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(feed.Close)
	srv := httptest.NewServer(httpapi.NewServer(target).WithPush(&httpapi.Push{Gateway: gw, States: &gateway.MemoryDeliveryStore{}}).Handler())
	t.Cleanup(srv.Close)
	return &pushServer{srv: srv, gw: gw, feed: feed, frames: apitest.LoadFrames(t), tr: apitest.NewTransport(t, nil)}
}

// call makes one API request as user, validated against docs/openapi.yaml.
func (p *pushServer) call(t *testing.T, method, path, user, key, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, p.srv.URL+path, strings.NewReader(body))
	if user != "" {
		req.Header.Set(httpapi.HeaderUser, user)
	}
	if key != "" {
		req.Header.Set(httpapi.HeaderIdempotencyKey, key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Transport: p.tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (p *pushServer) mustCall(t *testing.T, status int, method, path, user, key, body string) []byte {
	t.Helper()
	got, b := p.call(t, method, path, user, key, body)
	if got != status {
		t.Fatalf("%s %s as %q: %d %s, want %d", method, path, user, got, b, status)
	}
	return b
}

// device is a raw WebSocket client: every frame the server sends is
// validated against docs/asyncapi.yaml before it is decoded.
type device struct {
	t      *testing.T
	conn   *websocket.Conn
	frames *apitest.Frames
}

func (p *pushServer) dial(t *testing.T, user string) *device {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := http.Header{}
	h.Set(httpapi.HeaderUser, user)
	conn, _, err := websocket.Dial(ctx, strings.Replace(p.srv.URL, "http", "ws", 1)+httpapi.PushPath, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("%s dials the push channel: %v", user, err)
	}
	conn.SetReadLimit(httpapi.MaxPushFrame)
	t.Cleanup(func() { conn.CloseNow() })
	return &device{t: t, conn: conn, frames: p.frames}
}

// frame reads one frame, validated.
func (d *device) frame(ctx context.Context) ([]httpapi.PushedMessage, error) {
	typ, data, err := d.conn.Read(ctx)
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageText {
		d.t.Errorf("the server sent a binary frame")
	}
	if err := d.frames.Validate(httpapi.FrameMessages, data); err != nil {
		d.t.Error(err)
	}
	var f httpapi.MessagesFrame
	if err := json.Unmarshal(data, &f); err != nil {
		d.t.Fatal(err)
	}
	return f.Messages, nil
}

// read takes exactly n messages.
func (d *device) read(n int) []httpapi.PushedMessage {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []httpapi.PushedMessage
	for len(got) < n {
		ms, err := d.frame(ctx)
		if err != nil {
			d.t.Fatalf("after %d of %d messages: %v", len(got), n, err)
		}
		got = append(got, ms...)
	}
	if len(got) != n {
		d.t.Fatalf("%d messages, want %d", len(got), n)
	}
	return got
}

// send writes a device frame; an ack must be valid by docs/asyncapi.yaml.
func (d *device) send(frame string) {
	d.t.Helper()
	var probe struct{ Type string }
	if json.Unmarshal([]byte(frame), &probe) == nil && probe.Type == httpapi.FrameAck {
		if err := d.frames.Validate(httpapi.FrameAck, []byte(frame)); err != nil {
			d.t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.conn.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		d.t.Fatal(err)
	}
}

// closedWith reads until the server closes and returns its close code.
func (d *device) closedWith() websocket.StatusCode {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		_, err := d.frame(ctx)
		if err != nil {
			if ctx.Err() != nil {
				d.t.Fatal("the server did not close the connection")
			}
			return websocket.CloseStatus(err)
		}
	}
}

func seqs(ms []httpapi.PushedMessage) string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s/%d", m.ChatID, m.Sequence))
	}
	return strings.Join(out, " ")
}

// Members' devices get their chats' messages from the topic, whole and in
// order, each frame as docs/asyncapi.yaml says; a device gets no other
// chat's.
func TestPushDeliversEachMembersChatsAndNoOther(t *testing.T) {
	p := newPushServer(t, gateway.Config{})
	p.mustCall(t, 201, "PUT", "/v1/chats/c1", "u1", "", `{"members":["u1","u2"]}`)
	p.mustCall(t, 201, "PUT", "/v1/chats/c2", "u3", "", `{"members":["u3"]}`)
	p.mustCall(t, 201, "PUT", "/v1/chats/c3", "u9", "", `{"members":["u9"]}`)
	u1, u2, u3, u9 := p.dial(t, "u1"), p.dial(t, "u2"), p.dial(t, "u3"), p.dial(t, "u9")
	for i := 1; i <= 5; i++ {
		p.mustCall(t, 201, "POST", "/v1/chats/c1/messages", "u1", fmt.Sprint("k", i), fmt.Sprintf(`{"content":"hello %d","content_type":"text/plain"}`, i))
	}
	for i := 1; i <= 2; i++ {
		p.mustCall(t, 201, "POST", "/v1/chats/c2/messages", "u3", fmt.Sprint("k", i), `{"content":"x"}`)
	}
	// Chat c3's message comes after all others on the topic's single
	// consumer; u9's first message being it shows nothing of c1 or c2
	// was pushed to u9 before.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.feed.WaitCaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	p.mustCall(t, 201, "POST", "/v1/chats/c3/messages", "u9", "k1", `{"content":"mine"}`)

	for name, d := range map[string]*device{"u1": u1, "u2": u2} {
		got := d.read(5)
		if s := seqs(got); s != "c1/1 c1/2 c1/3 c1/4 c1/5" {
			t.Errorf("%s got %s", name, s)
		}
		if m := got[2]; m.Content != "hello 3" || m.SenderID != "u1" || m.ContentType != "text/plain" || m.MessageID == "" || m.CreatedAt.IsZero() {
			t.Errorf("%s got message 3 as %+v", name, m)
		}
	}
	if s := seqs(u3.read(2)); s != "c2/1 c2/2" {
		t.Errorf("u3 got %s", s)
	}
	if s := seqs(u9.read(1)); s != "c3/1" {
		t.Errorf("u9, a member of c3 only, got %s first", s)
	}
	p.tr.Check(t)
}

// deliveryState reads the chat's delivery_state as user.
func (p *pushServer) deliveryState(t *testing.T, chat, user string) map[string]uint64 {
	t.Helper()
	var ds httpapi.DeliveryStateResponse
	if err := json.Unmarshal(p.mustCall(t, 200, "GET", "/v1/chats/"+chat+"/delivery_state", user, "", ""), &ds); err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, row := range ds.DeliveryState {
		out[row.UserID] = row.LastAckedSequence
	}
	return out
}

// waitState polls until (chat, user) reads want: acks are applied in the
// order a connection sends them, but answered by nothing.
func (p *pushServer) waitState(t *testing.T, chat, user string, want uint64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for p.deliveryState(t, chat, user)[user] != want {
		if time.Now().After(deadline) {
			t.Fatalf("delivery_state of %s in %s never reached %d: %v", user, chat, want, p.deliveryState(t, chat, user))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Acks are kept per (chat, user), never lowered, readable by members only.
func TestAcksAreKeptMonotonicAndReadByMembers(t *testing.T) {
	p := newPushServer(t, gateway.Config{})
	p.tr.RequestsMayBeInvalid = true // one read names no caller, on purpose
	p.mustCall(t, 201, "PUT", "/v1/chats/c1", "u1", "", `{"members":["u1","u2"]}`)
	p.mustCall(t, 201, "PUT", "/v1/chats/c2", "u1", "", `{"members":["u1"]}`)
	for i := 1; i <= 5; i++ {
		p.mustCall(t, 201, "POST", "/v1/chats/c1/messages", "u1", fmt.Sprint("k", i), `{"content":"x"}`)
	}
	p.mustCall(t, 201, "POST", "/v1/chats/c2/messages", "u1", "k1", `{"content":"x"}`)
	u1 := p.dial(t, "u1")
	u1.send(`{"type":"ack","chat_id":"c1","last_acked_sequence":5}`)
	u1.send(`{"type":"ack","chat_id":"c1","last_acked_sequence":2}`)
	u1.send(`{"type":"ack","chat_id":"c2","last_acked_sequence":1}`)
	// c2's ack was sent after the lower one on the same connection.
	p.waitState(t, "c2", "u1", 1)
	if got := p.deliveryState(t, "c1", "u2"); fmt.Sprint(got) != "map[u1:5]" {
		t.Errorf("c1's delivery_state read by u2: %v, want u1 at 5 (a lower ack lowers nothing)", got)
	}
	p.mustCall(t, 403, "GET", "/v1/chats/c2/delivery_state", "u2", "", "")
	p.mustCall(t, 401, "GET", "/v1/chats/c1/delivery_state", "", "", "")
	p.tr.Check(t)
}

// A frame that breaks the protocol closes the connection with the code
// that says why, and changes no delivery_state.
func TestBadDeviceFramesCloseWithTheirCode(t *testing.T) {
	p := newPushServer(t, gateway.Config{})
	p.mustCall(t, 201, "PUT", "/v1/chats/c1", "u1", "", `{"members":["u1"]}`)
	p.mustCall(t, 201, "PUT", "/v1/chats/other", "u2", "", `{"members":["u2"]}`)
	p.mustCall(t, 201, "POST", "/v1/chats/c1/messages", "u1", "k1", `{"content":"x"}`)
	p.mustCall(t, 201, "POST", "/v1/chats/other/messages", "u2", "k1", `{"content":"x"}`)
	for _, c := range []struct {
		name  string
		frame string
		bin   bool
		want  websocket.StatusCode
	}{
		{"not JSON", `hello`, false, websocket.StatusPolicyViolation},
		{"unknown type", `{"type":"send_message","chat_id":"c1"}`, false, websocket.StatusPolicyViolation},
		{"ack without a sequence", `{"type":"ack","chat_id":"c1"}`, false, websocket.StatusPolicyViolation},
		{"ack with an unknown field", `{"type":"ack","chat_id":"c1","last_acked_sequence":1,"x":1}`, false, websocket.StatusPolicyViolation},
		{"ack of another's chat", `{"type":"ack","chat_id":"other","last_acked_sequence":1}`, false, websocket.StatusPolicyViolation},
		{"ack past the last message", `{"type":"ack","chat_id":"c1","last_acked_sequence":2}`, false, websocket.StatusPolicyViolation},
		{"binary", `{"type":"ack","chat_id":"c1","last_acked_sequence":1}`, true, websocket.StatusUnsupportedData},
		{"too large", `{"type":"ack","chat_id":"` + strings.Repeat("c", httpapi.MaxDeviceFrame) + `","last_acked_sequence":1}`, false, websocket.StatusMessageTooBig},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := p.dial(t, "u1")
			typ := websocket.MessageText
			if c.bin {
				typ = websocket.MessageBinary
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := d.conn.Write(ctx, typ, []byte(c.frame)); err != nil {
				t.Fatal(err)
			}
			if got := d.closedWith(); got != c.want {
				t.Errorf("closed with %d, want %d", got, c.want)
			}
		})
	}
	if got := p.deliveryState(t, "c1", "u1"); len(got) != 0 {
		t.Errorf("c1's delivery_state after refused acks: %v, want none", got)
	}
	if got := p.deliveryState(t, "other", "u2"); len(got) != 0 {
		t.Errorf("other's delivery_state after a non-member's ack: %v, want none", got)
	}
}

// Refused handshakes get an HTTP error, as docs/openapi.yaml says, and no
// connection.
func TestRefusedHandshakesGetNoConnection(t *testing.T) {
	p := newPushServer(t, gateway.Config{MaxDevices: 1})
	p.tr.RequestsMayBeInvalid = true // one handshake names no caller, on purpose
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := httpapi.DialPush(ctx, p.srv.URL, "", httpapi.PushDialOptions{}); !isRefused(err, 401, httpapi.CodeUnauthenticated) {
		t.Errorf("no identity: %v, want a 401 %s", err, httpapi.CodeUnauthenticated)
	}
	first, err := httpapi.DialPush(ctx, p.srv.URL, "u1", httpapi.PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := httpapi.DialPush(ctx, p.srv.URL, "u2", httpapi.PushDialOptions{}); !isRefused(err, 503, httpapi.CodeTooManyConnections) {
		t.Errorf("past the cap: %v, want a 503 %s", err, httpapi.CodeTooManyConnections)
	}
	// The same refusals as plain requests, validated by the document.
	p.mustCall(t, 401, "GET", httpapi.PushPath, "", "", "")
	p.mustCall(t, 503, "GET", httpapi.PushPath, "u2", "", "")

	off := httptest.NewServer(httpapi.NewServer(nil).Handler())
	defer off.Close()
	if _, err := httpapi.DialPush(ctx, off.URL, "u1", httpapi.PushDialOptions{}); !isRefused(err, 503, httpapi.CodePushOff) {
		t.Errorf("a server without push: %v, want a 503 %s", err, httpapi.CodePushOff)
	}
	p.tr.Check(t)
}

func isRefused(err error, status int, code string) bool {
	var r *httpapi.PushRefusedError
	return errors.As(err, &r) && r.Status == status && r.Code == code
}

// A device that stops reading while messages keep coming is closed with
// 1013 once its queue is full, after the frames it was sent.
func TestADeviceThatFallsBehindIsClosedWithTryAgainLater(t *testing.T) {
	gw := gateway.New(gateway.Config{QueueLimit: 4})
	defer gw.Close()
	srv := httptest.NewServer(httpapi.NewServer(nil).WithPush(&httpapi.Push{Gateway: gw, States: &gateway.MemoryDeliveryStore{}, WriteTimeout: 5 * time.Minute}).Handler())
	defer srv.Close()
	gw.SetMembers("c1", []string{"slow"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	slow, err := httpapi.DialPush(ctx, srv.URL, "slow", httpapi.PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	// 1 MiB messages fill the loopback's buffers long before 64 MiB: the
	// server's write blocks and the queue behind it overflows.
	big := strings.Repeat("x", 1<<20)
	for seq := uint64(1); seq <= 64; seq++ {
		gw.Deliver(ctx, []*gateway.Message{{ChatID: "c1", Sequence: seq, MessageID: fmt.Sprint(seq), SenderID: "u1", Content: big}})
	}
	if s := gw.Stats(); s.Overflows != 1 {
		t.Fatalf("stats %+v: the device never overflowed", s)
	}
	var got uint64
	for {
		ms, err := slow.Next(ctx)
		if err != nil {
			if code := websocket.CloseStatus(err); code != websocket.StatusTryAgainLater {
				t.Fatalf("after %d messages: %v (close code %d), want 1013", got, err, code)
			}
			break
		}
		for _, m := range ms {
			if m.Sequence != got+1 {
				t.Fatalf("message %d after %d", m.Sequence, got)
			}
			got = m.Sequence
		}
	}
	if got >= 64 {
		t.Errorf("got all %d messages, yet the device overflowed", got)
	}
}

// A device that answers pings stays connected across several of them and
// past the HTTP server's request timeouts. A pong has until the next ping
// (DefaultPingEvery's rule), so the pings are a second apart: at 20 ms a
// pong delayed by a machine busy with other jobs cut the device off (seen
// under the race detector beside two busy loops).
func TestAnAnsweringDeviceOutlivesPings(t *testing.T) {
	const pingEvery = time.Second
	gw := gateway.New(gateway.Config{})
	defer gw.Close()
	srv := httptest.NewServer(httpapi.NewServer(nil).WithPush(&httpapi.Push{Gateway: gw, States: &gateway.MemoryDeliveryStore{}, PingEvery: pingEvery}).Handler())
	defer srv.Close()
	gw.SetMembers("c1", []string{"u1"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := httpapi.DialPush(ctx, srv.URL, "u1", httpapi.PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	var got []httpapi.PushedMessage
	var readErr error
	go func() { // reading is what answers pings
		defer wg.Done()
		got, readErr = d.Next(ctx)
	}()
	time.Sleep(4*pingEvery + pingEvery/2) // four pings answered
	gw.Deliver(ctx, []*gateway.Message{{ChatID: "c1", Sequence: 1, MessageID: "m1", SenderID: "u1"}})
	wg.Wait()
	if readErr != nil || len(got) != 1 {
		t.Fatalf("after the pings: %v, %v", got, readErr)
	}
}

// The frame schemas refuse what the protocol does not allow, so a server
// frame that passes them is one the document describes.
func TestTheFrameSchemasRefuseWhatTheyMust(t *testing.T) {
	f := apitest.LoadFrames(t)
	good := `{"chat_id":"c","sequence":1,"message_id":"m","sender_id":"u","content":"x","created_at":"2026-01-30T14:30:00.123Z"}`
	if err := f.Validate(httpapi.FrameMessages, []byte(`{"type":"messages","messages":[`+good+`]}`)); err != nil {
		t.Fatalf("a good frame: %v", err)
	}
	for name, frame := range map[string]string{
		"no created_at":  `{"type":"messages","messages":[{"chat_id":"c","sequence":1,"message_id":"m","sender_id":"u","content":"x"}]}`,
		"a bad time":     `{"type":"messages","messages":[` + strings.Replace(good, "2026-01-30T14:30:00.123Z", "yesterday", 1) + `]}`,
		"sequence 0":     `{"type":"messages","messages":[` + strings.Replace(good, `"sequence":1`, `"sequence":0`, 1) + `]}`,
		"an extra field": `{"type":"messages","messages":[` + good + `],"more":true}`,
		"no messages":    `{"type":"messages","messages":[]}`,
		"another type":   `{"type":"ack","messages":[` + good + `]}`,
	} {
		if f.Validate(httpapi.FrameMessages, []byte(frame)) == nil {
			t.Errorf("%s: passed the messages schema", name)
		}
	}
	if f.Validate(httpapi.FrameAck, []byte(`{"type":"ack","chat_id":"c","last_acked_sequence":-1}`)) == nil {
		t.Error("a negative ack passed the ack schema")
	}
}
