package checker_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/histgen"
)

// A Feed, written the history's bytes in pieces of any size as a recorder
// writes them, judges exactly as CheckFile judges the file: valid, with a
// stale sync only linearizability sees, cut short, and cut mid-line.
func TestFeedJudgesAsCheckFile(t *testing.T) {
	var b strings.Builder
	cfg := histgen.Default()
	cfg.Persists, cfg.Chats = 3000, 3
	if _, err := histgen.Generate(&b, cfg); err != nil {
		t.Fatal(err)
	}
	valid := b.String()
	b.Reset()
	cfg.Chats, cfg.Hot, cfg.StaleSync = 1, true, true
	if _, err := histgen.Generate(&b, cfg); err != nil {
		t.Fatal(err)
	}
	stale := b.String()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name, text string
		exit       int
	}{
		{"valid", valid, 0},
		{"stale sync", stale, 1},
		{"cut in the middle of a line", valid[:len(valid)/2+7], 0},
	} {
		path := filepath.Join(t.TempDir(), "h.jsonl")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		want, _, err := checker.CheckFile(path, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		feed := checker.NewFeed(path)
		for rest := tt.text; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(70000))
			if k, err := feed.Write([]byte(rest[:n])); k != n || err != nil {
				t.Fatalf("%s: Write: %d, %v", tt.name, k, err)
			}
			rest = rest[n:]
		}
		got, read, err := feed.Check(checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want.Stats.CheckMillis, got.Stats.CheckMillis = 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Feed and CheckFile differ:\n%+v\n%+v", tt.name, got, want)
		}
		if got.ExitCode() != tt.exit || read.File != path {
			t.Fatalf("%s: exit %d, want %d; file %q", tt.name, got.ExitCode(), tt.exit, read.File)
		}
		if _, err := feed.Write([]byte("x")); err == nil {
			t.Fatalf("%s: a write after Check was accepted", tt.name)
		}
	}
}

// A history that cannot be read is Check's error, and the writer is never
// held up by the reader having stopped.
func TestFeedBadHistory(t *testing.T) {
	feed := checker.NewFeed("bad.jsonl")
	if _, err := feed.Write([]byte("not json\n")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := feed.Write([]byte(strings.Repeat("y", 1000) + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := feed.Check(checker.Options{})
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Fatalf("err = %v, want one naming bad.jsonl:1", err)
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
