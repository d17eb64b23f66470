package httpapi

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/chatseq/chatseq/gateway"
)

// A push connection is hijacked from a server whose read and write
// timeouts are for requests: it outlives them.
func TestAPushConnectionOutlivesTheRequestTimeouts(t *testing.T) {
	gw := gateway.New(gateway.Config{})
	defer gw.Close()
	gw.SetMembers("c1", []string{"u1"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	short := timeouts{header: time.Second, read: 100 * time.Millisecond, write: 100 * time.Millisecond, idle: 100 * time.Millisecond}
	srv := newHTTPServer(NewServer(nil).WithPush(&Push{Gateway: gw, States: &gateway.MemoryDeliveryStore{}}).Handler(), short)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := DialPush(ctx, "http://"+ln.Addr().String(), "u1", PushDialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got := make(chan error, 1)
	go func() {
		_, err := d.Next(ctx)
		got <- err
	}()
	time.Sleep(time.Second) // ten times the timeouts
	gw.Deliver(ctx, []*gateway.Message{{ChatID: "c1", Sequence: 1, MessageID: "m1", SenderID: "u1"}})
	if err := <-got; err != nil {
		t.Fatalf("the connection did not outlive the timeouts: %v", err)
	}
}
