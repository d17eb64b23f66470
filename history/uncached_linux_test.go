//go:build linux

package history

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// writeRandomFile writes n random bytes to a new file in dir and returns
// them, the file synced so that its pages can be dropped from the cache.
func writeRandomFile(t *testing.T, n int) (string, []byte) {
	t.Helper()
	want := make([]byte, n)
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	return writeSyncedFile(t, want), want
}

// writeSyncedFile writes data to a new file and syncs it.
func writeSyncedFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	return path
}

// directSupported reports whether dir's file system opens files with
// O_DIRECT (tmpfs before Linux 6.6 does not: there the history is read
// as usual, which the tests below check too).
func directSupported(path string) bool {
	d, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return false
	}
	d.Close()
	return true
}

// Read around the cache, a file reads back byte for byte: chunks in
// order, the last one short, then EOF.
func TestDirectReadIsTheFile(t *testing.T) {
	for _, n := range []int{1, 4095, uncachedChunk, 2*uncachedChunk + 12345, 9*uncachedChunk + 1} {
		path, want := writeRandomFile(t, n)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, release := directOrPlain(f)
		if _, direct := r.(*directReader); direct != directSupported(path) {
			t.Fatalf("%d bytes: read with O_DIRECT %v, where the file system takes it %v", n, direct, directSupported(path))
		}
		got, err := io.ReadAll(r)
		release()
		f.Close()
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: read back %d bytes that differ from the file", n, len(got))
		}
	}
}

// A reader let go before the end stops reading ahead and returns.
func TestDirectReaderReleasedEarly(t *testing.T) {
	path, want := writeRandomFile(t, 9*uncachedChunk)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, release := directOrPlain(f)
	head := make([]byte, 100)
	if _, err := io.ReadFull(r, head); err != nil || !bytes.Equal(head, want[:100]) {
		t.Fatalf("first 100 bytes: %v", err)
	}
	release() // must not wait for read-ahead that nobody takes
	release()
}

// A history in the page cache is read through it (reading it again from
// the disk would be slower); one that is not is read around it.
func TestUncachedReaderOnlyForUncachedFiles(t *testing.T) {
	path, want := writeRandomFile(t, uncachedMinSize+uncachedChunk/2)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if share := cachedShare(f, int64(len(want))); share < 0.5 {
		t.Fatalf("a file just written is %.2f in the page cache, want most of it", share)
	}
	if r, release := uncachedReader(f); r != io.Reader(f) {
		release()
		t.Fatal("a cached file was read around the page cache")
	}
	// Synced, its pages can be dropped.
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	if share := cachedShare(f, int64(len(want))); share >= 0.5 {
		t.Fatalf("after FADV_DONTNEED the file is %.2f in the page cache, want little", share)
	}
	r, release := uncachedReader(f)
	defer release()
	if _, direct := r.(*directReader); direct != directSupported(path) {
		t.Fatalf("an uncached file read with O_DIRECT %v, where the file system takes it %v", direct, directSupported(path))
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("uncached file read back %d bytes (%v), want the file's %d", len(got), err, len(want))
	}
}

// Split into lines straight from the chunks (ReadSlice), a file gives the
// lines it gives through a buffer: lines across a chunk's end, one longer
// than a chunk, one ending exactly at a chunk's end, and a last line with
// no newline.
func TestDirectLinesAreTheFilesLines(t *testing.T) {
	var text []byte
	rng := rand.New(rand.NewPCG(3, 5))
	for len(text) < 3*uncachedChunk {
		n := rng.IntN(5000)
		if rng.IntN(200) == 0 {
			n = uncachedChunk + rng.IntN(1000) // longer than a chunk
		}
		if room := uncachedChunk - len(text)%uncachedChunk; room > 1 && room < 5000 && rng.IntN(4) == 0 {
			n = room - 1 // its newline is a chunk's last byte
		}
		text = append(text, bytes.Repeat([]byte{'a' + byte(rng.IntN(26))}, n)...)
		text = append(text, '\n')
	}
	text = append(text, "last line, unterminated"...)
	path := writeSyncedFile(t, text)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, release := directOrPlain(f)
	defer release()
	if _, direct := r.(*directReader); direct != directSupported(path) {
		t.Fatalf("read with O_DIRECT %v, where the file system takes it %v", direct, directSupported(path))
	}
	direct := newLineParser(r, path, readBufferSize)
	buffered := newLineParser(bytes.NewReader(text), path, readBufferSize)
	for n := 1; ; n++ {
		got, gotErr := direct.nextLine()
		want, wantErr := buffered.nextLine()
		if gotErr != wantErr || !bytes.Equal(got, want) || direct.unterminated != buffered.unterminated {
			t.Fatalf("line %d: %d bytes (%v, unterminated %v), want %d bytes (%v, unterminated %v)",
				n, len(got), gotErr, direct.unterminated, len(want), wantErr, buffered.unterminated)
		}
		if wantErr == io.EOF {
			if n < 100 {
				t.Fatalf("only %d lines: the test file is too small", n)
			}
			return
		}
		if wantErr != nil {
			t.Fatal(wantErr)
		}
	}
}
