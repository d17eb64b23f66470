package history

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// ReadFile reads the history at path.
func ReadFile(path string) (*History, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads a history from r; name is the file name that errors and
// History.File carry. Errors about the content are *ParseError; an error from
// r itself is returned wrapped.
//
// If r is a regular file, Read first counts its lines (and then seeks back),
// so that the event table is allocated once at its final size: for millions
// of events that keeps peak memory near what the History itself needs.
func Read(r io.Reader, name string) (*History, error) {
	hint := sizeHint{bytes: -1}
	switch in := r.(type) {
	case *os.File:
		var err error
		if hint, err = fileSize(in); err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		hint.bytes = int64(in.Len())
	}
	return read(r, name, hint)
}

// sizeHint is how many events and final lines to make room for, and how many
// bytes the input has (-1: unknown).
type sizeHint struct {
	events, finals int
	bytes          int64
}

// fileSize counts the lines of f from its current offset, then seeks back.
// It gives no hint for what cannot seek (pipes, terminals).
func fileSize(f *os.File) (sizeHint, error) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return sizeHint{bytes: -1}, nil
	}
	offset, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return sizeHint{bytes: -1}, nil
	}
	hint, err := countLines(f)
	if err != nil {
		return hint, err
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return hint, err
	}
	hint.bytes = st.Size() - offset
	return hint, nil
}

// countLines estimates a sizeHint from a quick pass over the raw bytes: every
// line is an event except the header and lines that start like a recorded
// final line. A wrong guess costs only memory, not correctness.
func countLines(r io.Reader) (sizeHint, error) {
	finalPrefix := []byte(`{"type":"final"`)
	buf := make([]byte, 1<<20)
	var lines, finals int
	carry := 0 // bytes of a partial line kept at the front of buf
	for {
		n, err := r.Read(buf[carry:])
		chunk := buf[:carry+n]
		start := 0
		for {
			nl := bytes.IndexByte(chunk[start:], '\n')
			if nl < 0 {
				break
			}
			if bytes.HasPrefix(chunk[start:], finalPrefix) {
				finals++
			}
			lines++
			start += nl + 1
		}
		// Keep the start of a partial line if it could still be a final's
		// prefix; drop a long one.
		carry = copy(buf, chunk[start:min(len(chunk), start+len(finalPrefix))])
		if err == io.EOF {
			break
		}
		if err != nil {
			return sizeHint{}, err
		}
	}
	// lines-finals also covers the header and an unterminated last line.
	return sizeHint{events: max(lines-finals, 0), finals: finals}, nil
}

// Sink receives a history's event and final lines in file order, as
// ScanFile reads them. The pointers are valid only during the call; the
// strings and sync results they hold stay valid.
type Sink interface {
	Event(e *Event)
	Final(f *Final)
}

// HeaderSink is a Sink that is handed the header before any line (the
// online check reads initial_counter from it).
type HeaderSink interface {
	Header(h *Header)
}

// BatchSink is a Sink told, when a Tap hands it lines, that a write of
// lines lines was handed whole (the online check judges some rules a
// batch at a time). Scan does not call it.
type BatchSink interface {
	BatchDone(lines int)
}

// IDHasher is a Sink that only compares the message ids of sync answers:
// it gets them as HashID's values (SyncResult.IDHashes), computed as the
// lines are parsed, instead of as strings. HashID must be safe to call from
// another goroutine, and give 0 for an empty id and never for another (the
// reader refuses an empty id by it: idsNotEmpty).
type IDHasher interface {
	HashID(id []byte) uint64
}

// ScanFile reads the history at path as ReadFile does, but hands each event
// and final line to sink instead of keeping it: the History returned holds
// the header and warnings only. Memory then depends on what sink keeps.
func ScanFile(path string, sink Sink) (*History, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	in, release := uncachedReader(f)
	defer release()
	// No pass over the file first: a sink keeps its own records, in
	// blocks that grow without copying (the checker's Log).
	return readTo(in, path, sizeHint{bytes: -1}, sink)
}

// Scan reads a history from in as ScanFile reads a file, handing each line
// to sink as it arrives, so that a history can be judged while it is still
// being written (name is the file it is written to, for messages).
func Scan(in io.Reader, name string, sink Sink) (*History, error) {
	return readTo(in, name, sizeHint{bytes: -1}, sink)
}

func read(in io.Reader, name string, hint sizeHint) (*History, error) {
	return readTo(in, name, hint, nil)
}

func readTo(in io.Reader, name string, hint sizeHint, sink Sink) (*History, error) {
	bufferSize := readBufferSize
	if hint.bytes >= 0 && hint.bytes < readBufferSize {
		bufferSize = int(hint.bytes) + 1 // small inputs need no large buffer
	}
	p := newLineParser(in, name, bufferSize)
	if h, ok := sink.(IDHasher); ok {
		p.hashID = h.HashID
	}
	header, err := p.header()
	if err != nil {
		return nil, err
	}
	b := newBuilder(&History{File: name, Header: header}, hint)
	b.sink = sink
	if hs, ok := sink.(HeaderSink); ok {
		hs.Header(&b.h.Header)
	}
	if err := pipeline(p, b); err != nil {
		return nil, err
	}
	b.finish(p.lineNo)
	return b.h, nil
}

// pipeline reads the lines after the header in several goroutines: the
// reader splits them into batches, a decoder per core parses batches side
// by side, and the builder checks and stores their lines. The builder sees
// lines in file order, so the first error in the file is the one reported.
func pipeline(p *lineParser, b *builder) error {
	work := make(chan *batch, batches)
	ordered := make(chan *batch, batches)
	free := make(chan *batch, batches)
	quit := make(chan struct{})
	done := make(chan struct{})
	var decoders sync.WaitGroup
	for range decoderCount() {
		d := newLineDecoder(p.file, p.hashID)
		decoders.Go(func() { d.decode(work) })
	}
	go func() {
		defer close(done)
		p.run(work, ordered, free, quit)
	}()
	// Stop and wait for the reader and decoders on every return, so that
	// nothing reads the input after Read returns.
	defer func() {
		close(quit)
		<-done
		decoders.Wait()
	}()
	for bt := range ordered {
		<-bt.parsed
		for i := range bt.lines {
			if err := b.add(&bt.lines[i]); err != nil {
				return err
			}
		}
		if bt.err != nil {
			return bt.err
		}
		if bt.warning != nil {
			if b.h.End > 0 {
				return b.partialAfterEnd(bt.warning)
			}
			b.h.Warnings = append(b.h.Warnings, *bt.warning)
			b.h.CutMidLine = bt.warning.Line
		}
		if bt.readErr != nil {
			return bt.readErr
		}
		free <- bt // never blocks: it holds every batch there is
	}
	return nil
}

// decoderCount is how many batches are parsed at once: one a core, the
// builder and reader sharing them (two decoders on a 2-core machine still
// beat one: the builder waits on the slower stage).
func decoderCount() int { return min(max(runtime.GOMAXPROCS(0), 1), 4) }

// openFile opens a history file; a directory is refused by name rather
// than by the error its first read gives.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a history file", path)
	}
	return f, nil
}
