package linearize

import (
	"fmt"
	"sync/atomic"
)

// MaxDrawings is how many failing chats one check draws: a drawing asks
// porcupine to find the counterexample again around it, up to seconds a
// chat, and a broken run fails every chat (a 10 s racy-counter run spent
// 77 s drawing 35 of its 64). A few show the failure; the rest add time.
const MaxDrawings = 4

// Drawings is where failing chats are drawn (porcupine's HTML view), and
// how many more may be. A nil *Drawings draws nothing.
type Drawings struct {
	Dir  string
	left atomic.Int32
}

// NewDrawings draws up to max chats into dir; nil when dir is "".
func NewDrawings(dir string, max int) *Drawings {
	if dir == "" {
		return nil
	}
	d := &Drawings{Dir: dir}
	d.left.Store(int32(max))
	return d
}

// take reports whether one more chat may be drawn, counting it; else
// the note to give instead.
func (d *Drawings) take() (ok bool, note string) {
	if d == nil {
		return false, ""
	}
	if d.left.Add(-1) >= 0 {
		return true, ""
	}
	return false, fmt.Sprintf(" (not drawn: a check draws at most %d failing chats, the first it decides whose counterexample porcupine can show; the drawings made are in the visualization folder)", MaxDrawings)
}

// giveBack returns a slot take gave for a chat that could not be drawn
// (porcupine found its window linearizable on its own), so that another
// failing chat is drawn in its place: a check that tried four such
// chats drew nothing while every other chat said it was not drawn.
func (d *Drawings) giveBack() {
	if d != nil {
		d.left.Add(1)
	}
}
