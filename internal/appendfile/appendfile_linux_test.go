//go:build linux

package appendfile

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// create makes a new file at path and its appender, which the test
// requires; closing the appender closes the file too.
func create(t testing.TB, path string) *testFile {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	a := Open(f, path)
	if a == nil {
		t.Fatal("this system writes no file around the cache (TestAppendersWhereTheSystemCan says why)")
	}
	return &testFile{Appender: a, f: f}
}

type testFile struct {
	*Appender
	f *os.File
}

func (t *testFile) Close() error {
	err := t.Appender.Close()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// streamLine is line i of a test's stream: numbered, of varied length, so
// a hole, a repeat or a misplaced chunk shows.
func streamLine(i int) []byte {
	return fmt.Appendf(nil, "%09d %s\n", i, strings.Repeat(string(rune('a'+i%26)), (i*7919)%900))
}

// An appender's file holds what it was given, in order, whatever the sizes of
// the writes (a byte, a line, many chunks at once) and wherever the
// checkpoints fall; and after each checkpoint the file on disk is
// exactly what was written so far.
func TestAppenderFileHoldsExactlyWhatWasWrittenAtEachCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	f := create(t, path)
	rng := rand.New(rand.NewPCG(1, 2))
	var want []byte
	line := 0
	for round := range 60 {
		// Up to three chunks' worth at once, in writes of random sizes.
		var p []byte
		for len(p) < rng.IntN(3*directChunkSize) {
			p = append(p, streamLine(line)...)
			line++
		}
		for len(p) > 0 {
			n := min(len(p), 1+rng.IntN(1<<uint(rng.IntN(22))))
			if _, err := f.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			want, p = append(want, p[:n]...), p[n:]
		}
		if round%3 == 0 {
			if err := f.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			requireHolds(t, path, want, fmt.Sprintf("round %d: after a checkpoint", round))
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	requireHolds(t, path, want, "closed")
}

// requireHolds fails t unless the file at path holds exactly want.
func requireHolds(t *testing.T, path string, want []byte, when string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s, the file holds %d bytes (%s), want the %d written", when, len(got), firstDifference(got, want), len(want))
	}
}

func firstDifference(got, want []byte) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at byte %d", i)
		}
	}
	return "one is a prefix of the other"
}

// Where the file system and the kernel write around the cache, Open
// gives an appender: checked here by trying both apart from this
// package's code, so an Open that always declined would fail.
func TestAppendersWhereTheSystemCan(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	fd, err := unix.Open(probe, unix.O_CREAT|unix.O_WRONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0o644)
	canDirect := err == nil
	if canDirect {
		buf, merr := unix.Mmap(-1, 0, directBlock, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if merr != nil {
			t.Fatal(merr)
		}
		_, werr := unix.Pwrite(fd, buf, 0)
		canDirect = werr == nil
		unix.Munmap(buf)
		unix.Close(fd)
	}
	var p struct{ b [120]byte }
	ringFD, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 2, uintptr(unsafe.Pointer(&p)), 0)
	canRing := errno == 0
	if canRing {
		unix.Close(int(ringFD))
	}
	path := filepath.Join(dir, "h.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := Open(f, path)
	if a != nil {
		defer a.Close()
	}
	if got, want := a != nil, canDirect && canRing; got != want {
		t.Fatalf("an appender: %v, but this system takes O_DIRECT writes: %v, and io_uring: %v", got, canDirect, canRing)
	}
	t.Logf("O_DIRECT %v, io_uring %v: a history here is written %s", canDirect, canRing, map[bool]string{true: "around the cache", false: "through the cache"}[a != nil])
	if a == nil {
		return
	}
	// A file with something in it already, or no regular file, gets none.
	if _, err := f.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	if Open(f, path) != nil {
		t.Fatal("an appender for a file that is not empty")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if Open(null, os.DevNull) != nil {
		t.Fatal("an appender for a device")
	}
}

// A direct write that fails (here its descriptor is closed behind the
// appender's back, as a file system refusing O_DIRECT midway would fail
// it) is written again through the cache, with everything after it: the
// file still holds all that was written, in order.
func TestAppenderFallsBackToTheCacheWhenADirectWriteFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	f := create(t, path)
	var want []byte
	write := func(lines int, from int) int {
		for range lines {
			l := streamLine(from)
			from++
			if _, err := f.Write(l); err != nil {
				t.Fatal(err)
			}
			want = append(want, l...)
		}
		return from
	}
	next := write(5000, 0) // a few chunks, some written directly
	if err := f.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	f.direct.Close() // the next direct write fails
	next = write(8000, next)
	if !f.fellBack {
		t.Fatal("a failed direct write went unnoticed")
	}
	write(100, next)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	requireHolds(t, path, want, "after falling back")
}

// A process killed while it appends leaves a prefix of what it wrote, at
// least all it had checkpointed: never a hole, never stray bytes. The
// child writes the stream, checkpointing now and then and saying so on
// its output; the parent kills it at a random moment.
func TestAppenderKilledMidwayLeavesAPrefixWithEveryCheckpoint(t *testing.T) {
	if os.Getenv("CHATSEQ_FILE_KILL_CHILD") != "" {
		writeUntilKilled(os.Getenv("CHATSEQ_FILE_KILL_CHILD"))
		return
	}
	for try := range 6 {
		path := filepath.Join(t.TempDir(), "h.jsonl")
		cmd := exec.Command(os.Args[0], "-test.run", "^TestAppenderKilledMidwayLeavesAPrefixWithEveryCheckpoint$")
		cmd.Env = append(os.Environ(), "CHATSEQ_FILE_KILL_CHILD="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random number of checkpoints, mid-write.
		sc := bufio.NewScanner(out)
		checkpointed, seen := int64(0), 0
		stopAt := 3 + try*4
		for sc.Scan() {
			if n, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "checkpoint "), 10, 64); err == nil {
				checkpointed = n
				if seen++; seen == stopAt {
					time.Sleep(time.Duration(try) * time.Millisecond)
					break
				}
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if seen < stopAt {
			t.Fatalf("the child stopped after %d checkpoints, before it was killed", seen)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for i := 0; len(want) < len(got); i++ {
			want = append(want, streamLine(i)...)
		}
		if !bytes.Equal(got, want[:len(got)]) {
			t.Fatalf("try %d: the killed writer's file (%d bytes) is not a prefix of its stream: %s", try, len(got), firstDifference(got, want))
		}
		if int64(len(got)) < checkpointed {
			t.Fatalf("try %d: the killed writer's file holds %d bytes, but %d were checkpointed", try, len(got), checkpointed)
		}
		t.Logf("try %d: killed after %d checkpoints (%d bytes): the file holds %d bytes", try, seen, checkpointed, len(got))
	}
}

// writeUntilKilled writes the stream to path for ever, checkpointing
// every few hundred lines and printing how much it had then written.
func writeUntilKilled(path string) {
	plain, err := os.Create(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	f := Open(plain, path)
	if f == nil {
		fmt.Println("error: no appender")
		os.Exit(1)
	}
	written := 0
	for i := 0; ; i++ {
		l := streamLine(i)
		if _, err := f.Write(l); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		written += len(l)
		if i%700 == 699 {
			if err := f.Checkpoint(); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Println("checkpoint", written)
		}
	}
}

// ReadAt gives back what was written wherever it is: on disk (read around
// the cache), in a chunk being written or filled, or across both; and
// after a fall back, from the file through the cache.
func TestAppenderReadsBackWhatItWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spill")
	f := create(t, path)
	defer f.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var want []byte
	check := func(when string) {
		for range 40 {
			off := rng.IntN(len(want))
			n := rng.IntN(min(len(want)-off, 3*directChunkSize) + 1)
			if rng.IntN(4) == 0 { // near the newest bytes, often in memory
				off = max(0, len(want)-n-rng.IntN(directBlock))
			}
			got := make([]byte, n)
			if k, err := f.ReadAt(got, int64(off)); err != nil || k != n {
				t.Fatalf("%s: ReadAt(%d bytes at %d) = %d, %v", when, n, off, k, err)
			}
			if !bytes.Equal(got, want[off:off+n]) {
				t.Fatalf("%s: %d bytes at %d read back wrong (%s)", when, n, off, firstDifference(got, want[off:off+n]))
			}
		}
		if _, err := f.ReadAt(make([]byte, 2), int64(len(want)-1)); err == nil {
			t.Fatalf("%s: a read past what was written was taken", when)
		}
	}
	line := 0
	rounds := 40
	if raceEnabled {
		rounds = 10
	}
	for round := range rounds {
		for target := len(want) + rng.IntN(2*directChunkSize); len(want) < target; line++ {
			l := streamLine(line)
			if _, err := f.Write(l); err != nil {
				t.Fatal(err)
			}
			want = append(want, l...)
		}
		if round%5 == 4 {
			if err := f.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
		check(fmt.Sprintf("round %d", round))
	}
	if f.base == 0 {
		t.Fatal("nothing reached the disk: the reads were all from memory")
	}
	f.direct.Close() // the next direct write fails: reads go through the cache
	for range 3000 {
		l := streamLine(line)
		line++
		f.Write(l)
		want = append(want, l...)
	}
	if !f.fellBack {
		t.Fatal("a failed direct write went unnoticed")
	}
	check("fallen back")
}
