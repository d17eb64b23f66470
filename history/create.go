package history

import (
	"os"
	"sync"

	"github.com/chatseq/chatseq/internal/appendfile"
)

// File is a history being written (Create). A new regular file is written
// around the page cache where the system allows it (appendfile): a
// history is written once and read once, and this machine's kernel spent
// 3 ns of system time a byte filling the cache (a run's largest single
// cost), against 0.1 ns for the same bytes written around it. Anything
// else is written as an *os.File is.
//
// Whatever the way, the file on disk is always a prefix of what was
// written, so a killed run leaves a history cut short, never one with a
// hole: what Write took reaches the file at the latest at the next
// Checkpoint, which a Recorder calls at each of its flushes on a timer
// and when it is flushed, closed or ended.
type File struct {
	mu     sync.Mutex
	f      *os.File
	direct *appendfile.Appender // nil: every write goes to f
	closed bool
}

// Create opens path for a new history, as os.Create does, except that a
// regular file already there is unlinked first rather than truncated.
// ext4 (auto_da_alloc) writes back a file truncated to zero and written
// again when it is closed, for fear of leaving it empty after a crash:
// closing a 2.8 GB history written over the last run's took 0.9 s more
// than closing a new one, all of it after the writers stopped. Freeing
// the old file's blocks takes time too (0.4 s for 2.8 GB), so the old
// file is held open while its name is removed, and closed, which frees
// them, in the background. Anything else at path (a device such as
// /dev/null, a named pipe), or a file that cannot be unlinked, is opened
// as os.Create opens it.
func Create(path string) (*File, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() {
		old, _ := os.Open(path) // nil when it cannot be read: freed at once
		removed := removeFile(path) == nil
		if old != nil {
			if removed {
				go old.Close()
			} else {
				old.Close()
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &File{f: f, direct: appendfile.Open(f, path)}, nil
}

// removeFile is os.Remove; a test makes it fail, as it does where the
// directory is not writable (though not for root).
var removeFile = os.Remove

// Name is the path the file was created at.
func (f *File) Name() string { return f.f.Name() }

// Write appends p.
func (f *File) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, os.ErrClosed
	}
	if f.direct != nil {
		return f.direct.Write(p)
	}
	return f.f.Write(p)
}

// WriteString appends s.
func (f *File) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// Checkpoint puts everything written so far in the file, where a killed
// process no longer loses it, and returns the first write error.
func (f *File) Checkpoint() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return os.ErrClosed
	}
	if f.direct != nil {
		return f.direct.Checkpoint()
	}
	return nil
}

// Close checkpoints and closes the file; a second Close returns
// os.ErrClosed, as an *os.File's does.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return os.ErrClosed
	}
	f.closed = true
	var err error
	if f.direct != nil {
		err = f.direct.Close()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkpointer is a writer that buffers what it takes until Checkpoint.
type checkpointer interface{ Checkpoint() error }
