package checker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/histgen"
)

// replay records h's lines again with a recorder tapped by feed, at
// their own times, to path; end writes the end line (a complete run),
// else the history is left cut short after its first half of events.
func replay(t *testing.T, h *history.History, path string, feed *checker.Feed, end bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := history.NewTappedRecorder(f, h.Header, 0, feed.Tap())
	if err != nil {
		t.Fatal(err)
	}
	events := h.Events
	if !end {
		events = events[:len(events)/2]
	}
	for i := range events {
		rec.RecordAt(&events[i], events[i].Time)
	}
	if end {
		for chunk := range slices.Chunk(h.Finals, 700) {
			rec.RecordFinals(chunk)
		}
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil && end {
		t.Fatal(err)
	}
}

// A Feed, handed a history's lines by the recorder that writes them,
// judges exactly as CheckFile judges the file: valid, with a stale sync
// only linearizability sees, and cut short.
func TestFeedJudgesAsCheckFile(t *testing.T) {
	cfg := histgen.Default()
	cfg.Persists, cfg.Chats = 3000, 3
	valid := generated(t, cfg)
	cfg.Chats, cfg.Hot, cfg.StaleSync = 1, true, true
	stale := generated(t, cfg)
	for _, tt := range []struct {
		name string
		h    *history.History
		end  bool
		exit int
	}{
		{"valid", valid, true, 0},
		{"stale sync", stale, true, 1},
		{"cut short", valid, false, 3}, // its final state is not judged
	} {
		path := filepath.Join(t.TempDir(), "h.jsonl")
		feed := checker.NewFeed(path)
		replay(t, tt.h, path, feed, tt.end)
		got, read, err := feed.Check(checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := checker.CheckFile(path, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want.Stats.CheckMillis, got.Stats.CheckMillis = 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Feed and CheckFile differ:\n%+v\n%+v", tt.name, got, want)
		}
		if got.ExitCode() != tt.exit || read.File != path || read.CutShort() == tt.end {
			t.Fatalf("%s: exit %d, want %d; file %q, cut short %v", tt.name, got.ExitCode(), tt.exit, read.File, read.CutShort())
		}
	}
}

func generated(t *testing.T, cfg histgen.Config) *history.History {
	t.Helper()
	var b strings.Builder
	if _, err := histgen.Generate(&b, cfg); err != nil {
		t.Fatal(err)
	}
	h, err := history.Read(strings.NewReader(b.String()), "gen.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A history that cannot be read is Check's error, naming the line as
// CheckFile does, and the recorder is never held up by the reader having
// stopped.
func TestFeedBadHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	feed := checker.NewFeed(path)
	rec, err := history.NewTappedRecorder(f, history.Header{}, 0, feed.Tap())
	if err != nil {
		t.Fatal(err)
	}
	feed.Tap().Pace()
	rec.Record(&history.Event{Kind: history.KindOK, Process: 1, F: history.FPersist, Seq: 1, MessageID: "m"})
	fs := make([]history.Final, 1000)
	for i := range fs {
		fs[i] = history.Final{Table: history.TableCounters, Chat: "c", Value: 1}
	}
	for range 1000 {
		rec.RecordFinals(fs)
	}
	rec.End()
	_, _, err = feed.Check(checker.Options{})
	_, _, want := checker.CheckFile(path, checker.Options{})
	if err == nil || want == nil || err.Error() != want.Error() || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Fatalf("err = %v, want CheckFile's %v, naming bad.jsonl:2", err, want)
	}
}

// The hashes the Log asks the reader for are the ones it makes of strings:
// a sync read as hashes compares equal to the ids it interned from acks.
func TestHashIDIsStringHash(t *testing.T) {
	l := checker.NewLog()
	for _, id := range []string{"", "m", "chat-0001/42", strings.Repeat("é", 300)} {
		if got, want := l.HashID([]byte(id)), checker.StringHashForTest(id); got != want {
			t.Fatalf("HashID(%q) = %d, stringHash = %d", id, got, want)
		}
	}
}

// A Feed whose Log spills every full block it can (the run's records to a
// file beside the history, read back when a line reaches back to them and
// all at the end) judges exactly as CheckFile judges the file: operations,
// message ids, keys, first acks and sync answers all went to disk and came
// back. Without the spill nothing is written, and the test fails.
func TestFeedSpilledJudgesAsCheckFile(t *testing.T) {
	cfg := histgen.Default()
	cfg.Persists, cfg.Chats, cfg.Partitions = 40_000, 3, 2
	if checker.RaceDetectorOn {
		cfg.Persists = 16_000 // still spills over a megabyte
	}
	valid := generated(t, cfg)
	cfg.Chats, cfg.Hot, cfg.StaleSync, cfg.Partitions = 1, true, true, 0
	stale := generated(t, cfg)
	for _, keep := range []int{0, 1} {
		restore := checker.SpillKeepForTest(keep)
		for _, tt := range []struct {
			name string
			h    *history.History
			exit int
		}{
			{"valid", valid, 0},
			{"stale sync", stale, 1},
		} {
			dir := t.TempDir()
			path := filepath.Join(dir, "h.jsonl")
			feed := checker.NewFeed(path)
			replay(t, tt.h, path, feed, true)
			got, _, err := feed.Check(checker.Options{})
			if err != nil {
				t.Fatal(err)
			}
			spilled, readBack := feed.SpilledForTest()
			want, _, err := checker.CheckFile(path, checker.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want.Stats.CheckMillis, got.Stats.CheckMillis = 0, 0
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("keep %d, %s: spilled Feed and CheckFile differ:\n%+v\n%+v", keep, tt.name, got, want)
			}
			if got.ExitCode() != tt.exit {
				t.Fatalf("keep %d, %s: exit %d, want %d", keep, tt.name, got.ExitCode(), tt.exit)
			}
			if spilled < 1<<20 || readBack < spilled {
				t.Fatalf("keep %d, %s: %d bytes spilled, %d read back: want over 1 MB, all of it read back", keep, tt.name, spilled, readBack)
			}
			// The spill file was removed as soon as it was made.
			if files, _ := os.ReadDir(dir); len(files) != 1 {
				t.Fatalf("keep %d, %s: %d files beside the history, want it alone", keep, tt.name, len(files))
			}
		}
		restore()
	}
}

// A key answered twice with two sequences is told to the online check's
// notify while the run goes, once the recorder's write that holds it
// reaches the tap: its keys are judged a batch at a time, and a small
// write (a run going slowly, or its last before a stall) ends the batch.
func TestFeedTellsAKeyViolationWhileTheRunGoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	told := make(chan checker.Violation, 8)
	online := checker.NewOnline(func(v checker.Violation) { told <- v })
	feed := checker.NewOnlineFeed(path, online)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := history.NewTappedRecorder(f, history.Header{Target: "memory"}, 10*time.Millisecond, feed.Tap())
	if err != nil {
		t.Fatal(err)
	}
	for i, seq := range []uint64{1, 2} {
		rec.Record(&history.Event{Kind: history.KindInvoke, Process: 1, F: history.FPersist, Chat: "c", Key: "k", Sender: "u"})
		rec.Record(&history.Event{Kind: history.KindOK, Process: 1, F: history.FPersist, Chat: "c", Key: "k", Seq: seq, MessageID: fmt.Sprint("m", i)})
	}
	select {
	case v := <-told:
		if v.Invariant != checker.NameIdempotencyGuarantee || !slices.Equal(v.Lines, []int{3, 5}) {
			t.Errorf("told %+v; want idempotency_guarantee at lines 3 and 5", v)
		}
	case <-time.After(time.Minute):
		t.Error("the violation was not told while the run went")
	}
	rec.Close()
	feed.Discard()
}
