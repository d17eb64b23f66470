package jsonambig

import (
	"math/rand/v2"
	"testing"
)

func TestCaseTwin(t *testing.T) {
	for _, c := range []struct {
		key, name string
		twin      bool
	}{
		{"Sequence", "sequence", true},
		{"SEQUENCE", "sequence", true},
		{"ſequence", "sequence", true}, // U+017F folds to s
		{"\u212Aey", "key", true},      // the Kelvin sign folds to k
		{"sequence", "sequence", false},
		{"sequences", "sequence", false},
		{"chat_ıd", "chat_id", false}, // the dotless ı folds to no i
		{"", "sequence", false},
	} {
		if got := CaseTwin(c.key, c.name) != ""; got != c.twin {
			t.Errorf("CaseTwin(%q, %q): %v, want %v", c.key, c.name, got, c.twin)
		}
	}
}

// PlainlyNoTwin is the hot paths' shortcut past CaseTwin: where it says a
// name is plainly no twin, CaseTwin finds none, for names of ASCII
// letters in both cases, digits, escapes and the letters that fold into
// ASCII from outside it.
func TestPlainlyNoTwinNeverHidesATwin(t *testing.T) {
	alphabet := []string{"s", "S", "k", "K", "_", "1", "ſ", "\u212A", "\\", "é", "e", "E"}
	word := func(r *rand.Rand) string {
		w := ""
		for range r.IntN(5) {
			w += alphabet[r.IntN(len(alphabet))]
		}
		return w
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		key, name := word(r), word(r)
		if PlainlyNoTwin([]byte(key), name) && CaseTwin(key, name) != "" {
			t.Fatalf("PlainlyNoTwin(%q, %q) hides a twin", key, name)
		}
	}
	if !PlainlyNoTwin([]byte("content"), "sequence") || !PlainlyNoTwin([]byte("sequence"), "sequence") || PlainlyNoTwin([]byte("Sequence"), "sequence") {
		t.Fatal("PlainlyNoTwin does not tell plain ASCII names apart")
	}
}
