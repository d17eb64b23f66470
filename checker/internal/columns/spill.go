package columns

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/chatseq/chatseq/internal/appendfile"
)

// SpillFile is where a long run's Log moves the blocks of records it has
// finished filling (issue 30: memory that does not grow with the run).
// While the writers go, a block once full is read again only by the rare
// line that reaches back to it (an operation open for long, a retry of an
// old key, a sync reaching far back); the check reads every record once
// the run is over. So the containers keep their few newest full blocks
// and write the others here, byte for byte; a block is read back whole
// when a line reaches it, and every block when the Log is indexed
// (Unspill), so the check reads exactly the records it would have held.
//
// The file is removed as soon as it is made: it lives while the process
// holds it open and goes with the process, however it ends (an error, an
// interrupt, a kill). Where an open file cannot be removed (not on Unix),
// nothing is spilled.
//
// Only records without pointers are spilled (the Log's are numbers).
//
// A file from NewSpillFile is written around the page cache where the
// system allows it (appendfile): its blocks are read back once, after the
// run, and filling the cache with them was a tenth of a run's CPU here.
// A file read back while it is written (the online check's key runs,
// merged as they pile up) is better cached: NewCachedSpillFile.
type SpillFile struct {
	f    *os.File
	a    *appendfile.Appender // nil: written and read through the cache
	end  int64
	werr error // the first write error: nothing more is spilled
	rerr error // the first read error: the check must not be trusted
	// Written and Read count the bytes spilled and read back.
	Written, Read int64
}

// NewSpillFile makes a spill file in dir (os.TempDir if empty), written
// around the page cache where the system allows it.
func NewSpillFile(dir string) (*SpillFile, error) { return newSpillFile(dir, true) }

// NewCachedSpillFile makes a spill file in dir written through the page
// cache, for records read back while the file is written.
func NewCachedSpillFile(dir string) (*SpillFile, error) { return newSpillFile(dir, false) }

func newSpillFile(dir string, direct bool) (*SpillFile, error) {
	f, err := os.CreateTemp(dir, ".chatseq-spill-*")
	if err != nil {
		return nil, err
	}
	s := &SpillFile{f: f}
	if direct {
		s.a = appendfile.Open(f, f.Name()) // while it has a name
	}
	if err := os.Remove(f.Name()); err != nil {
		s.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("spill file: cannot remove it while open: %w", err)
	}
	return s, nil
}

// writeAt and readAt go through the appender when there is one.
func (s *SpillFile) writeAt(p []byte, off int64) error {
	if s.a != nil {
		_, err := s.a.Write(p) // appended: off is where the file ends
		return err
	}
	_, err := s.f.WriteAt(p, off)
	return err
}

func (s *SpillFile) readAt(p []byte, off int64) error {
	var r io.ReaderAt = s.f
	if s.a != nil {
		r = s.a
	}
	_, err := r.ReadAt(p, off)
	return err
}

// Err is the first read error, after which records read back are zeros:
// a check of them must not be trusted.
func (s *SpillFile) Err() error {
	if s == nil {
		return nil
	}
	return s.rerr
}

// Close closes the file (already removed).
func (s *SpillFile) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	if s.a != nil {
		s.a.Close()
		s.a = nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// usable says whether blocks may be written.
func (s *SpillFile) usable() bool { return s != nil && s.f != nil && s.werr == nil }

// SpillRef is where a block's records are in the file: offset and count;
// the zero ref is none.
type SpillRef struct {
	off int64
	n   int32
	set bool
}

// Spilled says whether r holds a block.
func (r SpillRef) Spilled() bool { return r.set }

func bytesOf[T any](b []T) []byte {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*int(unsafe.Sizeof(z)))
}

// spillWrite writes b to s; false (and s takes no more) if it cannot.
func spillWrite[T any](s *SpillFile, b []T) (SpillRef, bool) {
	if !s.usable() || len(b) == 0 {
		return SpillRef{}, false
	}
	p := bytesOf(b)
	if err := s.writeAt(p, s.end); err != nil {
		s.werr = err
		return SpillRef{}, false
	}
	r := SpillRef{off: s.end, n: int32(len(b)), set: true}
	s.end += int64(len(p))
	s.Written += int64(len(p))
	return r, true
}

// spillRead reads back the block at r, with room for capacity records.
func spillRead[T any](s *SpillFile, r SpillRef, capacity int) []T {
	b := make([]T, r.n, max(capacity, int(r.n)))
	if s == nil || s.f == nil {
		if s != nil && s.rerr == nil {
			s.rerr = errors.New("spill file: a block was read back after the file was closed")
		}
		return b
	}
	p := bytesOf(b)
	if err := s.readAt(p, r.off); err != nil && s.rerr == nil {
		s.rerr = fmt.Errorf("spill file: %w", err)
	}
	s.Read += int64(len(p))
	return b
}

// BlockSpill is what a container of blocks keeps to spill them: where
// each spilled block is, and its full blocks still held, oldest first.
type BlockSpill struct {
	file  *SpillFile
	keep  int        // full blocks held besides those being filled
	refs  []SpillRef // by block
	held  []int      // full blocks held, in the order they filled
	count int        // blocks spilled and not read back
}

// Start makes s spill to file, holding keep full blocks besides those
// being filled.
func (s *BlockSpill) Start(file *SpillFile, keep int) { *s = BlockSpill{file: file, keep: keep} }

// Active says whether s may have blocks on file.
func (s *BlockSpill) Active() bool { return s.file != nil }

// IsSpilled says whether block b is on file.
func (s *BlockSpill) IsSpilled(b int) bool { return b < len(s.refs) && s.refs[b].Spilled() }

// Count is how many blocks are on file.
func (s *BlockSpill) Count() int { return s.count }

// SpillFull notes that block b of blocks is full (never appended to again) and
// spills the oldest full blocks held beyond keep.
func SpillFull[T any](s *BlockSpill, blocks [][]T, b int) { SpillFullReusing(s, blocks, b, nil) }

// SpillFullReusing is SpillFull for a container whose records are only
// ever reached through it (no string or slice of a block outlives the
// call that read it): each block written out goes to *free, to be the
// container's next block (TakeFree), where a new block was made for each
// one spilled. A long run's Log made about 200 MB of such blocks a
// million persists, garbage the heap grew by and the collector swept.
// free may be nil.
func SpillFullReusing[T any](s *BlockSpill, blocks [][]T, b int, free *[][]T) {
	if s.file == nil {
		return
	}
	s.held = append(s.held, b)
	for len(s.held) > s.keep && s.file.usable() {
		o := s.held[0]
		if blocks[o] != nil {
			r, ok := spillWrite(s.file, blocks[o])
			if !ok {
				return
			}
			for o >= len(s.refs) {
				s.refs = append(s.refs, SpillRef{})
			}
			s.refs[o] = r
			if free != nil {
				*free = append(*free, blocks[o][:0])
			}
			blocks[o] = nil
			s.count++
		}
		s.held = s.held[1:]
		if len(s.held) == 0 {
			s.held = nil // let the backing array go as it drifts
		}
	}
}

// TakeFree is a block that SpillFullReusing put in *free, emptied (its
// records are still there, past its length), or nil if there is none.
func TakeFree[T any](free *[][]T) []T {
	n := len(*free)
	if n == 0 {
		return nil
	}
	b := (*free)[n-1]
	*free = (*free)[:n-1]
	return b
}

// SpillLoad reads block b back into blocks and holds it again (as full:
// it is spilled again once newer ones fill).
func SpillLoad[T any](s *BlockSpill, blocks [][]T, b int, capacity int) []T {
	blk := spillRead[T](s.file, s.refs[b], capacity)
	blocks[b] = blk
	s.refs[b] = SpillRef{}
	s.count--
	if s.file.usable() {
		s.held = append(s.held, b)
	}
	return blk
}

// SpillLoadAll reads every spilled block back and spills no more.
func SpillLoadAll[T any](s *BlockSpill, blocks [][]T, capacity int) {
	for b := range s.refs {
		if s.refs[b].Spilled() {
			blocks[b] = spillRead[T](s.file, s.refs[b], capacity)
		}
	}
	*s = BlockSpill{}
}

// SpillWrite writes the records vs to s as one run; false (and s takes no
// more) if it cannot.
func SpillWrite[T any](s *SpillFile, vs []T) (SpillRef, bool) { return spillWrite(s, vs) }

// SpillReadRange reads records from..from+len(into) of the run at r into
// into (zeros where it cannot: s.Err says so).
func SpillReadRange[T any](s *SpillFile, r SpillRef, from int, into []T) {
	if len(into) == 0 {
		return
	}
	p := bytesOf(into)
	if s == nil || s.f == nil {
		clear(into)
		if s != nil && s.rerr == nil {
			s.rerr = errors.New("spill file: a run was read back after the file was closed")
		}
		return
	}
	var z T
	if err := s.readAt(p, r.off+int64(from)*int64(unsafe.Sizeof(z))); err != nil {
		clear(into)
		if s.rerr == nil {
			s.rerr = fmt.Errorf("spill file: %w", err)
		}
	}
	s.Read += int64(len(p))
}

// Len is how many records the run at r holds.
func (r SpillRef) Len() int { return int(r.n) }

// Usable says whether s takes more writes.
func (s *SpillFile) Usable() bool { return s.usable() }
