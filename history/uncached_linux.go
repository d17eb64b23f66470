//go:build linux

package history

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// uncachedReader reads f from its start around the page cache (O_DIRECT)
// when f is a large file that is mostly not cached: read once, a history
// gains nothing from the cache, and filling it cost this machine more
// system time than the parse's own work (a cold 5 GB history: 6.9 s of
// system time against 3.3 s when it was cached). Otherwise, or where the
// file system refuses O_DIRECT, it is f itself. close releases what it
// took; f stays open.
func uncachedReader(f *os.File) (r io.Reader, close func()) {
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() < uncachedMinSize || cachedShare(f, info.Size()) >= 0.5 {
		return f, func() {}
	}
	if at, err := f.Seek(0, io.SeekCurrent); err != nil || at != 0 {
		return f, func() {}
	}
	return directOrPlain(f)
}

// directOrPlain reads f from its start with O_DIRECT, or is f where the
// file system refuses it.
func directOrPlain(f *os.File) (r io.Reader, close func()) {
	d, err := os.OpenFile(f.Name(), os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return f, func() {}
	}
	u := &directReader{d: d, free: make(chan []byte, uncachedBuffers), chunks: make(chan directChunk, uncachedBuffers), stop: make(chan struct{})}
	for range uncachedBuffers {
		b, err := unix.Mmap(-1, 0, uncachedChunk, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			u.release()
			return f, func() {}
		}
		u.bufs = append(u.bufs, b)
		u.free <- b
	}
	// The first chunk is read here: a file system that takes the open
	// but refuses the read is read as usual.
	first := <-u.free
	n, err := d.ReadAt(first, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		u.release()
		return f, func() {}
	}
	u.cur, u.curBuf, u.pending = first[:n], first, err
	if err == nil {
		u.reading.Add(1)
		go u.readAhead(int64(n))
	}
	return u, u.release
}

const (
	// uncachedMinSize is the smallest file read around the cache: below
	// it, the cache costs little either way.
	uncachedMinSize = 64 << 20
	// uncachedChunk is one read; uncachedBuffers of them are read ahead
	// of the parse.
	uncachedChunk   = 4 << 20
	uncachedBuffers = 4
)

// cachedShare is the share of f's pages in the page cache, 1 when it
// cannot tell.
func cachedShare(f *os.File, size int64) float64 {
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 1
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return 1
	}
	cached := 0
	for _, v := range vec {
		cached += int(v & 1)
	}
	return float64(cached) / float64(len(vec))
}

// directReader hands out the chunks readAhead reads, in file order.
type directReader struct {
	d       *os.File
	bufs    [][]byte
	free    chan []byte
	chunks  chan directChunk
	cur     []byte // what is left of the chunk being read
	curBuf  []byte // that chunk's buffer, to hand back
	pending error  // the error that ended the chunk being read
	stop    chan struct{}
	reading sync.WaitGroup
	once    sync.Once
}

type directChunk struct {
	buf []byte
	n   int
	err error
}

func (u *directReader) readAhead(off int64) {
	defer u.reading.Done()
	for {
		var buf []byte
		select {
		case buf = <-u.free:
		case <-u.stop:
			return
		}
		n, err := u.d.ReadAt(buf, off)
		off += int64(n)
		select {
		case u.chunks <- directChunk{buf: buf, n: n, err: err}:
		case <-u.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

func (u *directReader) Read(p []byte) (int, error) {
	if err := u.fill(); err != nil {
		return 0, err
	}
	n := copy(p, u.cur)
	u.cur = u.cur[n:]
	return n, nil
}

// ReadSlice is bufio.Reader's, over the chunks themselves: a line that
// runs past the end of its chunk comes in two parts, the first with
// bufio.ErrBufferFull. The slice is valid until the next call, which may
// hand its chunk back to be read into.
func (u *directReader) ReadSlice(delim byte) ([]byte, error) {
	if err := u.fill(); err != nil {
		return nil, err
	}
	if i := bytes.IndexByte(u.cur, delim); i >= 0 {
		line := u.cur[:i+1]
		u.cur = u.cur[i+1:]
		return line, nil
	}
	rest := u.cur
	u.cur = nil
	if u.pending != nil {
		return rest, u.pending
	}
	return rest, bufio.ErrBufferFull
}

// fill makes cur the next unread bytes, handing each chunk read through
// back, or returns the error that ended the input.
func (u *directReader) fill() error {
	for len(u.cur) == 0 {
		if u.pending != nil {
			return u.pending
		}
		u.free <- u.curBuf
		c := <-u.chunks
		u.cur, u.curBuf, u.pending = c.buf[:c.n], c.buf, c.err
	}
	return nil
}

// release stops the read-ahead and lets the buffers and the descriptor go.
func (u *directReader) release() {
	u.once.Do(func() {
		close(u.stop)
		u.reading.Wait()
		u.d.Close()
		for _, b := range u.bufs {
			unix.Munmap(b)
		}
		u.cur, u.curBuf, u.bufs = nil, nil, nil
	})
}
