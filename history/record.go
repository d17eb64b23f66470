package history

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// recordBufferSize is how much the recorder buffers before writing. A killed
// process loses at most this much, and leaves at most one partial line.
const recordBufferSize = 256 << 10

// Recorder appends events to a history as they happen. It is safe for
// concurrent use: each line is stamped and encoded under one lock, so lines
// appear in time order.
//
// Writes happen outside that lock: a full buffer is swapped for a spare and
// written while other goroutines keep recording; writeMu keeps the writes in
// order.
type Recorder struct {
	w    io.Writer
	base time.Time

	mu  sync.Mutex
	buf []byte

	writeMu sync.Mutex
	spare   []byte // the buffer not being filled, when no write is in flight
	err     error  // the first write error; later writes are skipped

	stop      chan struct{} // closed by Close to end the flusher
	flusherWG sync.WaitGroup
	closeOnce sync.Once
}

// NewRecorder writes h as the header line and returns a recorder that
// appends to w. If flushEvery > 0, a background goroutine flushes that often,
// so a long quiet run still reaches the file. The recorder never closes w.
func NewRecorder(w io.Writer, h Header, flushEvery time.Duration) (*Recorder, error) {
	buf, err := appendHeader(make([]byte, 0, recordBufferSize+recordBufferSize/4), &h)
	if err != nil {
		return nil, err
	}
	// Write the header at once: a run killed early still leaves a file
	// that identifies itself.
	if _, err := w.Write(buf); err != nil {
		return nil, err
	}
	r := &Recorder{
		w:     w,
		base:  time.Now(),
		buf:   buf[:0],
		spare: make([]byte, 0, cap(buf)),
		stop:  make(chan struct{}),
	}
	if flushEvery > 0 {
		r.flusherWG.Add(1)
		go r.flushPeriodically(flushEvery)
	}
	return r, nil
}

// Now is the recorder's clock: monotonic nanoseconds since it started.
func (r *Recorder) Now() int64 { return int64(time.Since(r.base)) }

// At is t on the recorder's clock.
func (r *Recorder) At(t time.Time) int64 { return int64(t.Sub(r.base)) }

// Record stamps e.Time with Now, appends e's line and returns the time. e.Line
// is ignored. Only the fields e's kind carries are written (see FORMAT.md);
// on completions, an empty Chat or Key is left out and so read back as the
// invoke's.
func (r *Recorder) Record(e *Event) int64 {
	// Encode before locking: only the time is written under the lock.
	var scratch [recordScratch]byte
	line := appendEventHead(scratch[:0], e)
	head := len(line)
	line = appendEventTail(line, e)
	r.mu.Lock()
	t := r.Now()
	r.buf = append(r.buf, line[:head]...)
	r.buf = strconv.AppendInt(r.buf, t, 10)
	r.buf = append(r.buf, line[head:]...)
	r.unlockAndMaybeWrite()
	e.Time = t
	return t
}

// recordScratch is the stack buffer a line is encoded in; longer lines (a
// sync returning many messages) go to the heap.
const recordScratch = 512

// RecordFinal appends a final line. Finals must come after every operation
// and trace.
func (r *Recorder) RecordFinal(f Final) {
	var scratch [recordScratch]byte
	line := appendFinal(scratch[:0], &f)
	r.mu.Lock()
	r.buf = append(r.buf, line...)
	r.unlockAndMaybeWrite()
}

// unlockAndMaybeWrite releases mu, first handing the buffer to the writer if
// it is full.
func (r *Recorder) unlockAndMaybeWrite() {
	if len(r.buf) < recordBufferSize {
		r.mu.Unlock()
		return
	}
	r.writeLocked()
}

// writeLocked is called with mu held and releases it. It swaps in the spare
// buffer and writes the full one. Taking writeMu before releasing mu keeps
// writes in the order the lines were recorded.
func (r *Recorder) writeLocked() {
	if len(r.buf) == 0 {
		r.mu.Unlock()
		return
	}
	r.writeMu.Lock()
	full := r.buf
	r.buf = r.spare
	r.mu.Unlock()
	if r.err == nil {
		_, r.err = r.w.Write(full)
	}
	r.spare = full[:0]
	r.writeMu.Unlock()
}

// Flush writes everything recorded so far and returns the first write error.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	r.writeLocked()
	r.writeMu.Lock() // waits for a write still in flight, and sees its error
	defer r.writeMu.Unlock()
	return r.err
}

// Close stops the background flusher and flushes. It returns the first write
// error the recorder met. It does not close the underlying writer; lines
// recorded after Close are written only by a later Flush or Close.
func (r *Recorder) Close() error {
	r.closeOnce.Do(func() {
		close(r.stop)
		r.flusherWG.Wait()
	})
	return r.Flush()
}

func (r *Recorder) flushPeriodically(every time.Duration) {
	defer r.flusherWG.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.Flush() // the error stays in r.err for Close to report
		case <-r.stop:
			return
		}
	}
}
