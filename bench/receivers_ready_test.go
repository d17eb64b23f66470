package bench

import (
	"context"
	"io"
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
	if done != len(r.devices) {
		t.Errorf("the writers would start with %d of %d devices connected", done, len(r.devices))
	}
	if most > maxConcurrentDials {
		t.Errorf("%d handshakes in flight at once, want at most %d", most, maxConcurrentDials)
	}
	if _, err := r.Settle(t.Context()); err != nil {
		t.Fatal(err)
	}
}
