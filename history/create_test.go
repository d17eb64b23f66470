package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A history written over an old one is a new file, not the old one
// truncated: ext4 flushes a truncated file when it is closed.
func TestCreateReplacesAnOldHistoryRatherThanTruncatingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte("old history\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A reader still holding the old history keeps reading it whole.
	old, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new\n" {
		t.Fatalf("path holds %q (%v), want the new history", got, err)
	}
	kept := make([]byte, 64)
	n, _ := old.Read(kept)
	if string(kept[:n]) != "old history\n" {
		t.Fatalf("the old file was truncated in place: a reader of it sees %q", kept[:n])
	}
}

// Only a regular file is replaced: a device is opened as it is.
func TestCreateOpensADeviceInPlace(t *testing.T) {
	f, err := Create(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("discarded\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Fatalf("%s is gone: %v", os.DevNull, err)
	}
	info, _ := os.Stat(os.DevNull)
	if info.Mode().IsRegular() {
		t.Fatalf("%s became a regular file", os.DevNull)
	}
}

// A missing file is created; a path in a missing directory fails.
func TestCreateMakesANewFileAndReportsAMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "new.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Create(filepath.Join(dir, "missing", "h.jsonl")); err == nil {
		t.Fatal("a path in a missing directory was accepted")
	}
}

// A history that cannot be unlinked (its directory is not writable) is
// written over in place, as os.Create does, rather than refused.
func TestCreateWritesOverAHistoryItCannotUnlink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeFile = func(string) error { return os.ErrPermission }
	defer func() { removeFile = os.Remove }()
	f, err := Create(path)
	if err != nil {
		t.Fatalf("Create over a file it cannot unlink: %v", err)
	}
	f.WriteString("new\n")
	f.Close()
	if got, _ := os.ReadFile(path); string(got) != "new\n" {
		t.Fatalf("path holds %q, want the new history", got)
	}
}

// A recorder writing to a File has what it records reach the disk on its
// timer, without being flushed or closed: its header at once, its lines
// at the next tick, its end line when it ends. A File buffers until a
// checkpoint (around the cache, it writes whole blocks), so a killed run
// loses no more than its last tick's worth.
func TestRecorderOnAFileReachesTheDiskOnItsTimer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	onDisk := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rec, err := NewRecorder(f, Header{}, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	header := onDisk()
	if !strings.HasSuffix(header, "\n") || strings.Count(header, "\n") != 1 {
		t.Fatalf("the header is not on disk at once: %q", header)
	}
	rec.Record(&Event{Kind: KindInvoke, Process: 1, F: FPersist, Chat: "c", Key: "k"})
	deadline := time.Now().Add(10 * time.Second)
	for onDisk() == header {
		if time.Now().After(deadline) {
			t.Fatal("the recorder's timer never put the event on disk")
		}
		time.Sleep(time.Millisecond)
	}
	rec.Record(&Event{Kind: KindFail, Process: 1, F: FPersist})
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	h := mustRead(t, onDisk()) // before the File is closed
	if len(h.Events) != 2 || h.End == 0 {
		t.Fatalf("ended, the file holds %d events (end line %d): %q", len(h.Events), h.End, onDisk())
	}
}
