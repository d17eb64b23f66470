package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func msg(chat string, seq uint64) *Message {
	return &Message{ChatID: chat, Sequence: seq, MessageID: fmt.Sprintf("%s-%d", chat, seq)}
}

// take reads exactly n messages from d, failing on anything else.
func take(t *testing.T, d *Device, n int) []*Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []*Message
	for len(got) < n {
		var err error
		if got, err = d.Next(ctx, got); err != nil {
			t.Fatalf("after %d of %d messages: %v", len(got), n, err)
		}
	}
	if len(got) != n {
		t.Fatalf("got %d messages, want %d", len(got), n)
	}
	return got
}

func ids(ms []*Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.MessageID)
	}
	return out
}

// Each device of each member gets every message of the chat in the order
// delivered, duplicates included; a non-member's device gets none.
func TestMembersDevicesGetEveryMessageInOrderAndOthersNone(t *testing.T) {
	g := New(Config{})
	g.SetMembers("a", []string{"alice", "bob"})
	g.SetMembers("b", []string{"carol"})
	alicePhone, _ := g.Subscribe("alice")
	aliceLaptop, _ := g.Subscribe("alice")
	bob, _ := g.Subscribe("bob")
	carol, _ := g.Subscribe("carol")
	g.Deliver(context.Background(), []*Message{msg("a", 2), msg("a", 1), msg("a", 2)})
	g.Deliver(context.Background(), []*Message{msg("b", 1)})
	want := fmt.Sprint([]string{"a-2", "a-1", "a-2"})
	for name, d := range map[string]*Device{"alice's phone": alicePhone, "alice's laptop": aliceLaptop, "bob": bob} {
		if got := fmt.Sprint(ids(take(t, d, 3))); got != want {
			t.Errorf("%s got %s, want %s", name, got, want)
		}
	}
	if got := fmt.Sprint(ids(take(t, carol, 1))); got != "[b-1]" {
		t.Errorf("carol got %s, want only chat b's message", got)
	}
	if q := carol.Queued(); q != 0 {
		t.Errorf("carol has %d more messages queued; she is not a member of chat a", q)
	}
	s := g.Stats()
	if s.Published != 4 || s.Queued != 10 || s.Deliveries != 10 || s.Devices != 4 || s.Unrouted != 0 {
		t.Errorf("stats %+v, want 4 published, 10 queued and taken, 4 devices", s)
	}
	if g.Highest("a") != 2 || g.Highest("b") != 1 || g.Highest("c") != 0 {
		t.Errorf("highest a=%d b=%d c=%d, want 2 1 0", g.Highest("a"), g.Highest("b"), g.Highest("c"))
	}
}

// A device that does not read is closed with ErrOverflow when its queue
// would pass the limit, every message it lost is counted, and the others
// go on receiving.
func TestAFullQueueEndsTheDeviceAndCountsWhatItLost(t *testing.T) {
	g := New(Config{QueueLimit: 3})
	g.SetMembers("a", []string{"slow", "fast"})
	slow, _ := g.Subscribe("slow")
	fast, _ := g.Subscribe("fast")
	for seq := uint64(1); seq <= 5; seq++ {
		g.Deliver(context.Background(), []*Message{msg("a", seq)})
		take(t, fast, 1)
	}
	select {
	case <-slow.Done():
	default:
		t.Fatal("the slow device is still open with a full queue")
	}
	if _, err := slow.Next(context.Background(), nil); !errors.Is(err, ErrOverflow) {
		t.Fatalf("the slow device's Next: %v, want ErrOverflow", err)
	}
	s := g.Stats()
	// 3 queued and the 4th refused end it (4 dropped), the 5th arrives at
	// an ended device (1 more).
	if s.Overflows != 1 || s.Dropped != 5 || s.MostQueued != 3 || s.Deliveries != 5 {
		t.Errorf("stats %+v, want 1 overflow, 5 dropped, most queued 3, 5 deliveries", s)
	}
	slow.Close()
	if s := g.Stats(); s.Devices != 1 {
		t.Errorf("%d devices after the slow one closed, want 1", s.Devices)
	}
}

func TestTheDeviceCapRefusesAndFreesAtClose(t *testing.T) {
	g := New(Config{MaxDevices: 2})
	a, err := g.Subscribe("u")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Subscribe("v"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Subscribe("w"); !errors.Is(err, ErrTooManyDevices) {
		t.Fatalf("a third device: %v, want ErrTooManyDevices", err)
	}
	a.Close()
	if _, err := g.Subscribe("w"); err != nil {
		t.Fatalf("a device after one closed: %v", err)
	}
	if s := g.Stats(); s.Refused != 1 || s.Subscribed != 3 || s.Devices != 2 {
		t.Errorf("stats %+v, want 1 refused, 3 subscribed, 2 devices", s)
	}
}

func TestNextTakesAtMostABatch(t *testing.T) {
	g := New(Config{MaxBatch: 2})
	g.SetMembers("a", []string{"u"})
	d, _ := g.Subscribe("u")
	g.Deliver(context.Background(), []*Message{msg("a", 1), msg("a", 2), msg("a", 3)})
	ctx := context.Background()
	first, err := d.Next(ctx, nil)
	if err != nil || len(first) != 2 {
		t.Fatalf("first batch %d messages (%v), want 2", len(first), err)
	}
	second, err := d.Next(ctx, nil)
	if err != nil || fmt.Sprint(ids(second)) != "[a-3]" {
		t.Fatalf("second batch %v (%v), want [a-3]", ids(second), err)
	}
}

// A chat no one named is asked of Members; without it, its messages reach
// no one and are counted.
func TestUnknownChatsAreResolvedOrCountedUnrouted(t *testing.T) {
	asked := 0
	g := New(Config{Members: func(_ context.Context, chat string) ([]string, error) {
		asked++
		if chat == "old" {
			return []string{"u"}, nil
		}
		return nil, nil
	}})
	d, _ := g.Subscribe("u")
	g.Deliver(context.Background(), []*Message{msg("old", 1), msg("old", 2), msg("never", 1)})
	if got := fmt.Sprint(ids(take(t, d, 2))); got != "[old-1 old-2]" {
		t.Errorf("got %s", got)
	}
	if s := g.Stats(); s.Unrouted != 1 || asked != 2 {
		t.Errorf("unrouted %d, resolver asked %d times; want 1 and 2 (old once, then kept)", s.Unrouted, asked)
	}
	bare := New(Config{})
	e, _ := bare.Subscribe("u")
	bare.Deliver(context.Background(), []*Message{msg("old", 1)})
	if s := bare.Stats(); s.Unrouted != 1 || e.Queued() != 0 {
		t.Errorf("without a resolver: %+v, %d queued; want it unrouted", s, e.Queued())
	}
}

func TestClosingTheGatewayEndsItsDevices(t *testing.T) {
	g := New(Config{})
	d, _ := g.Subscribe("u")
	g.Close()
	if _, err := d.Next(context.Background(), nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after the gateway closed: %v, want ErrClosed", err)
	}
	if _, err := g.Subscribe("u"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after the gateway closed: %v, want ErrClosed", err)
	}
}

// Devices reading while messages are delivered and devices come and go
// (run under -race): every device that stays gets every message, in order.
func TestConcurrentFanOutKeepsEachDevicesOrder(t *testing.T) {
	const chats, members, perChat = 8, 4, 500
	g := New(Config{QueueLimit: chats * perChat, MaxBatch: 7})
	var devices []*Device
	for c := 0; c < chats; c++ {
		var users []string
		for m := 0; m < members; m++ {
			users = append(users, fmt.Sprintf("u%d-%d", c, m))
		}
		g.SetMembers(fmt.Sprint("c", c), users)
		for _, u := range users {
			d, _ := g.Subscribe(u)
			devices = append(devices, d)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(devices))
	for _, d := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms := take(t, d, perChat)
			for i, m := range ms {
				if m.Sequence != uint64(i+1) {
					errs <- fmt.Errorf("%s got sequence %d at %d", d.User(), m.Sequence, i)
					return
				}
			}
		}()
	}
	churn := make(chan struct{})
	go func() { // devices of a non-member come and go meanwhile
		defer close(churn)
		for i := 0; i < 200; i++ {
			d, err := g.Subscribe("passer-by")
			if err != nil {
				errs <- err
				return
			}
			d.Close()
		}
	}()
	for seq := uint64(1); seq <= perChat; seq++ {
		var batch []*Message
		for c := 0; c < chats; c++ {
			batch = append(batch, msg(fmt.Sprint("c", c), seq))
		}
		g.Deliver(context.Background(), batch)
	}
	wg.Wait()
	<-churn
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := g.Stats(); s.Deliveries != chats*members*perChat || s.Dropped != 0 {
		t.Errorf("stats %+v, want %d deliveries and none dropped", s, chats*members*perChat)
	}
}

func TestDeliveryStateNeverGoesDown(t *testing.T) {
	var s MemoryDeliveryStore
	ctx := context.Background()
	for _, step := range []struct {
		user      string
		ack, want uint64
	}{{"u", 5, 5}, {"u", 3, 5}, {"u", 9, 9}, {"v", 1, 1}} {
		got, err := s.RecordAck(ctx, "a", step.user, step.ack)
		if err != nil || got != step.want {
			t.Fatalf("ack %d by %s stored %d (%v), want %d", step.ack, step.user, got, err, step.want)
		}
	}
	rows, _ := s.DeliveryStates(ctx, "a")
	if fmt.Sprint(rows) != "[{a u 9} {a v 1}]" {
		t.Errorf("rows %v", rows)
	}
}

// ForeignPush routes a message to the members of every chat sharing its
// bucket; the gateway as designed routes it to its chat's members only.
func TestForeignPushReachesAnotherChatsMembers(t *testing.T) {
	var a, b string
	for i := 0; b == ""; i++ {
		c := fmt.Sprintf("chat-%d", i)
		switch {
		case a == "":
			a = c
		case bucketOf(c) == bucketOf(a):
			b = c
		}
	}
	for _, v := range []Variant{"", ForeignPush} {
		g := New(Config{Variant: v})
		g.SetMembers(a, []string{"ua"})
		g.SetMembers(b, []string{"ub"})
		d, err := g.Subscribe("ub")
		if err != nil {
			t.Fatal(err)
		}
		g.Deliver(context.Background(), []*Message{msg(a, 1), msg(b, 1)})
		got := take(t, d, map[Variant]int{"": 1, ForeignPush: 2}[v])
		if v == "" && got[0].ChatID != b {
			t.Errorf("as designed: ub, a member of %s only, was pushed %v", b, ids(got))
		}
		if v == ForeignPush && (got[0].ChatID != a || got[1].ChatID != b) {
			t.Errorf("%s: ub was pushed %v, want %s's message then its own", v, ids(got), a)
		}
		if n := d.Queued(); n != 0 {
			t.Errorf("%s: %d more messages queued", v, n)
		}
		g.Close()
	}
}

// SlowDrop keeps a device that falls behind open and drops what does not
// fit its queue of SlowDropQueue: the device is then streamed what comes
// after, with a hole; as designed, the device is closed (ErrOverflow).
func TestSlowDropLeavesAHoleOnAnOpenDevice(t *testing.T) {
	for _, v := range []Variant{"", SlowDrop} {
		g := New(Config{Variant: v, QueueLimit: SlowDropQueue})
		g.SetMembers("a", []string{"u"})
		d, _ := g.Subscribe("u")
		g.Deliver(context.Background(), []*Message{msg("a", 1), msg("a", 2), msg("a", 3)})
		if v == "" {
			if _, err := d.Next(context.Background(), nil); !errors.Is(err, ErrOverflow) {
				t.Fatalf("as designed: Next %v, want ErrOverflow", err)
			}
			continue
		}
		got := ids(take(t, d, 2))
		g.Deliver(context.Background(), []*Message{msg("a", 4)})
		got = append(got, ids(take(t, d, 1))...)
		if want := []string{"a-1", "a-2", "a-4"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: pushed %v, want %v", v, got, want)
		}
		if s := g.Stats(); s.Overflows != 0 || s.Dropped != 1 {
			t.Errorf("%s: stats %+v, want no overflow and 1 dropped", v, s)
		}
		g.Close()
	}
}
