package sequencer

import (
	"context"
	"slices"
	"sync"

	"github.com/chatseq/chatseq/store"
)

// SyncWatermark is ADR-004 with the one change its catch-up contract
// needs. Two-phase allocation lets sequence 12 commit while 11 is still
// being committed; a sync that returns 12 then moves its reader's cursor
// past 11, and ADR-001's clients (sync with sequence > last received,
// never waiting for gaps) never ask for 11 again. Here a sync serves only
// sequences below the chat's watermark: the lowest sequence this core has
// allocated whose transaction has not ended (committed, failed, or
// crashed). A message at or above it waits for a later sync, so no cursor
// passes a commit still in flight. And an ACK waits until the watermark has
// passed its sequence, so a sender's own acknowledged message is always
// below the watermark: read-your-writes (ADR-001) and sync_completeness
// still hold.
//
// The watermark is kept in this core's memory, which is sound when every
// allocation of a chat goes through one core (one ingest process per
// chat, as a run of chatseq has). Several ingest processes would need it in
// the store: a per-chat item of sequences in flight, updated around each
// transaction. A transaction whose answer is lost (a timeout) may still
// land afterwards on a real database; here it is taken as ended when the
// call returns, which the in-memory store makes exact.

// watermarks tracks, per chat, the sequences allocated and not yet
// resolved.
type watermarks struct {
	chats sync.Map   // chat → *chatMark
	mu    sync.Mutex // serialises creating a chat's mark
}

// chatMark is one chat's allocations in flight. Every allocation of the
// chat registers with it before its store call (a floor: the sequence it
// gets is above every one seen so far) and, once the call returns, trades
// the floor for its sequence, which it resolves when its transaction ends.
// So every sequence below mark() is committed or never will be.
type chatMark struct {
	mu       sync.Mutex
	changed  sync.Cond
	seen     uint64   // highest sequence handed to this core, or the counter when the mark was made
	inflight []uint64 // allocated, transaction not ended
	floors   []uint64 // allocation calls under way: seen when each began
	waiters  int
}

func newWatermarks() *watermarks { return &watermarks{} }

// chat returns chat's mark, making it from the counter's current value the
// first time: no allocation of this core is then in flight on the chat,
// so every sequence up to the counter has ended.
func (w *watermarks) chat(ctx context.Context, st store.Store, chat string) (*chatMark, error) {
	if m, ok := w.chats.Load(chat); ok {
		return m.(*chatMark), nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if m, ok := w.chats.Load(chat); ok {
		return m.(*chatMark), nil
	}
	c, err := st.GetCounter(ctx, chat, true)
	if err != nil {
		return nil, err
	}
	m := &chatMark{seen: c.Value} // a missing counter reads as 0
	m.changed.L = &m.mu
	w.chats.Store(chat, m)
	return m, nil
}

// begin registers an allocation call about to be sent; its floor goes to
// allocated.
func (m *chatMark) begin() (floor uint64) {
	m.mu.Lock()
	floor = m.seen
	m.floors = append(m.floors, floor)
	m.mu.Unlock()
	return floor
}

// allocated ends the call begun with floor: ok, it handed out seq, which
// is now in flight; otherwise nothing was allocated that can commit.
func (m *chatMark) allocated(floor, seq uint64, ok bool) {
	m.mu.Lock()
	if i := slices.Index(m.floors, floor); i >= 0 {
		m.floors = slices.Delete(m.floors, i, i+1)
	}
	if ok {
		m.inflight = append(m.inflight, seq)
		m.seen = max(m.seen, seq)
	}
	m.signal()
	m.mu.Unlock()
}

// resolve ends seq's transaction: it committed, or it never will.
func (m *chatMark) resolve(seq uint64) {
	m.mu.Lock()
	if i := slices.Index(m.inflight, seq); i >= 0 {
		m.inflight = slices.Delete(m.inflight, i, i+1)
		m.signal()
	}
	m.mu.Unlock()
}

func (m *chatMark) signal() {
	if m.waiters > 0 {
		m.changed.Broadcast()
	}
}

// mark is the watermark: every sequence below it has committed or never
// will. A call under way will get a sequence above its floor, a call not
// yet begun one above seen. The caller holds mu.
func (m *chatMark) mark() uint64 {
	w := m.seen + 1
	for _, s := range m.inflight {
		w = min(w, s)
	}
	for _, f := range m.floors {
		w = min(w, f+1)
	}
	return w
}

// watermark reads the mark.
func (m *chatMark) watermark() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mark()
}

// waitPast returns once the watermark is above seq.
func (m *chatMark) waitPast(seq uint64) {
	m.mu.Lock()
	for m.mark() <= seq {
		m.waiters++
		m.changed.Wait()
		m.waiters--
	}
	m.mu.Unlock()
}

// belowMark cuts msgs (ascending) at the first sequence at or above w.
func belowMark(msgs []store.Message, w uint64) []store.Message {
	i, _ := slices.BinarySearchFunc(msgs, w, func(m store.Message, w uint64) int {
		switch {
		case m.Seq < w:
			return -1
		case m.Seq > w:
			return 1
		}
		return 0
	})
	return msgs[:i]
}

// resolveAllocation ends the transaction of the sequence this call
// allocated, once its outcome is settled: committed, failed or crashed.
func (p *persistCall) resolveAllocation() {
	if p.mark != nil {
		p.mark.resolve(p.out.Allocated)
		p.mark = nil
	}
}
