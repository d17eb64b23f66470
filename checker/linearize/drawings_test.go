package linearize

import (
	"strings"
	"testing"
)

// A slot given back (a chat whose window porcupine found linearizable on
// its own, so nothing was drawn) goes to the next failing chat: a check
// draws MaxDrawings chats when it can, not MaxDrawings attempts. Without
// giveBack, the fifth take is refused.
func TestADrawingNotMadeLeavesItsSlotToTheNext(t *testing.T) {
	d := NewDrawings(t.TempDir(), MaxDrawings)
	for range MaxDrawings {
		if ok, _ := d.take(); !ok {
			t.Fatal("a slot of the first MaxDrawings refused")
		}
	}
	d.giveBack()
	if ok, _ := d.take(); !ok {
		t.Fatal("the slot given back was not taken again")
	}
	ok, note := d.take()
	if ok || !strings.Contains(note, "at most 4 failing chats") {
		t.Fatalf("past the limit: %v %q", ok, note)
	}
	var none *Drawings
	none.giveBack() // no drawings: nothing to give back, no panic
}
