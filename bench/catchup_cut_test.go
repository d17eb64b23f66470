package bench

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
)

// endlessPages is a push channel whose catch-up pages are always full:
// with ignoreAfter, the chat's first page again whatever after says (a
// service that drops the parameter); else made-up messages past after,
// for ever. After giveUp pages it cancels the catch-up's context, so a
// device that would read for ever ends the test rather than hanging it.
type endlessPages struct {
	ignoreAfter bool
	most        int64 // MostMessages
	pages       int
	giveUp      int
	cancel      context.CancelFunc
}

func (p *endlessPages) CatchUp(_ context.Context, _, chat string, after uint64, limit int) ([]gateway.Message, error) {
	if p.pages++; p.pages >= p.giveUp {
		p.cancel()
	}
	if p.ignoreAfter {
		after = 0
	}
	msgs := make([]gateway.Message, limit)
	for i := range msgs {
		s := after + uint64(i) + 1
		msgs[i] = gateway.Message{ChatID: chat, Sequence: s, MessageID: fmt.Sprintf("m%d", s)}
	}
	return msgs, nil
}

func (p *endlessPages) MostMessages(string) int64 { return p.most }
func (p *endlessPages) Dial(context.Context, string) (gateway.Conn, error) {
	return nil, io.EOF
}
func (p *endlessPages) DeliveryStates(context.Context, string) ([]gateway.DeliveryState, error) {
	return nil, nil
}
func (p *endlessPages) Quiesce(context.Context) error { return nil }
func (p *endlessPages) Close()                        {}

// A device's catch-up of a service that pages for ever is cut short, as
// the final state's read back is: a full page that is not past the one
// before (the service ignores after), or more messages than the chat can
// hold. Found by an outside tester: a proxy that set after=0 on every
// page kept a 3 s run going past 70 s at 950 MB and growing, the history
// 17 MB a second, and one that made up pages reached 2.5 GB in 60 s.
// The chat is not caught up again, and the cut is counted.
func TestCatchUpOfAServiceThatPagesForEverIsCutShort(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ignoreAfter bool
		most        int64
		wantPages   int
	}{
		{"a page not past after", true, 1 << 40, 2},
		{"more messages than the chat holds", false, 1000, 11}, // 10 pages of 100 are 1000: the 11th is one too many
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := &endlessPages{ignoreAfter: tc.ignoreAfter, most: tc.most, giveUp: 10000, cancel: cancel}
			d, tally := catchUpDevice(t, ch)
			v := d.views["c"]
			d.syncFrom(ctx, v, 0)
			if ch.pages != tc.wantPages || !v.catchUpCut || tally.counts(1, 0).CatchUpsCut != 1 {
				t.Fatalf("read %d pages (cut %v, %d cut counted); want %d, cut, 1", ch.pages, v.catchUpCut, tally.counts(1, 0).CatchUpsCut, tc.wantPages)
			}
			// Not read again: the next gap's sync, or the settle's, reads nothing.
			d.syncFrom(ctx, v, v.shown)
			if ch.pages != tc.wantPages {
				t.Fatalf("the chat was caught up again: %d pages", ch.pages)
			}
		})
	}
}

// A correct service's long catch-up is read whole: full pages, each past
// the one before, up to the bound, then a short one.
func TestCatchUpOfManyPagesIsReadWhole(t *testing.T) {
	ch := &shortAfter{last: 950}
	d, tally := catchUpDevice(t, ch)
	v := d.views["c"]
	d.syncFrom(context.Background(), v, 0)
	if v.catchUpCut || v.shown != 950 || tally.counts(1, 0).CatchUpsCut != 0 {
		t.Fatalf("shown up to %d, cut %v; want 950, not cut", v.shown, v.catchUpCut)
	}
}

// shortAfter holds messages 1..last and bounds a chat at last messages.
type shortAfter struct {
	endlessPages
	last uint64
}

func (p *shortAfter) MostMessages(string) int64 { return int64(p.last) }
func (p *shortAfter) CatchUp(_ context.Context, _, chat string, after uint64, limit int) ([]gateway.Message, error) {
	var msgs []gateway.Message
	for s := after + 1; s <= p.last && len(msgs) < limit; s++ {
		msgs = append(msgs, gateway.Message{ChatID: chat, Sequence: s, MessageID: fmt.Sprintf("m%d", s)})
	}
	return msgs, nil
}

// catchUpDevice is a device of user u in chat c on ch, its catch-up
// pages 100 messages, recording to nowhere.
func catchUpDevice(t *testing.T, ch gateway.Channel) (*device, *receiverTally) {
	t.Helper()
	rec, err := history.NewRecorder(io.Discard, history.Header{Target: "http"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	tally := newReceiverTally(1, time.Second, nil)
	return newDevice("u", []string{"c"}, ch, rec, tally, 100), tally
}
