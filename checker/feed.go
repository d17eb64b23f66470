package checker

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/timings"
)

// Feed judges a history while it is being written: the recorder's bytes,
// written to the Feed as they go to the file, are read into a Log by a
// goroutine of its own, so that when the run ends only the last lines and
// the invariants are left to do. It reads exactly the bytes the file gets,
// so its verdict is the one 'chatseq check' gives that file.
type Feed struct {
	began time.Time
	log   *Log

	mu     sync.Mutex
	more   sync.Cond
	queue  [][]byte // written, not yet read
	queued int      // bytes in queue
	closed bool     // no more writes
	failed bool     // the reader stopped early: writes are dropped
	// paced: writes wait while more than pacedQueue bytes are queued.
	paced   bool
	drained sync.Cond

	done chan struct{}
	h    *history.History
	err  error
}

// NewFeed starts reading a history that will be written to the Feed; name
// is the file it also goes to.
func NewFeed(name string) *Feed {
	f := &Feed{began: time.Now(), log: NewLog(), done: make(chan struct{})}
	f.more.L = &f.mu
	f.drained.L = &f.mu
	go func() {
		defer close(f.done)
		f.h, f.err = history.Scan(feedReader{f}, name, f.log)
		f.mu.Lock()
		f.failed, f.queue, f.queued = true, nil, 0 // a history that ended early reads no further
		f.drained.Broadcast()
		f.mu.Unlock()
	}()
	return f
}

// Write queues a copy of p for the reader and never waits for it: the
// recorder's flusher, and through it the writers, must not slow down for
// the check.
func (f *Feed) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errFeedClosed
	}
	for f.paced && !f.failed && f.queued > pacedQueue {
		f.drained.Wait()
	}
	if !f.failed && len(p) > 0 {
		f.queue = append(f.queue, append([]byte(nil), p...))
		f.queued += len(p)
		f.more.Signal()
	}
	return len(p), nil
}

// pacedQueue is how far a paced feed's reader may fall behind.
const pacedQueue = 16 << 20

// Pace makes later writes wait while the reader is more than a few
// megabytes behind. A run calls it once its writers have stopped: the
// final state is written faster than it is read, and an unpaced queue
// held a copy of most of it (650 MB after a default one-minute run).
func (f *Feed) Pace() {
	f.mu.Lock()
	f.paced = true
	f.mu.Unlock()
}

var errFeedClosed = errors.New("checker: write to a closed feed")

// Close ends the history: the reader sees the end of the input.
func (f *Feed) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.more.Signal()
	return nil
}

// Check closes the feed, waits for the reader and judges what it read, as
// CheckFile judges a file. A history that cannot be read is an error, as
// for CheckFile.
func (f *Feed) Check(opt Options) (Report, *history.History, error) {
	f.Close()
	done := timings.Phase("feed: reading what was queued")
	<-f.done
	done()
	if f.err != nil {
		return Report{}, nil, f.err
	}
	return f.log.check(f.h, opt, f.began), f.h, nil
}

// Discard closes the feed and drops what it read, for a run whose history
// will not be judged.
func (f *Feed) Discard() {
	f.Close()
	<-f.done
	f.log = nil
}

// feedReader is the reader's side of the queue.
type feedReader struct{ f *Feed }

func (r feedReader) Read(p []byte) (int, error) {
	f := r.f
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.queue) == 0 {
		if f.closed {
			return 0, io.EOF
		}
		f.more.Wait()
	}
	n := copy(p, f.queue[0])
	if n == len(f.queue[0]) {
		f.queue[0] = nil
		f.queue = f.queue[1:]
	} else {
		f.queue[0] = f.queue[0][n:]
	}
	f.queued -= n
	if f.queued <= pacedQueue {
		f.drained.Broadcast()
	}
	return n, nil
}
