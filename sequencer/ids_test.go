package sequencer

import (
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// Ids are the prefix and a ULID that carries the given time, all distinct;
// a prefix longer than the inline buffer still works.
func TestIDsAreUniqueULIDsWithTheirTime(t *testing.T) {
	src := newIDSource()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for _, prefix := range []string{"msg_", "evt_", "", "a-prefix-longer-than-eight_"} {
		for range 20000 {
			id := src.next(prefix, now)
			if seen[id] {
				t.Fatalf("%s handed out twice", id)
			}
			seen[id] = true
			rest, ok := strings.CutPrefix(id, prefix)
			if !ok {
				t.Fatalf("%s lacks the prefix %q", id, prefix)
			}
			u, err := ulid.ParseStrict(rest)
			if err != nil {
				t.Fatalf("%s: not a ULID after the prefix: %v", id, err)
			}
			if got := ulid.Time(u.Time()); !got.Equal(now) {
				t.Fatalf("%s carries %s, want %s", id, got, now)
			}
		}
	}
}
