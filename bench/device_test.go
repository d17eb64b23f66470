package bench

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
)

// batchesConn streams its batches, then ends (io.EOF).
type batchesConn struct{ batches [][]gateway.Message }

func (c *batchesConn) Next(ctx context.Context) ([]gateway.Message, error) {
	if len(c.batches) == 0 {
		return nil, io.EOF
	}
	b := c.batches[0]
	c.batches = c.batches[1:]
	return b, nil
}
func (c *batchesConn) Ack(context.Context, string, uint64) error { return nil }
func (c *batchesConn) Drop()                                     {}
func (c *batchesConn) Close()                                    {}

// A pushed message whose id is longer than a history's string may be
// ends the connection, as a frame that cannot be read does, rather than
// reaching the history (which chatseq check then refused, exit 2): the
// batch before it is handed on.
func TestAPushTooLongForTheHistoryEndsTheConnection(t *testing.T) {
	ok := []gateway.Message{{ChatID: "c", MessageID: "m1", Sequence: 1}}
	long := []gateway.Message{{ChatID: "c", MessageID: strings.Repeat("m", history.MaxStringBytes+1), Sequence: 2}}
	lc := &liveConn{c: &batchesConn{batches: [][]gateway.Message{ok, long}}, batches: make(chan []gateway.Message, 2), ended: make(chan error, 1), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go lc.read(ctx)
	err := <-lc.ended
	if err == nil || !strings.Contains(err.Error(), "a message id of 65537 bytes, more than the 65536") {
		t.Fatalf("the connection ended with %v", err)
	}
	// A frame in breach of the API: the disconnect line says so, and
	// api_conformance fails on it.
	if reason := endReason(err); !strings.HasPrefix(reason, history.DisconnectBadFrame+": ") {
		t.Fatalf("recorded as %q; want it to start %q", reason, history.DisconnectBadFrame)
	}
	if len(lc.batches) != 1 || (<-lc.batches)[0].MessageID != "m1" {
		t.Fatal("the batch before the long id was not handed on alone")
	}
}

// A device's received set holds a word for a sequence far above the
// others (2^32, and 2^64-1): as a slice it grew to every word below it,
// 512 MiB a device and chat (found by an outside tester's hostile push
// channel: 14 GB for one push to each device). Duplicates are still told
// from first receipts, up to 2^64-1.
func TestAReceivedSequenceFarAboveTheOthersCostsAWord(t *testing.T) {
	var s seqSet
	for _, seq := range []uint64{1, 2, 1 << 32, 1<<64 - 1} {
		if s.has(seq) {
			t.Fatalf("seq %d received before it was", seq)
		}
		s.set(seq)
		if !s.has(seq) {
			t.Fatalf("seq %d not kept", seq)
		}
	}
	if len(s) != 3 || s.has(3) || s.has(1<<32+1) {
		t.Fatalf("%d words, has(3) %v, has(2^32+1) %v; want 3 words, neither", len(s), s.has(3), s.has(1<<32+1))
	}
}

// A first receipt whose created_at comes after it is not a fan-out of
// 1 ns (a perfect figure any fan_out threshold accepted, for a service
// whose created_at lies in the future: an outside tester's finding): it
// is counted apart and left out of the latencies. A receipt by catch-up
// is counted apart from the streamed ones, so that a push channel that
// streams nothing shows.
func TestReceiptsCreatedAheadAndCaughtUpAreCountedApart(t *testing.T) {
	tally := newReceiverTally(2, time.Second, nil)
	d := &device{tally: tally}
	now := time.Now()
	v := &chatView{chat: "c", pending: map[uint64]struct{}{}}
	d.receive(v, 1, now.Add(time.Hour), now, false)         // created ahead
	d.receive(v, 2, now.Add(-time.Millisecond), now, true)  // caught up, 1 ms
	d.receive(v, 2, now.Add(-time.Millisecond), now, false) // a duplicate
	c := tally.counts(1, 0)
	fanOut, _ := tally.histograms()
	if c.CreatedAhead != 1 || c.CaughtUp != 1 || c.Deliveries != 2 || fanOut.TotalCount() != 1 || fanOut.Min() < int64(time.Millisecond)/2 {
		t.Fatalf("created ahead %d, caught up %d, deliveries %d, fan-out count %d min %d; want 1, 1, 2, 1 at about 1 ms",
			c.CreatedAhead, c.CaughtUp, c.Deliveries, fanOut.TotalCount(), fanOut.Min())
	}
}

// The error a bad frame ends a connection with is the word the history's
// disconnect line must start with for api_conformance to fail on it:
// gateway cannot import history (a lower layer), so it spells it itself.
func TestBadFrameIsTheHistorysWord(t *testing.T) {
	if gateway.ErrBadFrame.Error() != history.DisconnectBadFrame {
		t.Fatalf("gateway.ErrBadFrame %q, history.DisconnectBadFrame %q", gateway.ErrBadFrame, history.DisconnectBadFrame)
	}
}
