package httpapi

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/gateway"
)

// DrainPush returns once every device's connection has closed, each with
// 1001, not while its handler still runs.
func TestDrainingClosesEveryDeviceWithGoingAway(t *testing.T) {
	gw := gateway.New(gateway.Config{})
	api := NewServer(nil).WithPush(&Push{Gateway: gw, States: &gateway.MemoryDeliveryStore{}})
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	codes := make(chan websocket.StatusCode, 3)
	for _, u := range []string{"a", "b", "c"} {
		d, err := DialPush(ctx, srv.URL, u, PushDialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			_, err := d.Next(ctx)
			codes <- websocket.CloseStatus(err)
		}()
	}
	api.DrainPush(ctx)
	api.pushing.mu.Lock()
	open := api.pushing.n
	api.pushing.mu.Unlock()
	if open != 0 {
		t.Fatalf("%d push connections still served after the drain", open)
	}
	for range 3 {
		if code := <-codes; code != websocket.StatusGoingAway {
			t.Errorf("a device closed with %d, want 1001", code)
		}
	}
}
