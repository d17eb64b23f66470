package bench

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
)

// quietConn is an open connection whose acks go nowhere.
type quietConn struct{}

func (quietConn) Next(context.Context) ([]gateway.Message, error) { return nil, context.Canceled }
func (quietConn) Ack(context.Context, string, uint64) error       { return nil }
func (quietConn) Drop()                                           {}
func (quietConn) Close()                                          {}

// A service that pushes for ever is read no further on that connection,
// as its catch-up is not: past the most a chat can hold, its pushes are
// counted, neither recorded nor shown; what came before is recorded for
// the check. A flood of frames took a run past a gigabyte, all recorded.
// Chats the user is not in share one bound, however many their ids, and a
// new connection counts afresh.
func TestPushesPastWhatAChatCanHoldAreCut(t *testing.T) {
	var hist bytes.Buffer
	rec, err := history.NewRecorder(&hist, history.Header{Target: "http"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ch := &endlessPages{most: 250}
	tally := newReceiverTally(1, time.Second, nil)
	d := newDevice("u", []string{"c"}, ch, rec, tally, 100)
	d.conn = &liveConn{c: quietConn{}}
	batch := func(chat string, from int) []gateway.Message {
		msgs := make([]gateway.Message, 100)
		for i := range msgs {
			s := uint64(from + i)
			msgs[i] = gateway.Message{ChatID: chat, Sequence: s, MessageID: fmt.Sprintf("m%d", s)}
		}
		return msgs
	}
	ctx := context.Background()
	for i := range 10 {
		d.stream(ctx, batch("c", 1+100*i)) // a flood of the device's chat
	}
	counts := tally.counts(1, 0)
	// 250 at most: two batches in, the third past the bound.
	if counts.PushesCut != 800 || counts.Pushes != 2 {
		t.Fatalf("cut %d messages, recorded %d pushes; want 800 cut, 2 pushes", counts.PushesCut, counts.Pushes)
	}
	// Chats the user is not in, each id new, share foreignPushBound.
	for i := range foreignPushBound/100 + 5 {
		d.stream(ctx, batch(fmt.Sprintf("x%d", i), 1))
	}
	counts = tally.counts(1, 0)
	if counts.PushesCut != 800+500 || counts.Pushes != 2+foreignPushBound/100 || len(d.conn.pushed) != 2 {
		t.Fatalf("cut %d messages, recorded %d pushes, counted %d chats; want 1300 cut, %d pushes, 2 counts (the member chat, and the others together)",
			counts.PushesCut, counts.Pushes, len(d.conn.pushed), 2+foreignPushBound/100)
	}
	if v := d.views["c"]; v.shown != 200 {
		t.Fatalf("shown up to %d; want 200 (the cut batches not shown)", v.shown)
	}
	// A new connection counts afresh: a correct gateway may push the
	// chat again after a reconnect.
	d.conn = &liveConn{c: quietConn{}}
	d.stream(ctx, batch("c", 201))
	want := int64(3 + foreignPushBound/100)
	if counts := tally.counts(1, 0); counts.Pushes != want || counts.PushesCut != 1300 {
		t.Fatalf("after a reconnect: %d pushes recorded, %d cut; want %d, 1300", counts.Pushes, counts.PushesCut, want)
	}
	rec.Close()
	if n := bytes.Count(hist.Bytes(), []byte(`"type":"push"`)); int64(n) != want {
		t.Fatalf("the history holds %d push lines; want %d", n, want)
	}
}
