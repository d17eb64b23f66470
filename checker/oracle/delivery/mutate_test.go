package delivery

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// A mutation edits a correct history so that it may break one delivery
// rule (or, for a few, so that it tests a rule's exception: a push to a
// former member in flight, a repeated frame, a skip across a leave, a row
// below an ack lost in flight, a replay-only message whose key's persists
// disagree). It reports whether it found a place to act.
// Mutations keep the reader's structural rules where they can: lines are
// inserted where a connection is open, inserted lines take the time of
// the line before them, and a table's table_read count follows its
// lines. Whatever they still break, the reader rejects and the
// cross-check counts.
type mutation struct {
	name  string
	apply func(r *rand.Rand, d *doc) bool
}

var mutations = []mutation{
	{"drop a push line", dropPushLine},
	{"drop one message of a push", dropPushEntry},
	{"swap two messages of a push", swapPushEntries},
	{"swap two streamed frames", swapStreamedFrames},
	{"push to a user never a member", pushToNonMember},
	{"push before the user joins", pushBeforeJoin},
	{"push to a former member", pushToFormerMember},
	{"push streamed on a connection opened after a leave", pushAfterLeaveNewConnection},
	{"push on a refused connection", pushOnRefused},
	{"ack ahead of what was pushed", ackAhead},
	{"drop an ack", dropAck},
	{"ack a sequence from before the run", ackBeforeRun},
	{"delivery_state row too high", rowTooHigh},
	{"delivery_state row too low", rowTooLow},
	{"delivery_state row missing", rowMissing},
	{"delivery_state row duplicated", rowDuplicated},
	{"delivery_state row for nobody's ack", rowExtra},
	{"delivery_state row below an ack lost in flight", rowBelowLostAck},
	{"message held back until settle", holdBackUntilSettle},
	{"a live connection's chat only caught up", neverStreamed},
	{"skip on a live connection, caught up later", skipThenCatchUp},
	{"skip across a leave and a rejoin", skipAcrossMembership},
	{"contiguous across a leave and a rejoin, a copy ahead", copyAcrossMembership},
	{"swapped payload hash", swapPayloadHash},
	{"forged sender", forgeSender},
	{"replay-only message pushed with other content", replayOnlyOtherContent},
	{"replay-only message's key resent with other content", replayKeyResentOther},
	{"pushed under another message id", wrongMessageID},
	{"push a message no one wrote", pushGhost},
	{"push an unknown message from before the run", pushGhostBeforeRun},
	{"push a message at a sequence nothing holds", pushOutOfPlace},
	{"repeat a streamed frame", repeatFrame},
	{"topic holds an extra copy", topicExtraCopy},
	{"topic lost an event", dropEvent},
	{"drop a membership", dropJoin},
	{"drop every join and leave", dropAllMembership},
	{"final message under another id", finalMessageWrongID},
	{"a read as some user, answered", readAs(true)},
	{"a read as some user, refused", readAs(false)},
	{"a delivery_state read by a non-member, answered", stateReadByNonMember},
	{"a delivery_state read before its chat's first join, answered", stateReadBeforeJoins},
	{"a refused delivery_state read answered", answerRefusedStateRead},
}

// mutate applies up to two random mutations.
func mutate(r *rand.Rand, d *doc) []string {
	var applied []string
	n := []int{0, 0, 1, 1, 1, 1, 2}[r.IntN(7)]
	for tries := 0; len(applied) < n && tries < 20; tries++ {
		m := mutations[r.IntN(len(mutations))]
		if m.apply(r, d) {
			applied = append(applied, m.name)
		}
	}
	return applied
}

// --- helpers ---

func indexes(d *doc, keep func(i int, l line) bool) []int {
	var out []int
	for i, l := range d.lines {
		if keep(i, l) {
			out = append(out, i)
		}
	}
	return out
}

func pickOne(r *rand.Rand, s []int) (int, bool) {
	if len(s) == 0 {
		return 0, false
	}
	return s[r.IntN(len(s))], true
}

// insert puts l before d.lines[i], stamped with the previous line's time
// (final lines carry none).
func insert(d *doc, i int, l line) {
	switch {
	case l.Type == tFinal:
		l.Time = 0
	case i > 0:
		l.Time = d.lines[i-1].Time
	default:
		l.Time = d.lines[0].Time
	}
	d.lines = append(d.lines, line{})
	copy(d.lines[i+1:], d.lines[i:])
	d.lines[i] = l
}

func remove(d *doc, i int) {
	d.lines = append(d.lines[:i], d.lines[i+1:]...)
}

// bumpTableRead moves a table's promised line count with its lines.
func bumpTableRead(d *doc, table string, delta int) {
	for i := range d.lines {
		if d.lines[i].Type == tTableRead && d.lines[i].Table == table {
			d.lines[i].Lines = u64(uint64(int(val(d.lines[i].Lines)) + delta))
		}
	}
}

// removeEntry drops the k-th message of a push line, in every array.
func removeEntry(l *line, k int) {
	l.Seqs = append(l.Seqs[:k], l.Seqs[k+1:]...)
	l.MessageIDs = append(l.MessageIDs[:k], l.MessageIDs[k+1:]...)
	if l.PayloadHashes != nil {
		l.PayloadHashes = append(l.PayloadHashes[:k], l.PayloadHashes[k+1:]...)
	}
	if l.Senders != nil {
		l.Senders = append(l.Senders[:k], l.Senders[k+1:]...)
	}
}

// entryLine is a push line of one message: the k-th of l.
func entryLine(l line, k int, catchUp bool) line {
	e := line{Type: tPush, Device: l.Device, Chat: l.Chat, CatchUp: catchUp,
		Seqs: []uint64{l.Seqs[k]}, MessageIDs: []string{l.MessageIDs[k]}}
	if l.PayloadHashes != nil {
		e.PayloadHashes = []string{l.PayloadHashes[k]}
	}
	if l.Senders != nil {
		e.Senders = []string{l.Senders[k]}
	}
	return e
}

// messageOf is a push line of one acknowledged message of chat, or false
// when the chat has none.
func messageOf(r *rand.Rand, d *doc, chat, device string, catchUp bool) (line, bool) {
	var cands []ack
	for _, a := range newFacts(*d).acks {
		if a.chat == chat {
			cands = append(cands, a)
		}
	}
	if len(cands) == 0 {
		return line{}, false
	}
	a := cands[r.IntN(len(cands))]
	return line{Type: tPush, Device: device, Chat: chat, CatchUp: catchUp, Seqs: []uint64{a.seq}, MessageIDs: []string{a.id}}, true
}

func chatsOf(d *doc) []string { return newFacts(*d).chats() }

// openSpots lists (connection, index) where an accepted (or, with
// refused, a refused) connection is open just before index, among the
// operation and receiver lines (none may follow a final line).
func openSpots(d *doc, refused bool) [][2]int {
	f := newFacts(*d)
	limit := len(d.lines)
	for i, l := range d.lines {
		if l.Type == tFinal || l.Type == tTableRead || l.Type == tEnd {
			limit = i
			break
		}
	}
	var out [][2]int
	for ci, c := range f.conns {
		if c.refused != refused {
			continue
		}
		for i := c.open + 1; i <= c.close && i <= limit; i++ {
			out = append(out, [2]int{ci, i})
		}
	}
	return out
}

// --- pushes ---

func dropPushLine(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush }))
	if ok {
		remove(d, i)
	}
	return ok
}

func dropPushEntry(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush && len(l.Seqs) > 1 }))
	if ok {
		removeEntry(&d.lines[i], r.IntN(len(d.lines[i].Seqs)))
	}
	return ok
}

func swapPushEntries(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush && len(l.Seqs) > 1 }))
	if !ok {
		return false
	}
	l := &d.lines[i]
	j := r.IntN(len(l.Seqs) - 1)
	k := j + 1 + r.IntN(len(l.Seqs)-j-1)
	l.Seqs[j], l.Seqs[k] = l.Seqs[k], l.Seqs[j]
	l.MessageIDs[j], l.MessageIDs[k] = l.MessageIDs[k], l.MessageIDs[j]
	if l.PayloadHashes != nil {
		l.PayloadHashes[j], l.PayloadHashes[k] = l.PayloadHashes[k], l.PayloadHashes[j]
	}
	if l.Senders != nil {
		l.Senders[j], l.Senders[k] = l.Senders[k], l.Senders[j]
	}
	return true
}

// swapStreamedFrames swaps the messages (not the times) of two streamed
// frames of one chat on one connection.
func swapStreamedFrames(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	var pairs [][2]int
	for i, a := range d.lines {
		if a.Type != tPush || a.CatchUp {
			continue
		}
		for j := i + 1; j < len(d.lines); j++ {
			b := d.lines[j]
			if b.Type == tPush && !b.CatchUp && b.Device == a.Device && b.Chat == a.Chat && f.connAt(a.Device, i) == f.connAt(b.Device, j) {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	if len(pairs) == 0 {
		return false
	}
	p := pairs[r.IntN(len(pairs))]
	a, b := &d.lines[p[0]], &d.lines[p[1]]
	a.Seqs, b.Seqs = b.Seqs, a.Seqs
	a.MessageIDs, b.MessageIDs = b.MessageIDs, a.MessageIDs
	a.PayloadHashes, b.PayloadHashes = b.PayloadHashes, a.PayloadHashes
	a.Senders, b.Senders = b.Senders, a.Senders
	return true
}

// pushToNonMember streams a real message of a chat to a device whose user
// never joins that chat.
func pushToNonMember(r *rand.Rand, d *doc) bool {
	spots := openSpots(d, false)
	if len(spots) == 0 {
		return false
	}
	f := newFacts(*d)
	s := spots[r.IntN(len(spots))]
	c := f.conns[s[0]]
	for _, chat := range chatsOf(d) {
		if f.joinedBefore(chat, c.user, len(d.lines)) {
			continue
		}
		if l, ok := messageOf(r, d, chat, c.device, r.IntN(3) == 0); ok {
			insert(d, s[1], l)
			return true
		}
	}
	return false
}

// pushBeforeJoin streams a message of a chat to a device of a user before
// the user's first join of it ("no join of the chat before the push").
func pushBeforeJoin(r *rand.Rand, d *doc) bool {
	spots := openSpots(d, false)
	if len(spots) == 0 {
		return false
	}
	f := newFacts(*d)
	s := spots[r.IntN(len(spots))]
	c := f.conns[s[0]]
	for _, chat := range chatsOf(d) {
		if f.joinedBefore(chat, c.user, s[1]) || !f.joinedBefore(chat, c.user, len(d.lines)) {
			continue
		}
		if l, ok := messageOf(r, d, chat, c.device, false); ok {
			insert(d, s[1], l)
			return true
		}
	}
	return false
}

// pushToFormerMember streams a message of a chat to a device whose user
// has left it, on a connection opened before the leave: "may have been in
// flight (counted, not failed)".
func pushToFormerMember(r *rand.Rand, d *doc) bool {
	spots := openSpots(d, false)
	if len(spots) == 0 {
		return false
	}
	f := newFacts(*d)
	s := spots[r.IntN(len(spots))]
	c := f.conns[s[0]]
	for _, chat := range chatsOf(d) {
		if !f.joinedBefore(chat, c.user, s[1]) || f.memberAt(chat, c.user, s[1]) || c.open > f.lastLeaveBefore(chat, c.user, s[1]) {
			continue
		}
		if l, ok := messageOf(r, d, chat, c.device, false); ok {
			insert(d, s[1], l)
			return true
		}
	}
	return false
}

// pushAfterLeaveNewConnection pushes a message of a chat to a device
// whose user left it, on a connection opened after the leave with no
// join since: streamed it fails ("unless it was streamed on a connection
// opened after the leave"), a catch-up page (a third of the time) is in
// flight.
func pushAfterLeaveNewConnection(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	var cands [][3]int // connection, index, chat
	chats := chatsOf(d)
	for _, s := range openSpots(d, false) {
		c := f.conns[s[0]]
		for k, chat := range chats {
			if !f.memberAt(chat, c.user, s[1]) && f.joinedBefore(chat, c.user, s[1]) && c.open > f.lastLeaveBefore(chat, c.user, s[1]) {
				cands = append(cands, [3]int{s[0], s[1], k})
			}
		}
	}
	if len(cands) == 0 {
		return false
	}
	x := cands[r.IntN(len(cands))]
	l, ok := messageOf(r, d, chats[x[2]], f.conns[x[0]].device, r.IntN(3) == 0)
	if ok {
		insert(d, x[1], l)
	}
	return ok
}

// pushOnRefused pushes a message of a chat its user has joined while a
// connection whose identity was refused is open: streamed on it (fails),
// or (a third of the time) as a catch-up page, which "is fetched apart,
// not on the connection" (passes).
func pushOnRefused(r *rand.Rand, d *doc) bool {
	spots := openSpots(d, true)
	if len(spots) == 0 {
		return false
	}
	f := newFacts(*d)
	s := spots[r.IntN(len(spots))]
	c := f.conns[s[0]]
	for _, chat := range chatsOf(d) {
		if !f.joinedBefore(chat, c.user, s[1]) {
			continue
		}
		if l, ok := messageOf(r, d, chat, c.device, r.IntN(3) == 0); ok {
			insert(d, s[1], l)
			return true
		}
	}
	return false
}

// --- acknowledgements and delivery_state ---

func ackAhead(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tAck }))
	if !ok {
		return false
	}
	f := newFacts(*d)
	hi := max(f.highestPushed(d.lines[i].Device, d.lines[i].Chat, i), f.initial)
	d.lines[i].LastAcked = u64(hi + 1 + uint64(r.IntN(3)))
	return true
}

// ackBeforeRun acknowledges a sequence at or below initial_counter that
// the device was never pushed: it runs ahead only "above the highest
// sequence of the chat pushed to the device before it and
// initial_counter".
func ackBeforeRun(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	if f.initial == 0 {
		return false
	}
	i, ok := pickOne(r, indexes(d, func(i int, l line) bool {
		return l.Type == tAck && f.highestPushed(l.Device, l.Chat, i) < f.initial
	}))
	if !ok {
		return false
	}
	l := d.lines[i]
	d.lines[i].LastAcked = u64(f.highestPushed(l.Device, l.Chat, i) + 1 + uint64(r.IntN(int(f.initial-f.highestPushed(l.Device, l.Chat, i)))))
	return true
}

func dropAck(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tAck }))
	if ok {
		remove(d, i)
	}
	return ok
}

func stateRows(d *doc) []int {
	return indexes(d, func(_ int, l line) bool { return l.Type == tFinal && l.Table == tableDeliveryState })
}

func rowTooHigh(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, stateRows(d))
	if ok {
		d.lines[i].LastAcked = u64(val(d.lines[i].LastAcked) + 1 + uint64(r.IntN(3)))
	}
	return ok
}

func rowTooLow(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool {
		return l.Type == tFinal && l.Table == tableDeliveryState && val(l.LastAcked) > 0
	}))
	if ok {
		v := val(d.lines[i].LastAcked)
		d.lines[i].LastAcked = u64(v - 1 - uint64(r.IntN(int(v))))
	}
	return ok
}

func rowMissing(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, stateRows(d))
	if ok {
		remove(d, i)
		bumpTableRead(d, tableDeliveryState, -1)
	}
	return ok
}

func rowDuplicated(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, stateRows(d))
	if !ok {
		return false
	}
	dup := d.lines[i].clone()
	if r.IntN(2) == 0 {
		dup.LastAcked = u64(val(dup.LastAcked) + 1)
	}
	insert(d, i+1, dup)
	bumpTableRead(d, tableDeliveryState, +1)
	return true
}

// rowExtra adds a row for a (chat, user) that has none.
func rowExtra(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	if !f.tableKnown(tableDeliveryState) {
		return false
	}
	chats := f.chats()
	var users []string // in order of first connect: a seed gives one history
	seen := map[string]bool{}
	for _, c := range f.conns {
		if !seen[c.user] {
			seen[c.user] = true
			users = append(users, c.user)
		}
	}
	for chat := range chats {
		for _, user := range users {
			has := false
			for _, l := range f.finals(tableDeliveryState) {
				has = has || (l.Chat == chats[chat] && l.User == user)
			}
			if !has {
				d.lines = append(d.lines[:len(d.lines)-1], line{Type: tFinal, Table: tableDeliveryState, Chat: chats[chat], User: user, LastAcked: u64(uint64(1 + r.IntN(3)))}, line{Type: tEnd})
				bumpTableRead(d, tableDeliveryState, +1)
				return true
			}
		}
	}
	return false
}

// rowBelowLostAck lowers a row to the highest acknowledgement of its
// (chat, user) sent on a connection still open at its device's settle,
// when an ack lost in flight (a dropped connection, a device never
// settled) stood above it: no lower bound, so the row still passes.
func rowBelowLostAck(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	var cands []int
	for _, i := range stateRows(d) {
		l := d.lines[i]
		lo, _ := f.settledBound(l.Chat, l.User)
		if val(l.LastAcked) > lo && val(l.LastAcked) > f.initial {
			cands = append(cands, i)
		}
	}
	i, ok := pickOne(r, cands)
	if ok {
		l := d.lines[i]
		lo, _ := f.settledBound(l.Chat, l.User)
		d.lines[i].LastAcked = u64(max(lo, f.initial) + uint64(r.IntN(int(val(l.LastAcked)-max(lo, f.initial)))))
	}
	return ok
}

// --- the stream ---

// holdBackUntilSettle takes one message off a connection that stays open
// to its device's settle and brings it by a catch-up page just before
// the settled line instead.
func holdBackUntilSettle(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	type spot struct{ push, settled int }
	var spots []spot
	for _, dev := range f.devices() {
		s := f.settledAt(dev)
		if s < 0 {
			continue
		}
		ci := f.connAt(dev, s)
		if ci < 0 {
			continue
		}
		c := f.conns[ci]
		first := map[string]bool{} // a chat's first streamed frame starts the judged run
		for i := c.open + 1; i < s; i++ {
			if l := d.lines[i]; l.Type == tPush && !l.CatchUp && l.Device == dev {
				if first[l.Chat] {
					spots = append(spots, spot{i, s})
				}
				first[l.Chat] = true
			}
		}
	}
	if len(spots) == 0 {
		return false
	}
	s := spots[r.IntN(len(spots))]
	l := &d.lines[s.push]
	k := r.IntN(len(l.Seqs))
	held := entryLine(*l, k, true)
	if len(l.Seqs) == 1 {
		remove(d, s.push)
		s.settled--
	} else {
		removeEntry(l, k)
	}
	insert(d, s.settled, held)
	return true
}

// neverStreamed turns every streamed frame of one chat on a connection
// open to its device's settle into a catch-up page: the device has every
// message, but the connection never streamed the chat.
func neverStreamed(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	var frames [][]int
	for _, dev := range f.devices() {
		s := f.settledAt(dev)
		if s < 0 {
			continue
		}
		ci := f.connAt(dev, s)
		if ci < 0 {
			continue
		}
		c := f.conns[ci]
		byChat := map[string][]int{}
		for i := c.open + 1; i < s; i++ {
			if l := d.lines[i]; l.Type == tPush && !l.CatchUp && l.Device == dev {
				byChat[l.Chat] = append(byChat[l.Chat], i)
			}
		}
		for _, chat := range f.chats() {
			if len(byChat[chat]) > 0 {
				frames = append(frames, byChat[chat])
			}
		}
	}
	if len(frames) == 0 {
		return false
	}
	for _, i := range frames[r.IntN(len(frames))] {
		d.lines[i].CatchUp = true
	}
	return true
}

// skipThenCatchUp takes a message out of a streamed frame and brings it
// right after by a catch-up page: the device has it, the stream skipped it.
func skipThenCatchUp(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush && !l.CatchUp }))
	if !ok {
		return false
	}
	l := &d.lines[i]
	k := r.IntN(len(l.Seqs))
	caught := entryLine(*l, k, true)
	if len(l.Seqs) == 1 {
		remove(d, i)
		i--
	} else {
		removeEntry(l, k)
	}
	insert(d, i+1, caught)
	return true
}

// skipAcrossMembership drops a streamed frame of a chat between two others
// on one connection, and puts in its place the user's leave of the chat
// and join again: "a hole across which the user joined or left the chat
// is not judged".
func skipAcrossMembership(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	var cands []int
	for _, c := range f.conns {
		if c.refused {
			continue
		}
		for _, chat := range f.chats() {
			run := f.streamed(c, chat, len(d.lines))
			var frames []int
			for _, e := range run {
				if len(frames) == 0 || frames[len(frames)-1] != e.at {
					frames = append(frames, e.at)
				}
			}
			for k := 1; k+1 < len(frames); k++ {
				if f.memberAt(chat, c.user, frames[k]) {
					cands = append(cands, frames[k])
				}
			}
		}
	}
	i, ok := pickOne(r, cands)
	if !ok {
		return false
	}
	l := d.lines[i]
	user := f.userOf(l.Device)
	remove(d, i)
	insert(d, i, line{Type: tJoin, Chat: l.Chat, User: user})
	insert(d, i, line{Type: tLeave, Chat: l.Chat, User: user})
	return true
}

// copyAcrossMembership puts the user's leave of a chat and join again
// between two streamed frames of one connection, and makes the topic hold
// a copy of the later frame's first message just before its event: the
// message still continues the run at its first copy, but "the run is
// aligned anew after" a join or leave, at any of its copies, so the
// messages after it continue from its second. Without the leave and join
// they would skip the copy. Only where no other accepted connection
// streamed that message: the copy would make their runs skip too.
func copyAcrossMembership(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	if !f.tableKnown(tableEvents) {
		return false
	}
	type cand struct {
		frame int
		chat  string
		m     msgID
	}
	var cands []cand
	for ci, c := range f.conns {
		if c.refused {
			continue
		}
		for _, chat := range f.chats() {
			run := f.streamed(c, chat, len(d.lines))
			for k := 1; k < len(run); k++ {
				m := msgID{run[k].seq, run[k].id}
				if run[k].at == run[k-1].at || !f.memberAt(chat, c.user, run[k].at) || f.streamedElsewhere(ci, chat, m) {
					continue
				}
				cands = append(cands, cand{run[k].at, chat, m})
			}
		}
	}
	if len(cands) == 0 {
		return false
	}
	x := cands[r.IntN(len(cands))]
	first := -1 // the message's first event in the topic's order
	for i, l := range d.lines {
		if l.Type != tFinal || l.Table != tableEvents || l.Chat != x.chat || (msgID{val(l.Seq), l.MessageID}) != x.m {
			continue
		}
		if first < 0 || val(l.Partition) < val(d.lines[first].Partition) ||
			(val(l.Partition) == val(d.lines[first].Partition) && val(l.Offset) < val(d.lines[first].Offset)) {
			first = i
		}
	}
	if first < 0 {
		return false
	}
	pos := d.lines[first]
	for i := range d.lines {
		if l := d.lines[i]; l.Type == tFinal && l.Table == tableEvents && val(l.Partition) == val(pos.Partition) && val(l.Offset) >= val(pos.Offset) {
			d.lines[i].Offset = u64(val(l.Offset) + 1)
		}
	}
	insert(d, first, line{Type: tFinal, Table: tableEvents, Chat: x.chat, Seq: u64(x.m.seq), MessageID: x.m.id,
		Partition: u64(val(pos.Partition)), Offset: u64(val(pos.Offset))})
	bumpTableRead(d, tableEvents, +1)
	user := f.userOf(d.lines[x.frame].Device)
	insert(d, x.frame, line{Type: tJoin, Chat: x.chat, User: user})
	insert(d, x.frame, line{Type: tLeave, Chat: x.chat, User: user})
	return true
}

// streamedElsewhere says whether an accepted connection other than the
// ci-th streamed message m of chat.
func (f *facts) streamedElsewhere(ci int, chat string, m msgID) bool {
	for k, c := range f.conns {
		if k == ci || c.refused {
			continue
		}
		for _, e := range f.streamed(c, chat, len(f.lines)) {
			if (msgID{e.seq, e.id}) == m {
				return true
			}
		}
	}
	return false
}

// content lists every acknowledged-as-new message's hash and sender, to
// fill a push's arrays correctly before one entry is falsified.
func content(d *doc) map[string][2]string {
	out := map[string][2]string{}
	for _, a := range newFacts(*d).acks {
		if !a.dedup {
			out[a.chat+"\x00"+a.id] = [2]string{a.hash, a.sender}
		}
	}
	return out
}

func withContent(d *doc, l *line) {
	if l.PayloadHashes != nil && l.Senders != nil {
		return
	}
	c := content(d)
	l.PayloadHashes, l.Senders = make([]string, len(l.Seqs)), make([]string, len(l.Seqs))
	for k, id := range l.MessageIDs {
		l.PayloadHashes[k], l.Senders[k] = c[l.Chat+"\x00"+id][0], c[l.Chat+"\x00"+id][1]
	}
}

func swapPayloadHash(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush }))
	if !ok {
		return false
	}
	l := &d.lines[i]
	withContent(d, l)
	k := r.IntN(len(l.Seqs))
	var others []string
	for _, v := range content(d) {
		if v[0] != l.PayloadHashes[k] {
			others = append(others, v[0])
		}
	}
	sort.Strings(others) // content is a map: a seed gives one history
	if len(others) == 0 {
		l.PayloadHashes[k] = "h-leaked"
	} else {
		l.PayloadHashes[k] = others[r.IntN(len(others))]
	}
	return true
}

func forgeSender(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush }))
	if !ok {
		return false
	}
	l := &d.lines[i]
	withContent(d, l)
	k := r.IntN(len(l.Seqs))
	l.Senders[k] = fmt.Sprintf("u%d", 1+r.IntN(5))
	return true
}

// replayOnly lists the push entries (line, index) of messages acknowledged
// only as replays, with the key those replays were sent under.
func replayOnly(d *doc) (entries [][2]int, keys []string) {
	f := newFacts(*d)
	for i, l := range d.lines {
		if l.Type != tPush {
			continue
		}
		for k, id := range l.MessageIDs {
			key, created, replayed := "", false, false
			for _, a := range f.acks {
				if a.chat == l.Chat && a.id == id {
					created = created || !a.dedup
					replayed = true
					key = a.key
				}
			}
			if replayed && !created {
				entries = append(entries, [2]int{i, k})
				keys = append(keys, key)
			}
		}
	}
	return entries, keys
}

// replayOnlyOtherContent gives a pushed message acknowledged only as a
// replay another payload hash or sender: a failure where it is compared
// (sole_writer, above initial_counter, its key's persists all sent the
// same), not otherwise.
func replayOnlyOtherContent(r *rand.Rand, d *doc) bool {
	entries, _ := replayOnly(d)
	if len(entries) == 0 {
		return false
	}
	e := entries[r.IntN(len(entries))]
	l := &d.lines[e[0]]
	withContent(d, l)
	if r.IntN(2) == 0 {
		l.PayloadHashes[e[1]] = "h-leaked"
	} else {
		l.Senders[e[1]] = "u-forged"
	}
	return true
}

// replayKeyResentOther makes one persist of the key of a message
// acknowledged only as a replay send other content: its key's persists no
// longer all sent the same, so the message's content is not compared.
func replayKeyResentOther(r *rand.Rand, d *doc) bool {
	_, keys := replayOnly(d)
	if len(keys) == 0 {
		return false
	}
	key := keys[r.IntN(len(keys))]
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tInvoke && l.F == "persist" && l.Key == key }))
	if ok {
		d.lines[i].PayloadHash = "h-other-" + key
	}
	return ok
}

// wrongMessageID pushes a sequence under another message's id (of the
// same chat) or a forged one.
func wrongMessageID(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush }))
	if !ok {
		return false
	}
	l := &d.lines[i]
	k := r.IntN(len(l.Seqs))
	var others []string
	for _, a := range newFacts(*d).acks {
		if a.chat == l.Chat && a.seq != l.Seqs[k] {
			others = append(others, a.id)
		}
	}
	if len(others) == 0 || r.IntN(3) == 0 {
		l.MessageIDs[k] = "forged-" + l.MessageIDs[k]
	} else {
		l.MessageIDs[k] = others[r.IntN(len(others))]
	}
	return true
}

// pushGhost pushes a (seq, message_id) that neither the acks nor the
// messages table hold, at a sequence above every real one: with the
// table, "a sequence above initial_counter it does not hold fails";
// without it, the acks do not know the pair at all and it is not judged.
func pushGhost(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush }))
	if !ok {
		return false
	}
	l := d.lines[i].clone()
	l.Seqs, l.MessageIDs = []uint64{90 + uint64(r.IntN(9))}, []string{"ghost"}
	l.PayloadHashes, l.Senders = nil, nil
	insert(d, i+1, l)
	return true
}

// pushGhostBeforeRun pushes, with an existing push line's device and
// chat, an unknown message at a sequence at or below initial_counter that
// the reference does not hold and nothing else was pushed at: not judged
// ("a sequence above initial_counter it does not hold fails").
func pushGhostBeforeRun(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	if f.initial == 0 {
		return false
	}
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush }))
	if !ok {
		return false
	}
	l := d.lines[i].clone()
	var free []uint64
	for s := uint64(1); s <= f.initial; s++ {
		used := false
		for _, m := range f.reference(l.Chat) {
			used = used || m.seq == s
		}
		for _, e := range f.pushes() {
			used = used || (e.chat == l.Chat && e.seq == s)
		}
		if !used {
			free = append(free, s)
		}
	}
	if len(free) == 0 {
		return false
	}
	s := free[r.IntN(len(free))]
	l.Seqs, l.MessageIDs = []uint64{s}, []string{fmt.Sprintf("ghost-old%d", s)}
	l.PayloadHashes, l.Senders = nil, nil
	insert(d, i+1, l)
	return true
}

// pushOutOfPlace moves one pushed message to a sequence the reference
// holds nothing at: "at a sequence it holds nothing at, an id it holds at
// another" (and, with the table, above initial_counter).
func pushOutOfPlace(r *rand.Rand, d *doc) bool {
	f := newFacts(*d)
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush }))
	if !ok {
		return false
	}
	l := &d.lines[i]
	k := r.IntN(len(l.Seqs))
	var hi uint64
	for _, m := range f.reference(l.Chat) {
		hi = max(hi, m.seq)
	}
	l.Seqs[k] = max(hi, f.initial) + 1 + uint64(r.IntN(3))
	return true
}

// repeatFrame streams a frame twice: at-least-once transport.
func repeatFrame(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tPush && !l.CatchUp }))
	if ok {
		insert(d, i+1, d.lines[i].clone())
	}
	return ok
}

// topicExtraCopy makes the topic hold a copy of one of a chat's messages
// at some position of the chat's order, shifting the offsets after it.
func topicExtraCopy(r *rand.Rand, d *doc) bool {
	evs := indexes(d, func(_ int, l line) bool { return l.Type == tFinal && l.Table == tableEvents })
	at, ok := pickOne(r, evs)
	if !ok {
		return false
	}
	pos := d.lines[at]
	src := d.lines[evs[r.IntN(len(evs))]]
	if src.Chat != pos.Chat {
		src = pos
	}
	for _, i := range evs {
		if val(d.lines[i].Partition) == val(pos.Partition) && val(d.lines[i].Offset) >= val(pos.Offset) {
			d.lines[i].Offset = u64(val(d.lines[i].Offset) + 1)
		}
	}
	cp := line{Type: tFinal, Table: tableEvents, Chat: src.Chat, Seq: u64(val(src.Seq)), MessageID: src.MessageID,
		Partition: u64(val(pos.Partition)), Offset: u64(val(pos.Offset))}
	insert(d, at, cp)
	bumpTableRead(d, tableEvents, +1)
	return true
}

func dropEvent(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tFinal && l.Table == tableEvents }))
	if ok {
		remove(d, i)
		bumpTableRead(d, tableEvents, -1)
	}
	return ok
}

func finalMessageWrongID(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tFinal && l.Table == tableMessages }))
	if ok {
		d.lines[i].MessageID = "lost-" + d.lines[i].MessageID
	}
	return ok
}

// --- membership ---

// dropJoin removes a join line and the leave that ends that membership,
// so the user was not a member then (and, if it was its only join, never).
func dropJoin(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tJoin }))
	if !ok {
		return false
	}
	j := d.lines[i]
	for k := i + 1; k < len(d.lines); k++ {
		l := d.lines[k]
		if l.Chat == j.Chat && l.User == j.User && l.Type == tLeave {
			remove(d, k)
			break
		}
	}
	remove(d, i)
	return true
}

// dropAllMembership removes every join and leave line: "A history with
// no join line records no membership: only refused connections are
// judged".
func dropAllMembership(r *rand.Rand, d *doc) bool {
	n := len(d.lines)
	kept := d.lines[:0]
	for _, l := range d.lines {
		if l.Type != tJoin && l.Type != tLeave {
			kept = append(kept, l)
		}
	}
	d.lines = kept
	return len(kept) < n
}

// --- reads ---

// readAs inserts a sync of some chat by a user the history names (or one
// it never names), answered ok with a page of a message acknowledged
// before it, or refused as not_a_member, its answer up to four lines
// after its invoke (a join or leave may fall between): read_authorization
// fails it where the user was not a member and had not joined by the ok.
func readAs(answered bool) func(r *rand.Rand, d *doc) bool {
	return func(r *rand.Rand, d *doc) bool {
		end := len(d.lines)
		users := []string{"outsider"}
		syncs := 0
		for i, l := range d.lines {
			switch {
			case l.Type == tFinal || l.Type == tTableRead || l.Type == tEnd:
				end = min(end, i)
			case l.Type == tJoin && !containsString(users, l.User):
				users = append(users, l.User)
			case l.Type == tInvoke && l.F == "sync":
				syncs++
			}
		}
		at := r.IntN(end + 1)
		var page *ack
		for _, a := range newFacts(*d).acks {
			if a.at < at && a.id != "" {
				page = &a
			}
		}
		if page == nil {
			return false
		}
		chat := page.chat
		process := 90 + syncs
		done := line{Type: tOK, Process: process, F: "sync", Chat: chat, Seqs: []uint64{page.seq}, MessageIDs: []string{page.id}}
		if !answered {
			done = line{Type: tFail, Process: process, F: "sync", Chat: chat, Error: "not_a_member"}
		}
		invoke := line{Type: tInvoke, Process: process, F: "sync", Chat: chat, After: u64(0), Limit: u64(100), User: users[r.IntN(len(users))]}
		insert(d, min(at+r.IntN(5), end), done)
		insert(d, at, invoke)
		if r.IntN(6) == 0 {
			if d.hdr.Contract == nil {
				d.hdr.Contract = map[string]string{}
			}
			d.hdr.Contract["read_membership"] = "unchecked"
		}
		return true
	}
}

// operationsEnd is the index of the first final, table_read or end line:
// operation and receiver lines come before it.
func operationsEnd(d *doc) int {
	for i, l := range d.lines {
		if l.Type == tFinal || l.Type == tTableRead || l.Type == tEnd {
			return i
		}
	}
	return len(d.lines)
}

// stateReadByNonMember inserts an answered state_read of a chat some join
// line before it names, by a user who is not a member of it there: one
// the history's joins name (never joined, or left) or an outsider.
// FORMAT.md: a state_read "not refused whose user was not a member of its
// chat at that line ... fails" read_authorization.
func stateReadByNonMember(r *rand.Rand, d *doc) bool {
	end := operationsEnd(d)
	at := r.IntN(end + 1)
	f := newFacts(*d)
	var chats, users []string
	for i, l := range d.lines {
		if l.Type != tJoin {
			continue
		}
		if i < at && !containsString(chats, l.Chat) {
			chats = append(chats, l.Chat)
		}
		if !containsString(users, l.User) {
			users = append(users, l.User)
		}
	}
	if len(chats) == 0 {
		return false
	}
	chat := chats[r.IntN(len(chats))]
	var outside []string
	for _, u := range append(users, "outsider-9") {
		if !f.memberAt(chat, u, at) {
			outside = append(outside, u)
		}
	}
	if len(outside) == 0 {
		return false
	}
	insert(d, at, line{Type: tStateRead, Chat: chat, User: outside[r.IntN(len(outside))]})
	return true
}

// stateReadBeforeJoins inserts an answered state_read of a chat by a
// non-member at or before the chat's first join line: FORMAT.md judges
// only "a chat some join line before it names", so it is not judged.
func stateReadBeforeJoins(r *rand.Rand, d *doc) bool {
	chats := chatsOf(d)
	if len(chats) == 0 {
		return false
	}
	chat := chats[r.IntN(len(chats))]
	first := operationsEnd(d)
	for i, l := range d.lines[:first] {
		if l.Type == tJoin && l.Chat == chat {
			first = i
			break
		}
	}
	insert(d, r.IntN(first+1), line{Type: tStateRead, Chat: chat, User: "outsider-9"})
	return true
}

// answerRefusedStateRead turns a refused state_read into an answered one:
// a service that stopped checking membership for it.
func answerRefusedStateRead(r *rand.Rand, d *doc) bool {
	i, ok := pickOne(r, indexes(d, func(_ int, l line) bool { return l.Type == tStateRead && l.Refused }))
	if ok {
		d.lines[i].Refused = false
	}
	return ok
}
