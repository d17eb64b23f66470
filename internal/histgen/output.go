package histgen

import (
	"io"
	"sync/atomic"
)

// output writes buffers to an io.Writer from its own goroutine, so that the
// simulation fills the next buffer while the last one is written (a file
// on a disk is slower than the simulation).
type output struct {
	w      io.Writer
	full   chan []byte // filled buffers, in order
	free   chan []byte // written buffers, to fill again
	done   chan struct{}
	failed atomic.Bool
	err    error // the first write error; read after done
	bytes  int64 // bytes written; read after done
}

// outputBuffers is how many buffers circulate: one being filled, one being
// written, one ready.
const outputBuffers = 3

func newOutput(w io.Writer, size int) *output {
	o := &output{w: w, full: make(chan []byte, outputBuffers), free: make(chan []byte, outputBuffers), done: make(chan struct{})}
	for range outputBuffers - 1 {
		o.free <- make([]byte, 0, size)
	}
	go o.loop()
	return o
}

func (o *output) loop() {
	defer close(o.done)
	for b := range o.full {
		if o.err == nil {
			var n int
			n, o.err = o.w.Write(b)
			o.bytes += int64(n)
			if o.err == nil && n < len(b) {
				o.err = io.ErrShortWrite
			}
			if o.err != nil {
				o.failed.Store(true)
			}
		}
		o.free <- b[:0]
	}
}

// write queues b and returns an empty buffer to fill next.
func (o *output) write(b []byte) []byte {
	o.full <- b
	return <-o.free
}

// close waits for every queued buffer to be written and returns the
// bytes written and the first error.
func (o *output) close() (int64, error) {
	close(o.full)
	<-o.done
	return o.bytes, o.err
}
