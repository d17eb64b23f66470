//go:build linux

package uring

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A ring writes what it is given where it is told, reports each write's
// result under its tag, holds no more writes than it has entries, and
// reports a write that fails (a bad descriptor) as a negated errno.
func TestRingWritesReapsAndReportsFailures(t *testing.T) {
	r, err := New(2)
	if err != nil {
		t.Fatalf("io_uring on this machine: %v", err)
	}
	defer r.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Mapped memory: the collector never moves it.
	buf, err := unix.Mmap(-1, 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(buf)
	copy(buf, "first ")
	copy(buf[4096:], "second")
	if err := r.Write(int(f.Fd()), buf[4096:4102], 6, 2); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(int(f.Fd()), buf[:6], 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(int(f.Fd()), buf[:1], 0, 3); !errors.Is(err, ErrFull) {
		t.Fatalf("a third write on a ring of two: %v, want ErrFull", err)
	}
	results := reapAll(t, r, 2)
	if results[1] != 6 || results[2] != 6 {
		t.Fatalf("results by tag: %v, want 6 bytes each", results)
	}
	if got, _ := os.ReadFile(f.Name()); !bytes.Equal(got, []byte("first second")) {
		t.Fatalf("the file holds %q", got)
	}
	if err := r.Write(-1, buf[:6], 0, 9); err != nil {
		t.Fatal(err)
	}
	if res := reapAll(t, r, 1)[9]; res != -int32(unix.EBADF) {
		t.Fatalf("a write to a bad descriptor: %d, want -EBADF", res)
	}
	if r.InFlight() != 0 {
		t.Fatalf("%d writes still in flight", r.InFlight())
	}
}

func reapAll(t *testing.T, r *Ring, n int) map[uint64]int32 {
	t.Helper()
	got := map[uint64]int32{}
	deadline := time.Now().Add(30 * time.Second)
	for len(got) < n {
		if tag, res, ok := r.Reap(); ok {
			got[tag] = res
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("reaped %d of %d writes", len(got), n)
		}
		time.Sleep(time.Millisecond)
	}
	return got
}
