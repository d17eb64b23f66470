package store

import (
	"fmt"

	"github.com/chatseq/chatseq/checker/internal/columns"
	"github.com/chatseq/chatseq/checker/internal/render"
)

// Keys and message ids are numbered in two steps. While lines are read
// (one goroutine, the check's bottleneck), a string gets a provisional
// number without any look-up, unless it is plainly one seen just before (a
// retry repeats its process's last key; a final line repeats the ack at
// its sequence). Once every line is in, canonicalize sorts the provisional
// numbers by hash and gives equal strings one number. Looking each string
// up in a map of millions as it came cost a cache miss or two a line, most
// of a million-operation history's read; the sort costs a tenth of that.

// scopedHash mixes a chat into a key's hash.
func scopedHash(scope int32, keyHash uint64) uint64 {
	return keyHash ^ (uint64(uint32(scope)) * 0x9E3779B97F4A7C15)
}

// senderHash mixes a sender into a key's hash as well (key_scope client).
func senderHash(sender uint32, keyHash uint64) uint64 {
	return keyHash ^ ((uint64(sender) + 1) * 0xC2B2AE3D27D4EB4F)
}

// noSender is the sender of a key named by a final line that says none.
const NoSender = ^uint32(0)

// KeyID numbers a persist's key. Each provisional key keeps its chat and
// sender: the contract's key_scope, known only once every line is in,
// decides whether CanonicalMaps tells keys apart by sender (client, ADR-001:
// "unique per client per chat") or by chat alone (chat, ADR-004's
// idempotency table).
func (l *Log) KeyID(process int, chat int32, sender uint32, key string) int32 {
	if process >= 0 && process < len(l.lastKey) {
		if k := l.lastKey[process]; k >= 0 && *l.newKeys.chat.At(k) == chat && *l.newKeys.sender.At(k) == sender && l.keys.Get(*l.newKeys.names.At(k)) == key {
			return k
		}
	}
	k := l.NewKey(chat, sender, key)
	if process >= 0 && process < 1<<16 {
		for process >= len(l.lastKey) {
			l.lastKey = append(l.lastKey, -1)
		}
		l.lastKey[process] = k
	}
	return k
}

func (l *Log) NewKey(chat int32, sender uint32, key string) int32 {
	l.newKeys.chat.Add(chat)
	l.newKeys.sender.Add(sender)
	l.newKeys.hash.Add(StringHash(key))
	return l.newKeys.names.Add(l.keys.Add(key))
}

// midRecord is a message id as numbered provisionally: its hash, which
// sync answers are compared by, and its name.
type midRecord struct {
	hash uint64
	name columns.NameRef
}

// mid numbers a message id of chat (0 is "none") and keeps its hash.
func (l *Log) mid(chat int32, s string) uint32 {
	if s == "" {
		return 0
	}
	return uint32(l.NewMids.Add(l.groupOf(chat), midRecord{hash: StringHash(s), name: l.keys.Add(s)}))
}

// CanonicalMaps gives equal keys (in one chat, and under key_scope client
// of one sender) and equal message ids one number each, the lowest of
// their provisional ones: the maps from provisional to final numbers,
// dense in first-seen order. The Log's names and hashes are compacted to
// the final numbers. Under key_scope client (sl not nil) a final line that
// names no sender is attributed by attributeSenderless; one it cannot be
// maps to finKeyless or finKeyUnsent.
func (l *Log) CanonicalMaps(sl *senderlessRule) (keyMap, midMap []int32) {
	clientScope := sl != nil
	// Keys, then message ids: side by side, their sorts' scratch (some 50
	// bytes a name) was held twice at once, at the top of a large check's
	// memory.
	k := &l.newKeys
	hashes := k.hash.Flat()
	for i := range hashes {
		hashes[i] = scopedHash(*k.chat.At(int32(i)), hashes[i])
		if clientScope {
			hashes[i] = senderHash(*k.sender.At(int32(i)), hashes[i])
		}
	}
	keyMap = Canonical(hashes, func(a, b int32) bool {
		return *k.chat.At(a) == *k.chat.At(b) && l.keys.Get(*k.names.At(a)) == l.keys.Get(*k.names.At(b)) &&
			(!clientScope || *k.sender.At(a) == *k.sender.At(b))
	})
	hashes = nil
	if clientScope {
		l.attributeSenderless(keyMap, sl)
	}
	k.sender = columns.Chunked[uint32]{}
	l.KeyNames, l.KeyChat = compactChunked(keyMap, &k.names), compactChunked(keyMap, &k.chat)
	midAt := l.NewMids.Renumbering()
	mids := l.NewMids.Compact()
	n := mids.Len()
	hashes = make([]uint64, 0, n)
	names := make([]columns.NameRef, 0, n)
	mids.Each(func(r *midRecord) { hashes, names = append(hashes, r.hash), append(names, r.name) })
	mids = columns.Chunked[midRecord]{}
	dense := Canonical(hashes, func(a, b int32) bool { return l.keys.Get(names[a]) == l.keys.Get(names[b]) })
	l.MidNames, l.MidHash = Compact(dense, names), Compact(dense, hashes)
	l.lastKey = nil
	return keyMap, midAt.Compose(dense, n)
}

// senderlessRule is what attributeSenderless needs besides the keys: who
// may have written the chats, and the persists' keys (provisional).
type senderlessRule struct {
	// soleWriter: the history's clients are its chats' only writers above
	// initialCounter, so a key only one sender of the history used in a
	// chat is that sender's there. Without it another writer's sender
	// may have used the same key: any attribution by key is a guess.
	soleWriter     bool
	initialCounter uint64
	ops            *columns.Chunked[Op]
}

// attributeSenderless, under key_scope client, gives each key that only
// final lines without a sender name (one the ack at their sequence did not
// already claim, see finalIDs) the key of the sender its twin in the
// other table names (FORMAT.md rule 2), else of the one sender whose
// persists used it in its chat (rule 3), where that is no guess: with
// sole_writer, on a line above initial_counter. A line at or below it (a
// message from before the run) takes that sender only when no line names
// another sender of the key either: the sender's replays and rejections
// need the key from before the run. Any other such line cannot be told
// apart soundly: it maps to finKeyUnsent when no persist of its chat used
// its key under any sender, else to finKeyless, and is judged as a line
// without a key. keyMap stays dense in first-seen order.
func (l *Log) attributeSenderless(keyMap []int32, sl *senderlessRule) {
	k := &l.newKeys
	type chatKey struct {
		chat int32
		name string
	}
	const nobody, several = -2, -1
	owner := map[chatKey]int32{}
	for p := range keyMap {
		if *k.sender.At(int32(p)) == NoSender {
			owner[chatKey{*k.chat.At(int32(p)), l.keys.Get(*k.names.At(int32(p)))}] = nobody
		}
	}
	if len(owner) == 0 {
		return
	}
	// Only persists say who used a key: a final line that names a sender
	// may be another writer's, or a phantom. With sole_writer, how each
	// sender's key was used too (attributing a line several may be).
	used := map[int32]*senderUse{}
	sl.ops.Each(func(o *Op) {
		if o.Fn != FnPersist || o.Key < 0 {
			return
		}
		f := keyMap[o.Key]
		st := used[f]
		if st == nil {
			st = &senderUse{payload: o.Payload}
			used[f] = st
		}
		if sl.soleWriter {
			st.note(o, l.ErrNames)
		}
	})
	// Two kinds of final line without a sender, in one pass with the
	// lines that name one:
	//   - at or below initial_counter, a message from before the run,
	//     without sole_writer's promise (preRun): any sender's, so no
	//     one's unless its twin says (below). Senderless lines get
	//     provisional keys of their own (finalIDs), so the line's
	//     sequence is its key's.
	//   - above it (senderlessOf, by chat and key text).
	// linedIn: the senders' keys a final line names with its sender, by
	// table: such a key has its own line there, so a senderless line
	// there is not its (it would be a second message or record of one
	// key).
	type tableKey struct {
		table TableKind
		ck    chatKey
	}
	type linedKey struct {
		tk     tableKey
		sender int32
	}
	preRun := map[int32]bool{}
	senderlessOf := map[chatKey]int{}
	linedIn := map[linedKey]struct{}{}
	twins := map[twinAt]twinLine{} // lines naming a sender, by where a twin would be
	l.Fin.Each(func(f *FinalRecord) {
		if (f.Table != TableMessages && f.Table != TableIdempotency) || f.Key < 0 {
			return
		}
		tk := tableKey{f.Table, chatKey{*k.chat.At(f.Key), l.keys.Get(*k.names.At(f.Key))}}
		switch {
		case *k.sender.At(f.Key) != NoSender:
			linedIn[linedKey{tk, keyMap[f.Key]}] = struct{}{}
			if f.MessageID != 0 {
				at := l.twinAt(f, tk.table, tk.ck.name)
				if t, ok := twins[at]; !ok {
					twins[at] = twinLine{key: keyMap[f.Key], mid: f.MessageID}
				} else if t.key != keyMap[f.Key] {
					twins[at] = twinLine{key: several} // two senders' lines there: neither is told
				}
			}
		case f.Seq <= sl.initialCounter:
			preRun[f.Key] = true
		default:
			senderlessOf[tk.ck]++
		}
	})
	claim := func(m map[chatKey]int32, ck chatKey, f int32) {
		switch o, ok := m[ck]; {
		case !ok:
		case o == nobody:
			m[ck] = f
		case o != f:
			m[ck] = several
		}
	}
	usedBy := map[chatKey]map[int32]struct{}{} // the senders' keys whose persists used it
	for p, f := range keyMap {
		if *k.sender.At(int32(p)) == NoSender {
			continue
		}
		ck := chatKey{*k.chat.At(int32(p)), l.keys.Get(*k.names.At(int32(p)))}
		if used[f] != nil {
			claim(owner, ck, f)
			if usedBy[ck] == nil {
				usedBy[ck] = map[int32]struct{}{}
			}
			usedBy[ck][f] = struct{}{}
		}
	}
	// With sole_writer, a line without a sender above initial_counter is a
	// history sender's line for its key; not one whose key has its own
	// line (naming its sender) in that table, which would be a second
	// record or message of one key, a failure whichever it is. So of the
	// several senders that used its key, the one without such a line is
	// the line's (two senders of one key under key_scope client, one
	// record each: the record without a sender is the other's).
	lonely := map[int32]int32{} // senderless line's key -> the one sender's key it can be
	if sl.soleWriter {
		// The one sender's key of each (table, chat, key text) without a
		// line there, -1 when none or several: worked out once each.
		only := map[tableKey]int32{}
		onlyOf := func(tk tableKey) int32 {
			if o, ok := only[tk]; ok {
				return o
			}
			one := int32(-1)
			for s := range usedBy[tk.ck] {
				if _, lined := linedIn[linedKey{tk, s}]; lined {
					continue
				}
				if one >= 0 {
					one = -1 // two may hold it
					break
				}
				one = s
			}
			only[tk] = one
			return one
		}
		// Several may hold it: where all of them are alike but for when
		// their persists began (each with one of unknown outcome, none
		// answered ok or rejected, one content, no line of its own in
		// either table, and this line their text's only one without a
		// sender), the one whose persist of unknown outcome began first
		// can commit it whenever any of the others could: the model's
		// verdict is the same as with the others, and no other invariant
		// reads which of them it is (none was acknowledged). It is taken.
		earliestOf := func(tk tableKey) int32 {
			if senderlessOf[tk.ck] != 1 {
				return -1
			}
			other := tableKey{tk.table.counterpart(), tk.ck}
			best, payload, n := int32(-1), uint64(0), 0
			for s := range usedBy[tk.ck] {
				if _, lined := linedIn[linedKey{tk, s}]; lined {
					continue // its line here: this one would be a second
				}
				st := used[s]
				if _, lined := linedIn[linedKey{other, s}]; lined || !st.open || st.answered || st.rejected || st.payloads {
					return -1
				}
				if n++; n > 1 && st.payload != payload {
					return -1
				}
				payload = st.payload
				if best < 0 || st.firstOpen < used[best].firstOpen || st.firstOpen == used[best].firstOpen && s < best {
					best = s
				}
			}
			return best
		}
		// Every one of them has its own line there: this one is a second
		// line of one of their keys, a failure whichever (oracle seed
		// 1148173: judged as a line without a key, a false PASS). It is
		// taken as the one numbered first, which the counterexample names.
		everyOneLined := func(tk tableKey) int32 {
			first := int32(-1)
			for s := range usedBy[tk.ck] {
				if _, lined := linedIn[linedKey{tk, s}]; !lined {
					return -1
				}
				if first < 0 || s < first {
					first = s
				}
			}
			return first
		}
		l.Fin.Each(func(f *FinalRecord) {
			if (f.Table != TableMessages && f.Table != TableIdempotency) || f.Key < 0 || *k.sender.At(f.Key) != NoSender || f.Seq <= sl.initialCounter {
				return
			}
			ck := chatKey{*k.chat.At(f.Key), l.keys.Get(*k.names.At(f.Key))}
			if owner[ck] != several {
				return
			}
			tk := tableKey{f.Table, ck}
			if one := onlyOf(tk); one >= 0 {
				lonely[f.Key] = one
			} else if first := earliestOf(tk); first >= 0 {
				lonely[f.Key] = first
			} else if numberedFirst := everyOneLined(tk); numberedFirst >= 0 {
				lonely[f.Key] = numberedFirst
			}
		})
	}
	// A line without a sender whose twin in the other table (its chat,
	// sequence, message id and key text) names one is that sender's: a
	// record is its message's, so the record of another key naming that
	// message, or that message carrying another key than its record's,
	// fails idempotency_sequence_consistency whoever else's it is. With
	// or without sole_writer, before the run or in it.
	twinOf := map[int32]int32{}
	l.Fin.Each(func(f *FinalRecord) {
		if (f.Table != TableMessages && f.Table != TableIdempotency) || f.Key < 0 || f.MessageID == 0 || *k.sender.At(f.Key) != NoSender {
			return
		}
		at := l.twinAt(f, f.Table.counterpart(), l.keys.Get(*k.names.At(f.Key)))
		if t, ok := twins[at]; ok && t.key >= 0 && l.midName(f.MessageID) == l.midName(t.mid) {
			twinOf[f.Key] = t.key
		}
	})
	dense := columns.Filled(len(keyMap), int32(-1))
	next := int32(0)
	unattributed := 0
	for p, f := range keyMap {
		if *k.sender.At(int32(p)) == NoSender {
			ck := chatKey{*k.chat.At(int32(p)), l.keys.Get(*k.names.At(int32(p)))}
			o := owner[ck]
			if one, ok := lonely[int32(p)]; ok {
				o = one
			}
			if preRun[int32(p)] {
				// From before the run, any sender's: another than the
				// history's may have written its key then (oracle seed
				// 11238532: a record taken for s2's left s2's persist no
				// sequence to commit, a false FAIL). Its key text is all
				// it says (linearize's preRunContradiction holds it to
				// that).
				o = several
			}
			twin, twinned := twinOf[int32(p)]
			if twinned {
				o = twin
			}
			if !twinned && (o < 0 || !sl.soleWriter && !preRun[int32(p)]) {
				keyMap[p] = FinKeyless
				if o == nobody {
					keyMap[p] = FinKeyUnsent
				}
				if l.senderlessText == nil {
					l.senderlessText = map[int32]string{}
				}
				l.senderlessText[int32(p)] = ck.name
				unattributed++
				continue
			}
			f = o
			if dense[f] < 0 {
				dense[f] = next
				next++
			}
			if l.attributed == nil {
				l.attributed = map[int32]bool{}
			}
			l.attributed[dense[f]] = true
		}
		if dense[f] < 0 {
			dense[f] = next
			next++
		}
		keyMap[p] = dense[f]
	}
	if unattributed > 0 {
		why := "no single sender's persists used in its chat"
		if !sl.soleWriter {
			why = "no ack claims (without sole_writer another writer's sender may have used the key; from before the run, no single sender used it)"
		}
		l.Warnings = append(l.Warnings, fmt.Sprintf("key_scope client: %s without a sender whose key %s: judged as lines without a key", render.Plural(unattributed, "final key"), why))
	}
}

// A final line's key number when it has none to compare: finKeyless (no key,
// or under key_scope client one several senders used), or finKeyUnsent (under
// key_scope client, without a sender, a key no persist of its chat used
// under any sender: no client of the history sent it). Both are < 0, so
// every invariant that compares keys takes either as keyless; only
// no_phantom_messages tells them apart.
const (
	FinKeyless   int32 = -1
	FinKeyUnsent int32 = -2
)

// RenumberOps gives operations their final key and message id numbers.
func RenumberOps(ops *columns.Chunked[Op], keyMap, midMap []int32) {
	ops.Each(func(o *Op) {
		if o.Key >= 0 {
			o.Key = keyMap[o.Key]
		}
		if o.mid() != 0 {
			o.ref = uint32(midMap[o.ref])
		}
	})
}

// renumberFinals gives final lines their final key and message id
// numbers, and returns the key text of each line left without a key
// (senderless: attributeSenderless's, by provisional key), by line index.
func renumberFinals(fin *columns.Chunked[FinalRecord], keyMap, midMap []int32, senderless map[int32]string) (texts map[int32]string) {
	i := int32(0)
	fin.Each(func(f *FinalRecord) {
		if f.Key >= 0 {
			if t, ok := senderless[f.Key]; ok {
				if texts == nil {
					texts = map[int32]string{}
				}
				texts[i] = t
			}
			f.Key = keyMap[f.Key] // keyless or finKeyUnsent (attributeSenderless)
		}
		f.MessageID = uint32(midMap[f.MessageID])
		i++
	})
	return texts
}

// Canonical maps each provisional number to its final one: numbers whose
// hashes are equal and that same says are equal share the final number of
// the first of them, and final numbers are dense in order of first
// appearance.
func Canonical(hashes []uint64, same func(a, b int32) bool) []int32 {
	// Each entry is a hash's top half above its provisional number: sorted
	// by that half, equal strings are neighbours (with the rare others
	// whose top halves collide), in 8 bytes where a hash and a number took
	// 16.
	order := make([]uint64, len(hashes))
	for i, h := range hashes {
		order[i] = h&^lowHalf | uint64(i)
	}
	columns.RadixSortRange(order, 31, 64) // bit 31 is a provisional number's: 0
	// first maps each provisional number to the first equal one, then,
	// in place, to its final number. Each is its own first until found
	// equal to an earlier one: set in order, not at each provisional
	// number as the sorted order reaches it, a cache miss each, since most
	// strings appear once.
	first := make([]int32, len(hashes))
	for p := range first {
		first[p] = int32(p)
	}
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j]>>32 == order[i]>>32 {
			j++
		}
		// order[i:j] share a top half, in provisional order: almost
		// always equal strings. Each takes the first earlier one it
		// equals (a collision of unequal strings leaves two groups).
		for a := i + 1; a < j; a++ {
			pa := int32(uint32(order[a]))
			for b := i; b < a; b++ {
				if pb := int32(uint32(order[b])); first[pb] == pb && hashes[pb] == hashes[pa] && same(pb, pa) {
					first[pa] = pb
					break
				}
			}
		}
		i = j
	}
	next := int32(0)
	for p, f := range first {
		if f == int32(p) {
			first[p] = next
			next++
		} else {
			first[p] = first[f] // f < p: already its final number
		}
	}
	return first
}

// lowHalf is a uint64's low 32 bits.
const lowHalf = 1<<32 - 1

// Compact keeps the value of each final number, from its first provisional
// one.
func Compact[T any](final []int32, vals []T) []T {
	out := vals[:0]
	for p, f := range final {
		if int(f) == len(out) {
			out = append(out, vals[p])
		}
	}
	return out
}

// compactChunked is compact for values kept in blocks; it empties vals.
func compactChunked[T any](final []int32, vals *columns.Chunked[T]) []T {
	n := int32(0) // final numbers are dense: as many as the largest + 1
	for _, f := range final {
		n = max(n, f+1)
	}
	out := make([]T, 0, n)
	p := 0
	vals.Each(func(v *T) {
		if int(final[p]) == len(out) {
			out = append(out, *v)
		}
		p++
	})
	*vals = columns.Chunked[T]{}
	return out
}

// Final lines mostly repeat what acks said: the messages and idempotency
// tables list, in sequence order, the message ids and keys the run
// acknowledged. recentAcks remembers, per chat and sequence, the message
// id first acknowledged there and the key of that ack, with both strings'
// hashes, so that a final line finds its ids by index rather than by two
// look-ups in maps of millions of entries. Final lines come chat by chat
// while acks came interleaved in time: reading the strings themselves to
// compare them was a cache miss or two a final line, a sixth of a check.
// Equal hashes (64 bits, seeded afresh each run) are taken as equal
// strings, as sync answers are compared; INVARIANTS.md says what that
// costs.
//
// Each chat's table is kept in blocks, made as sequences reach them: grown
// by doubling, the tables held up to twice what they used (30 MB for 18 MB
// of acks in a 30 s bench).
type RecentAcks struct {
	chats []ackTable
	// spill, unless nil, takes each chat's blocks below its newest
	// (columns.SpillFile): a run's acks mostly come in sequence order, and
	// what reaches further back (a late ack, a sync from an old cursor, the
	// final lines) reads its block back.
	spill     *columns.SpillFile
	spillKeep int
	free      [][]AckAt // blocks spilled, of any chat, to be used again
}

// ackTable is one chat's: the first ack at sequence base+i, for i < n.
type ackTable struct {
	base   uint64
	n      uint64
	blocks [][]AckAt // of ackBlock entries each; nil where nothing was acked (or spilled)
	spill  columns.BlockSpill
}

// SpillTo makes r move each chat's blocks to f but for the one being
// filled and the keep newest.
func (r *RecentAcks) SpillTo(f *columns.SpillFile, keep int) { r.spill, r.spillKeep = f, keep }

// Unspill reads every spilled block back; r spills no more.
func (r *RecentAcks) Unspill() {
	for c := range r.chats {
		t := &r.chats[c]
		if t.spill.Active() {
			columns.SpillLoadAll(&t.spill, t.blocks, ackBlock)
		}
	}
	r.spill, r.free = nil, nil
}

// block is t's block b, read back if it was spilled; nil if nothing was
// acked in it.
func (t *ackTable) block(b int) []AckAt {
	if blk := t.blocks[b]; blk != nil || !t.spill.IsSpilled(b) {
		return blk
	}
	return columns.SpillLoad(&t.spill, t.blocks, b, ackBlock)
}

const (
	ackShift = 10
	ackBlock = 1 << ackShift
)

// AckAt is the first ack at a sequence; mid 0 is none. sender is its
// persist's, kept here so that a final line naming its sender is compared
// without a look-up in the keys; payload and created (acknowledged as
// its new message, not a replay) let a sync's answer that says what the
// message carried be vouched for as it is read (syncContent).
type AckAt struct {
	MidHash, keyHash, payload uint64
	Mid                       uint32
	key                       int32
	sender                    uint32
	created                   bool
}

// Remember notes that an ack of chat acknowledged seq with mid for key.
func (r *RecentAcks) Remember(chat int32, seq uint64, a AckAt) {
	for int(chat) >= len(r.chats) {
		r.chats = append(r.chats, ackTable{})
	}
	t := &r.chats[chat]
	if t.n == 0 {
		t.base = seq
		if r.spill != nil {
			t.spill.Start(r.spill, r.spillKeep)
		}
	}
	if seq < t.base {
		return
	}
	i := seq - t.base
	// Sequences grow by about one per ack: a far jump (a corrupt or
	// hostile sequence) is left to canonicalize rather than allocated for.
	// An ack past all before it lands where nothing was written, so its
	// entry is not read first: reading it waited on a cache miss every
	// other ack (64 chats' tables outrun the prefetcher), the write alone
	// does not.
	past := i >= t.n
	if past {
		if i > 2*t.n+1024 {
			return
		}
		t.n = i + 1
	}
	b, off := int(i>>ackShift), int(i&(ackBlock-1))
	for b >= len(t.blocks) {
		if len(t.blocks) == 1 && t.blocks[0] != nil {
			// Only block 0 is ever short; a block below the newest is
			// full, as the spill and its readers take it.
			t.blocks[0] = growAcks(t.blocks[0], ackBlock)
		}
		t.blocks = append(t.blocks, nil)
		if k := len(t.blocks) - 2; k >= 0 && t.spill.Active() {
			columns.SpillFullReusing(&t.spill, t.blocks, k, &r.free)
		}
	}
	if blk := t.block(b); blk == nil {
		if b == 0 && len(t.blocks) == 1 {
			// A chat's first block starts small and doubles: a history of
			// a million chats of one ack each made a block of ackBlock
			// entries (40 KB) for each, 40 GB of heap for a 160 MB file.
			t.blocks[0] = make([]AckAt, firstAckBlock(off))
		} else if blk := columns.TakeFree(&r.free); blk != nil {
			t.blocks[b] = blk[:ackBlock]
			clear(t.blocks[b])
		} else {
			t.blocks[b] = make([]AckAt, ackBlock)
		}
	} else if off >= len(blk) {
		t.blocks[b] = growAcks(blk, firstAckBlock(off))
	}
	if e := &t.blocks[b][off]; past || e.Mid == 0 {
		// Field by field: as one copy, its 16-byte loads of a's fields,
		// just stored as 8, waited for the cold stores ahead of them (a
		// failed store forwarding).
		e.MidHash, e.keyHash, e.Mid, e.key, e.sender = a.MidHash, a.keyHash, a.Mid, a.key, a.sender
		e.payload, e.created = a.payload, a.created
	}
}

// At is the first ack at chat and seq, nil if none is remembered.
func (r *RecentAcks) At(chat int32, seq uint64) *AckAt {
	if int(chat) >= len(r.chats) {
		return nil
	}
	t := &r.chats[chat]
	if seq < t.base || seq-t.base >= t.n {
		return nil
	}
	i := seq - t.base
	if blk, off := t.block(int(i>>ackShift)), int(i&(ackBlock-1)); off < len(blk) && blk[off].Mid != 0 {
		return &blk[off]
	}
	return nil
}

// firstAckBlock is the length of a chat's first block that holds entry
// off: a power of two from 8 to ackBlock.
func firstAckBlock(off int) int {
	n := 8
	for n <= off && n < ackBlock {
		n *= 2
	}
	return n
}

// growAcks is blk grown to at least n entries (at most ackBlock), doubled
// at the least.
func growAcks(blk []AckAt, n int) []AckAt {
	if len(blk) >= n {
		return blk
	}
	n = min(max(n, 2*len(blk)), ackBlock)
	nb := make([]AckAt, n)
	copy(nb, blk)
	return nb
}

// ackHashes is what the check keeps of recentAcks: by chat, the message
// id hash of the first ack at each sequence from base on, 0 none. Sync
// answers read their ids from it (syncRef).
type ackHashes struct {
	base  []uint64
	bySeq [][]uint64
}

// Hashes is r as ackHashes, each chat's table at its length.
func (r *RecentAcks) Hashes() ackHashes {
	r.Unspill()
	h := ackHashes{base: make([]uint64, len(r.chats)), bySeq: make([][]uint64, len(r.chats))}
	for c := range r.chats {
		t := &r.chats[c]
		hs := make([]uint64, t.n)
		for b, blk := range t.blocks {
			for j := range blk {
				if i := b<<ackShift + j; i < len(hs) && blk[j].Mid != 0 {
					hs[i] = blk[j].MidHash
				}
			}
		}
		h.base[c], h.bySeq[c] = t.base, hs
	}
	return h
}

// At is the message id hash of the first ack at chat and seq, 0 none.
func (h *ackHashes) At(chat int32, seq uint64) uint64 {
	if int(chat) < len(h.bySeq) && seq >= h.base[chat] {
		if i := seq - h.base[chat]; i < uint64(len(h.bySeq[chat])) {
			return h.bySeq[chat][i]
		}
	}
	return 0
}

// finalIDs numbers a final line's message id and key (key "": none) at
// chat and seq: those of the ack at that sequence where the strings are
// the same; the key is only the ack's when the message id is too, and
// when the line names a sender (it may not: noSender), the ack's sender.
// A line without a sender thus takes the sender of the ack it repeats.
func (l *Log) finalIDs(chat int32, seq uint64, mid, key string, sender uint32) (uint32, int32) {
	a := l.acked.At(chat, seq)
	if a == nil || a.MidHash != StringHash(mid) {
		id := l.mid(chat, mid)
		if key == "" {
			return id, -1
		}
		return id, l.NewKey(chat, sender, key)
	}
	switch {
	case key == "":
		return a.Mid, -1
	case a.key >= 0 && a.keyHash == StringHash(key) && (sender == NoSender || a.sender == sender):
		return a.Mid, a.key
	}
	return a.Mid, l.NewKey(chat, sender, key)
}

// twinAt is where a final line's twin in table would be: a line of the
// same chat, key text, sequence and message id (by its hash; the names
// are compared too).
type twinAt struct {
	table   TableKind
	chat    int32
	text    string
	seq     uint64
	midHash uint64
}

// twinLine is the sender's key and the message id of a line naming its
// sender, where a twin of it would be; key is several where two senders'
// lines are there.
type twinLine struct {
	key int32
	mid uint32
}

func (l *Log) twinAt(f *FinalRecord, table TableKind, text string) twinAt {
	return twinAt{table: table, chat: f.Chat, text: text, seq: f.Seq, midHash: l.NewMids.At(int32(f.MessageID)).hash}
}

// midName is the text of a provisional message id.
func (l *Log) midName(mid uint32) string { return l.keys.Get(l.NewMids.At(int32(mid)).name) }

// senderUse is what a sender's key's persists did, for attributeSenderless:
// whether one is of unknown outcome (info, or never completed) and when
// the first such began, whether one was answered ok or rejected as
// reused, and their content (payloads: more than one).
type senderUse struct {
	open, answered, rejected, payloads bool
	firstOpen                          int64
	payload                            uint64
}

func (u *senderUse) note(o *Op, errNames []string) {
	switch {
	case o.Status == StOK:
		u.answered = true
	case o.Status == StInfo || o.Status == StOpen:
		if !u.open || o.call < u.firstOpen {
			u.firstOpen = o.call
		}
		u.open = true
	case o.Status == StFail && errNames[o.Err()] == "idempotency_key_reused":
		u.rejected = true
	}
	if o.Payload != u.payload {
		u.payloads = true
	}
}
