package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/target"
)

// Readers are catch-up clients as ADR-001 §4 describes them: besides the
// writers, which sync after their own last acknowledged send, a reader
// follows every chat of the run by cursor. It asks for sequence > the last
// sequence it received, page by page until a page comes back short, then
// moves to the next chat, and after each round over the chats waits
// ReaderPoll before the next, until the writers are done. It never waits
// for a gap (ADR-001 §6). Its syncs are recorded like any other, with
// "reader": true, so the history shows what a catch-up client received and
// the checker can judge catch_up_completeness.

// DefaultReaderPoll is a reader's pause between rounds over its chats.
const DefaultReaderPoll = 100 * time.Microsecond

// ReaderCounts are what the readers did; they are not in Counts, so the
// writers' operations, throughput and latency mean the same with or
// without readers.
type ReaderCounts struct {
	Readers  int   `json:"readers"`
	Syncs    int64 `json:"syncs"`    // reader syncs sent
	OK       int64 `json:"ok"`       // ... that completed ok
	Received int64 `json:"received"` // messages those returned
	Errors   int64 `json:"errors"`   // ... that failed or whose outcome is unknown
}

// readerTally adds up the readers' counts while they run.
type readerTally struct {
	syncs, ok, received, errors atomic.Int64
}

// catchUpReader is one reader.
type catchUpReader struct {
	id      int // 0-based among readers
	cfg     *Config
	target  target.Target
	rec     *history.Recorder
	chats   []string
	cursor  []uint64 // by chat index: the highest sequence received
	pid     int
	nextPID int
	tally   *readerTally
}

// newPID hands out process ids after the writers': a reader is client
// number Writers+id, and ids step by the number of clients, as a writer's
// do, so no two clients ever share one.
func (r *catchUpReader) newPID() int {
	pid := r.cfg.Writers + r.id + r.nextPID*r.cfg.clients()
	r.nextPID++
	return pid
}

// clients is how many clients (writers and readers) hand out process ids.
func (c *Config) clients() int { return c.Writers + c.Readers }

// startReaders starts cfg.Readers readers; they run until done or stop
// closes, or ctx ends, and the returned function waits for them and
// returns their counts.
func startReaders(ctx context.Context, done, stop <-chan struct{}, cfg *Config, target target.Target, rec *history.Recorder, chats []string) func() ReaderCounts {
	tally := &readerTally{}
	var wg sync.WaitGroup
	for i := range cfg.Readers {
		r := &catchUpReader{id: i, cfg: cfg, target: target, rec: rec, chats: chats, cursor: make([]uint64, len(chats)), tally: tally}
		r.pid = r.newPID()
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.run(ctx, done, stop)
		}()
	}
	return func() ReaderCounts {
		wg.Wait()
		return ReaderCounts{
			Readers: cfg.Readers, Syncs: tally.syncs.Load(), OK: tally.ok.Load(),
			Received: tally.received.Load(), Errors: tally.errors.Load(),
		}
	}
}

func (r *catchUpReader) run(ctx context.Context, done, stop <-chan struct{}) {
	over := func() bool {
		select {
		case <-ctx.Done():
			return true
		case <-done:
			return true
		case <-stop:
			return true
		default:
			return false
		}
	}
	poll := r.cfg.ReaderPoll
	if poll <= 0 {
		poll = DefaultReaderPoll
	}
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for {
		for c := range r.chats {
			// Page by page: a full page means there may be more.
			for !over() && r.sync(ctx, c) {
			}
		}
		if over() {
			return
		}
		timer.Reset(poll)
		select {
		case <-ctx.Done():
			return
		case <-done:
			return
		case <-stop:
			return
		case <-timer.C:
		}
	}
}

// sync reads chat c after the reader's cursor, records it, and advances
// the cursor to the highest sequence returned. It reports whether the page
// was full.
func (r *catchUpReader) sync(ctx context.Context, c int) bool {
	r.rec.YieldToFlusher()
	chat, after, limit := r.chats[c], r.cursor[c], r.cfg.SyncLimit
	r.rec.Record(&history.Event{
		Kind: history.KindInvoke, Process: r.pid, F: history.FSync, Chat: chat,
		After: after, Limit: limit, Reader: true,
	})
	msgs, err := r.target.Sync(ctx, chat, after, limit)
	end := r.rec.Now()
	ev := history.Event{Process: r.pid, F: history.FSync, Chat: chat}
	ev.Kind, ev.Error = target.Completion(err)
	if ev.Kind == history.KindOK {
		ev.Sync = target.SyncResultOf(msgs)
	}
	r.rec.RecordAt(&ev, end)
	r.tally.syncs.Add(1)
	if ev.Kind != history.KindOK {
		r.tally.errors.Add(1)
		if ev.Kind == history.KindInfo {
			r.pid = r.newPID() // that sync may still be outstanding
		}
		return false
	}
	r.tally.ok.Add(1)
	r.tally.received.Add(int64(len(msgs)))
	if n := len(msgs); n > 0 && msgs[n-1].Seq > r.cursor[c] {
		r.cursor[c] = msgs[n-1].Seq
	}
	return len(msgs) >= limit
}
