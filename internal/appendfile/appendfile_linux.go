//go:build linux

// Package appendfile writes a file that is only appended to around the
// page cache (O_DIRECT), without waiting for the device (io_uring). A
// history and the check's spilled records are written once and read at
// most once; this machine's kernel spent 3 ns of system time a byte
// filling the cache with them (a run's largest single cost), against 0.1
// ns for the same bytes written around it. Where the system refuses
// either, Open returns nil and the caller writes as it otherwise would.
//
// An Appender copies what it is given into mapped chunks and submits a
// full chunk as one write while the next fills. Written synchronously
// around the cache, a run's writes kept the writing goroutine's core
// waiting on the device (Go takes a P back from a blocked syscall only
// at its monitor's next tick, up to 10 ms apart), and the run went no
// faster.
//
// The file stays a prefix of what was written, whenever the process
// dies: one direct write is in flight at a time, each starting where the
// last ended; a checkpoint writes the blocks filled so far, waits for
// them, and only then writes the partial last block through the page
// cache (a later direct write of that block replaces it). A direct write
// that fails (a file system that refuses O_DIRECT after all, a full disk)
// is written again through the cache, and so is everything after it.
package appendfile

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/internal/uring"
	"golang.org/x/sys/unix"
)

// An Appender appends to one file; it is not safe for concurrent use.
type Appender struct {
	plain  *os.File // the file as created
	direct *os.File // the same file opened with O_DIRECT
	ring   *uring.Ring
	free   [][]byte // chunk buffers not in use
	made   int      // chunk buffers mapped
	queue  []*chunk // written to and not wholly written directly, oldest first
	base   int64    // the file offset of queue[0]'s first byte
	// sending is how many bytes of queue[0], from its sent, are in
	// flight; 0 when no write is.
	sending int
	// cachedTo is where the last checkpoint's write through the cache
	// ended: a checkpoint with nothing new writes nothing.
	cachedTo int64
	fellBack bool   // direct writes failed, or closed: all goes through plain
	end      int64  // once fellBack, where the next write goes
	err      error  // the first write error: nothing more is written
	scratch  []byte // mapped: ReadAt's whole blocks
}

// chunk is one mapped buffer of the stream, directChunkSize bytes
// from an offset that is a multiple of directBlock.
type chunk struct {
	buf  []byte
	n    int // bytes filled
	sent int // bytes written directly, a multiple of directBlock
}

const (
	// directBlock is the alignment of a direct write's offset, length
	// and memory: a multiple of any logical block size a disk has.
	directBlock = 4096
	// directChunkSize is one direct write; directChunks of them are
	// filled at most before a writer waits for the device.
	directChunkSize = 1 << 20
	directChunks    = 16
	// directPoll is how long a waiting writer sleeps between looks at
	// the ring: a chunk takes the device here about 0.5 ms.
	directPoll = 20 * time.Microsecond
)

// Open is an appender of plain, a new, empty regular file at path, or
// nil where the system does not write it around the cache. plain stays
// the caller's to close, after the appender.
func Open(plain *os.File, path string) *Appender {
	if throughTheCache.Load() {
		return nil
	}
	if info, err := plain.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() != 0 || !dioAligned(plain) {
		return nil
	}
	direct, err := os.OpenFile(path, os.O_RDWR|unix.O_DIRECT, 0)
	if err != nil {
		return nil
	}
	if !sameFile(plain, direct) { // the name was taken by another since
		direct.Close()
		return nil
	}
	ring, err := uring.New(4)
	if err != nil {
		direct.Close()
		return nil
	}
	return &Appender{plain: plain, direct: direct, ring: ring}
}

// throughTheCache makes Open decline (ThroughTheCache).
var throughTheCache atomic.Bool

// ThroughTheCache makes Open decline while on is true, so that a
// benchmark compares the two ways side by side in one process.
func ThroughTheCache(on bool) { throughTheCache.Store(on) }

// dioAligned says whether f's file system takes direct writes aligned to
// directBlock, as far as the kernel tells (before Linux 6.1 it does not:
// then a failed first write says so).
func dioAligned(f *os.File) bool {
	var st unix.Statx_t
	if err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_DIOALIGN, &st); err != nil || st.Mask&unix.STATX_DIOALIGN == 0 {
		return true
	}
	return st.Dio_offset_align != 0 && directBlock%st.Dio_offset_align == 0 &&
		st.Dio_mem_align != 0 && uint32(os.Getpagesize())%st.Dio_mem_align == 0
}

func sameFile(a, b *os.File) bool {
	ai, err1 := a.Stat()
	bi, err2 := b.Stat()
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

// Write appends p: copied, and written once its chunk is full.
func (d *Appender) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if d.err != nil {
			return written, d.err
		}
		if d.fellBack {
			n, err := d.plain.WriteAt(p, d.end)
			d.end += int64(n)
			if err != nil {
				d.err = err
			}
			return written + n, err
		}
		c := d.filling()
		if c == nil {
			continue // fell back or failed while waiting for a chunk
		}
		k := copy(c.buf[c.n:], p)
		c.n += k
		p = p[k:]
		written += k
		if c.n == len(c.buf) {
			d.pump()
		}
	}
	return written, nil
}

// filling is the chunk to append to, a new one when the last is full;
// nil if the appender fell back or failed while waiting for one.
func (d *Appender) filling() *chunk {
	if n := len(d.queue); n > 0 && d.queue[n-1].n < directChunkSize {
		return d.queue[n-1]
	}
	for {
		d.pump()
		if d.fellBack || d.err != nil {
			return nil
		}
		var buf []byte
		switch {
		case len(d.free) > 0:
			buf, d.free = d.free[len(d.free)-1], d.free[:len(d.free)-1]
		case d.made < directChunks:
			// Populated at once: faulted in a page at a time as the
			// writer filled it, a chunk took 256 faults (each a few
			// microseconds on this VM, and a shootdown of the other
			// cores' TLBs) where one call zeroes it.
			b, err := unix.Mmap(-1, 0, directChunkSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_POPULATE)
			if err != nil {
				if d.waitInFlight(); !d.fellBack {
					d.fallBack(0) // no write in flight: it may reuse nothing
				}
				return nil
			}
			buf = b
			d.made++
		default:
			d.waitInFlight() // every chunk is full: the oldest is being written
			continue
		}
		c := &chunk{buf: buf}
		d.queue = append(d.queue, c)
		return c
	}
}

// pump reaps what completed and, when no write is in flight, submits the
// oldest chunk once it is full.
func (d *Appender) pump() {
	d.reap()
	if d.sending == 0 && !d.fellBack && len(d.queue) > 0 {
		if c := d.queue[0]; c.n == directChunkSize && c.sent < c.n {
			d.submit(c.n)
		}
	}
}

// submit writes queue[0] from its sent to to, directly.
func (d *Appender) submit(to int) {
	c := d.queue[0]
	if err := d.ring.Write(int(d.direct.Fd()), c.buf[c.sent:to], d.base+int64(c.sent), 0); err != nil {
		d.fallBack(0)
		return
	}
	d.sending = to - c.sent
}

// reap takes the write in flight if it has completed.
func (d *Appender) reap() {
	if d.sending == 0 {
		return
	}
	_, res, ok := d.ring.Reap()
	if !ok {
		return
	}
	want := d.sending
	d.sending = 0
	if int(res) != want {
		d.fallBack(max(int(res), 0))
		return
	}
	c := d.queue[0]
	c.sent += want
	if c.sent == directChunkSize {
		d.free = append(d.free, c.buf)
		d.queue = d.queue[1:]
		d.base += directChunkSize
	}
}

// waitInFlight waits until no write is in flight.
func (d *Appender) waitInFlight() {
	for d.sending > 0 {
		if d.reap(); d.sending > 0 {
			time.Sleep(directPoll)
		}
	}
}

// Checkpoint writes everything appended so far to the file: the whole
// blocks directly, waiting for each, then the rest through the cache.
func (d *Appender) Checkpoint() error {
	for !d.fellBack && d.err == nil {
		d.waitInFlight()
		if d.fellBack || len(d.queue) == 0 {
			break
		}
		c := d.queue[0]
		if whole := c.n &^ (directBlock - 1); whole > c.sent {
			d.submit(whole)
			continue
		}
		// c is the last chunk, its unsent part less than a block.
		if to := d.base + int64(c.n); c.n > c.sent && to != d.cachedTo {
			if _, err := d.plain.WriteAt(c.buf[c.sent:c.n], d.base+int64(c.sent)); err != nil {
				d.err = err
			}
			d.cachedTo = to
		}
		break
	}
	return d.err
}

// fallBack writes through the cache everything not yet written directly,
// from written bytes past queue[0]'s sent (what a failed write still
// wrote), and everything after. No write may be in flight: the ring and
// the buffers go.
func (d *Appender) fallBack(written int) {
	d.fellBack = true
	d.end = d.base
	for i, c := range d.queue {
		from := 0
		if i == 0 {
			from = c.sent + written
		}
		if from < c.n && d.err == nil {
			if _, err := d.plain.WriteAt(c.buf[from:c.n], d.end+int64(from)); err != nil {
				d.err = err
			}
		}
		d.end += int64(c.n)
	}
	d.release()
}

// Close checkpoints and lets the buffers, the ring and the direct
// descriptor go. Later writes and reads go through plain.
func (d *Appender) Close() error {
	err := d.Checkpoint()
	d.waitInFlight()
	if !d.fellBack {
		d.fellBack, d.end = true, d.appended()
	}
	d.release()
	return err
}

// appended is how many bytes were written.
func (d *Appender) appended() int64 {
	if d.fellBack {
		return d.end
	}
	if n := len(d.queue); n > 0 {
		return d.base + int64(n-1)*directChunkSize + int64(d.queue[n-1].n)
	}
	return d.base
}

// ReadAt reads len(p) bytes at off: those still in a chunk from memory,
// the rest from the file, around the cache where it can.
func (d *Appender) ReadAt(p []byte, off int64) (int, error) {
	end := off + int64(len(p))
	if off < 0 || end > d.appended() {
		return 0, errors.New("appendfile: a read past what was written")
	}
	if d.fellBack {
		return d.plain.ReadAt(p, off)
	}
	if end > d.base {
		for at := max(off, d.base); at < end; {
			c := d.queue[(at-d.base)/directChunkSize]
			at += int64(copy(p[at-off:], c.buf[(at-d.base)%directChunkSize:c.n]))
		}
		if off >= d.base {
			return len(p), nil
		}
	}
	onDisk := p[:min(end, d.base)-off]
	if err := d.readDisk(onDisk, off); err != nil {
		return 0, err
	}
	return len(p), nil
}

// readDisk reads p at off, wholly in the file, as whole blocks around
// the cache, or through it where that fails.
func (d *Appender) readDisk(p []byte, off int64) error {
	lo := off &^ (directBlock - 1)
	hi := (off + int64(len(p)) + directBlock - 1) &^ (directBlock - 1)
	if buf := d.scratchOf(int(hi - lo)); buf != nil {
		n, err := io.ReadFull(io.NewSectionReader(d.direct, lo, hi-lo), buf)
		if err == nil && n == len(buf) {
			copy(p, buf[off-lo:])
			return nil
		}
	}
	_, err := d.plain.ReadAt(p, off)
	return err
}

// scratchOf is a mapped buffer of n bytes, nil if none can be mapped.
func (d *Appender) scratchOf(n int) []byte {
	if cap(d.scratch) < n {
		if d.scratch != nil {
			unix.Munmap(d.scratch[:cap(d.scratch)])
			d.scratch = nil
		}
		size := (n + directChunkSize - 1) &^ (directChunkSize - 1)
		b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			return nil
		}
		d.scratch = b
	}
	return d.scratch[:n]
}

// release lets the buffers, the ring and the direct descriptor go; no
// write may be in flight.
func (d *Appender) release() {
	for _, c := range d.queue {
		d.free = append(d.free, c.buf)
	}
	for _, b := range d.free {
		unix.Munmap(b)
	}
	d.queue, d.free = nil, nil
	if d.scratch != nil {
		unix.Munmap(d.scratch[:cap(d.scratch)])
		d.scratch = nil
	}
	if d.ring != nil {
		d.ring.Close()
		d.ring = nil
	}
	if d.direct != nil {
		d.direct.Close()
		d.direct = nil
	}
}
