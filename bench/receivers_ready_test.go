package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
)

// slowChannel is a push channel whose handshakes each take a while; it
// counts the handshakes in flight at once and those done.
type slowChannel struct {
	mu                   sync.Mutex
	inFlight, most, done int
}

func (c *slowChannel) Dial(ctx context.Context, _ string) (gateway.Conn, error) {
	c.mu.Lock()
	c.inFlight++
	c.most = max(c.most, c.inFlight)
	c.mu.Unlock()
	select {
	case <-time.After(100 * time.Millisecond):
	case <-ctx.Done():
	}
	c.mu.Lock()
	c.inFlight--
	c.done++
	c.mu.Unlock()
	return &idleConn{closed: make(chan struct{})}, ctx.Err()
}

func (*slowChannel) CatchUp(context.Context, string, string, uint64, int) ([]gateway.Message, error) {
	return nil, nil
}
func (*slowChannel) DeliveryStates(context.Context, string) ([]gateway.DeliveryState, error) {
	return nil, nil
}
func (*slowChannel) Quiesce(context.Context) error { return nil }
func (*slowChannel) Close()                        {}

// idleConn streams nothing until it is closed.
type idleConn struct {
	once   sync.Once
	closed chan struct{}
}

func (c *idleConn) Next(ctx context.Context) ([]gateway.Message, error) {
	select {
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
func (*idleConn) Ack(context.Context, string, uint64) error { return nil }
func (c *idleConn) Drop()                                   { c.once.Do(func() { close(c.closed) }) }
func (c *idleConn) Close()                                  { c.Drop() }

// The writers wait until every device has connected and caught up, so
// that what they send goes to connected receivers; the handshakes go at
// most maxConcurrentDials at a time, not as a herd of every device.
func TestReceiversAreReadyBeforeTheWriters(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Receivers = 3
	chats := make([]string, 100) // 300 devices, more than maxConcurrentDials
	for i := range chats {
		chats[i] = "c" + string(rune('A'+i/26)) + string(rune('a'+i%26))
	}
	rec, err := history.NewRecorder(io.Discard, header(cfg), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ch := &slowChannel{}
	r := startReceivers(t.Context(), &cfg, ch, rec, chats)
	r.waitReady(t.Context())
	ch.mu.Lock()
	done, most := ch.done, ch.most
	ch.mu.Unlock()
	if all := len(r.devices) + len(r.outsiders); done != all {
		t.Errorf("the writers would start with %d of %d devices connected (the outsider device among them)", done, all)
	}
	if most > maxConcurrentDials {
		t.Errorf("%d handshakes in flight at once, want at most %d", most, maxConcurrentDials)
	}
	if _, err := r.Settle(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// refusingChannel refuses every handshake but members' (the users it
// lets in), at once; it can dial naming no user, which it refuses too.
type refusingChannel struct {
	slowChannel
	members func(string) bool
}

func (c *refusingChannel) Dial(ctx context.Context, user string) (gateway.Conn, error) {
	if !c.members(user) {
		return nil, fmt.Errorf("%w: 403", gateway.ErrRefused)
	}
	return &idleConn{closed: make(chan struct{})}, nil
}
func (c *refusingChannel) DialAnonymous(context.Context) (gateway.Conn, error) {
	return nil, fmt.Errorf("%w: 401 auth.required", gateway.ErrRefused)
}
func (*refusingChannel) NamesUsers() bool { return true }

// A push channel that refuses the outsider's and the anonymous
// handshakes does as the API asks: each refusal is recorded as a refused
// connect and its end, the devices are not dialled again, and the run
// goes on (a device that never connected would otherwise stop it).
func TestRefusedOutsidersAreRecordedAndDoNotStopTheRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Receivers, cfg.OutsiderDevices, cfg.AnonymousDevices = 1, 1, 1
	var out bytes.Buffer
	rec, err := history.NewRecorder(&out, header(cfg), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ch := &refusingChannel{members: func(u string) bool { return u == ReceiverUser("c1", 0) }}
	r := startReceivers(t.Context(), &cfg, ch, rec, []string{"c1"})
	if err := r.waitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	counts, err := r.Settle(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if counts.Outsiders != 2 || counts.Refused != 2 || counts.Devices != 1 {
		t.Fatalf("counts %+v, want 1 device and 2 outsiders, both refused", counts)
	}
	rec.Close()
	for _, want := range []string{
		`"device":"outsider-push-0/d1","user":"outsider-push-0","refused":true,"error":"push channel refused: 403"}`,
		`"device":"anonymous-0/d1","user":"anonymous-0","refused":true,"error":"push channel refused: 401 auth.required"}`,
		`"device":"anonymous-0/d1","error":"refused"}`,
	} {
		if n := strings.Count(out.String(), want); n != 1 {
			t.Errorf("%d lines with %s, want 1:\n%s", n, want, out.String())
		}
	}
}
