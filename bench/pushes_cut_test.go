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
// A foreign chat's flood is bounded alike, and a new connection counts
// afresh.
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
		d.stream(ctx, batch("c", 1+100*i))     // a flood of the device's chat
		d.stream(ctx, batch("other", 1+100*i)) // and of another's
	}
	counts := tally.counts(1)
	// 250 of each chat: two batches in, the third past the bound.
	if counts.PushesCut != 2*800 || counts.Pushes != 4 {
		t.Fatalf("cut %d messages, recorded %d pushes; want 1600 cut, 4 pushes (two batches a chat)", counts.PushesCut, counts.Pushes)
	}
	if v := d.views["c"]; v.shown != 200 {
		t.Fatalf("shown up to %d; want 200 (the cut batches not shown)", v.shown)
	}
	// A new connection counts afresh: a correct gateway may push the
	// chat again after a reconnect.
	d.conn = &liveConn{c: quietConn{}}
	d.stream(ctx, batch("c", 201))
	if counts := tally.counts(1); counts.Pushes != 5 || counts.PushesCut != 1600 {
		t.Fatalf("after a reconnect: %d pushes recorded, %d cut; want 5, 1600", counts.Pushes, counts.PushesCut)
	}
	rec.Close()
	if n := bytes.Count(hist.Bytes(), []byte(`"type":"push"`)); n != 5 {
		t.Fatalf("the history holds %d push lines; want 5", n)
	}
}
