package checker

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/internal/histgen"
)

// Once paced, a Feed never queues more than its bound (plus the write in
// hand) however fast it is written, and still judges the whole history;
// unpaced, the same writes queue far more (the final state of a long run
// was held twice over).
func TestPacedFeedBoundsItsQueue(t *testing.T) {
	var b strings.Builder
	cfg := histgen.Default()
	cfg.Persists, cfg.Chats = 200000, 8
	if _, err := histgen.Generate(&b, cfg); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if len(text) < 4*pacedQueue {
		t.Fatalf("the history (%d bytes) is too small to test a %d-byte bound", len(text), pacedQueue)
	}
	const piece = 1 << 20
	for _, paced := range []bool{true, false} {
		feed := NewFeed("h.jsonl")
		if paced {
			feed.Pace()
		}
		most := 0
		for rest := text; len(rest) > 0; {
			n := min(len(rest), piece)
			if _, err := feed.Write([]byte(rest[:n])); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
			feed.mu.Lock()
			most = max(most, feed.queued)
			feed.mu.Unlock()
		}
		rep, _, err := feed.Check(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Valid == nil || !*rep.Valid || rep.Stats.Persists != cfg.Persists {
			t.Fatalf("paced %v: valid %v with %d persists, want a valid history of %d", paced, rep.Valid, rep.Stats.Persists, cfg.Persists)
		}
		switch {
		case paced && most > pacedQueue+piece:
			t.Fatalf("a paced feed queued %d bytes, over its bound %d", most, pacedQueue+piece)
		case !paced && most <= pacedQueue+piece:
			// Nothing waited, and the reader kept up: the test shows
			// nothing about the bound on this machine.
			t.Logf("unpaced feed queued at most %d bytes", most)
		}
	}
}
