package columns

import (
	"strings"
	"testing"
)

func TestNameArenaGivesBackEveryName(t *testing.T) {
	var a NameArena
	var names []string
	var refs []NameRef
	for i := range 200_000 {
		s := strings.Repeat("k", i%97) + string(rune('a'+i%26))
		if i%50_000 == 7 {
			s = strings.Repeat("long", nameBlock/3) // a block of its own
		}
		if i%1000 == 0 {
			s = ""
		}
		names = append(names, s)
		refs = append(refs, a.Add(s))
	}
	for i, r := range refs {
		if got := a.Get(r); got != names[i] {
			t.Fatalf("name %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got), got, len(names[i]), names[i])
		}
	}
	if len(a.blocks) < 3 {
		t.Fatalf("the test wants several blocks, got %d", len(a.blocks))
	}
}
