package checker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// NameIdempotencySeqConsist is the invariant's name as HISTORY.md spells it.
const NameIdempotencySeqConsist = "idempotency_sequence_consistency"

// checkIdempotencySequenceConsistency: the final idempotency record of a key
// and the final message carrying it agree on seq and message_id; one
// without the other is a failure, since ADR-004 writes both in one
// transaction, and so is an idempotency table (read, even empty) without
// the record of a key a persist was acknowledged for, or with one that
// names another message: a replay shows the record existed during the
// run, and records are never deleted (within their TTL). Where a chat's
// final lines carry no key that can be attributed (key_scope client,
// FORMAT.md rule 4), a missing counterpart may be one of them: unknown,
// never a failure claimed on a guess.
func checkIdempotencySequenceConsistency(x *index) Result {
	v := newVerdict(NameIdempotencySeqConsist)
	if !x.HasIdem {
		v.notApplicable("%s", x.Lacking(history.TableIdempotency))
		return v.result()
	}
	if !x.HasMessages && len(x.Acks) == 0 && len(x.SyncsByChat) == 0 && x.KeyedRecords() == 0 {
		// Records whose key is not known still compare with each other:
		// two at one sequence are two keys of one message, or two messages
		// at one sequence (oracle seed 3040735, a false PASS).
		if x.recordsSharingASequence(v); v.Fails() > 0 {
			return v.result()
		}
		v.notApplicable("no final messages lines, acks or syncs to compare the idempotency records with")
		return v.result()
	}
	pairs := 0
	needs := counterpartNeeds{}
	for k := int32(0); k < int32(len(x.KeyNames)); k++ {
		rec, msg := x.KeyIdem[k], x.KeyMsg[k]
		if r2, ok := x.KeyIdem2[k]; ok {
			a, b := x.Fin.At(rec), x.Fin.At(r2)
			v.fail([]int{int(a.Line), int(b.Line)}, "chat %q key %q has two idempotency records (lines %d and %d)", x.ChatNames[a.Chat], x.FinKeyName(a), a.Line, b.Line)
		}
		switch {
		case rec >= 0 && msg >= 0:
			pairs++
			r, m := x.Fin.At(rec), x.Fin.At(msg)
			if r.Seq != m.Seq || r.MessageID != m.MessageID {
				v.fail([]int{int(r.Line), int(m.Line)}, "chat %q key %q: idempotency record says seq %d %q (line %d), the message says seq %d %q (line %d)",
					x.ChatNames[r.Chat], x.FinKeyName(r), r.Seq, x.MidName(r.MessageID), r.Line, m.Seq, x.MidName(m.MessageID), m.Line)
			}
		case rec >= 0 && x.HasMessages:
			r := x.Fin.At(rec)
			lo, hi := store.Span(x.MsgSpan, r.Chat)
			if x.KeylessMsgIn[r.Chat] > 0 && x.keylessMayBe(x.Msgs[lo:hi], x.FinKeyName(r), r.Seq, r.MessageID) {
				needs.add(counterpartNeed{r.Chat, store.TableMessages, r.Seq, r.MessageID, x.FinKeyName(r)}, k, []int{int(r.Line)})
				continue
			}
			v.fail([]int{int(r.Line)}, "chat %q key %q: idempotency record (line %d) but no message carries the key%s%s", x.ChatNames[r.Chat], x.FinKeyName(r), r.Line, x.ReadEmptyNote(store.TableMessages), x.noKeylessNote(x.KeylessMsgIn[r.Chat], "message"))
		case msg >= 0:
			m := x.Fin.At(msg)
			if x.KeylessIdemIn[m.Chat] > 0 && x.keylessMayBe(x.RecordsOf(m.Chat), x.FinKeyName(m), m.Seq, m.MessageID) {
				needs.add(counterpartNeed{m.Chat, store.TableIdempotency, m.Seq, m.MessageID, x.FinKeyName(m)}, k, []int{int(m.Line)})
				continue
			}
			v.fail([]int{int(m.Line)}, "chat %q key %q: message at seq %d (line %d) has no idempotency record%s%s", x.ChatNames[m.Chat], x.FinKeyName(m), m.Seq, m.Line, x.ReadEmptyNote(store.TableIdempotency), x.noKeylessNote(x.KeylessIdemIn[m.Chat], "record"))
		}
	}
	x.acksAgainstRecords(v, needs)
	x.keylessEnough(v, needs)
	x.recordsSharingASequence(v)
	x.syncsAgainstRecords(v)
	x.keylessCounterparts(v)
	// With sole_writer such a line above initial_counter, of a key text
	// several senders of its chat used, is one of those senders' keys',
	// which one not known: unknown. Without it, another writer's key
	// under its text explains it, and what it must agree with whoever
	// wrote it is judged above (its own counterpart; as a key's missing
	// one, by keylessEnough); so it does with sole_writer for a line from
	// before the run (the promise is for the run's lines), and for one of
	// a text no persist of its chat used (no key of the history's, a
	// phantom: no_phantom_messages).
	// A message with no key at all may be any key's, its own record
	// elided, or a persist's without a key (no record): unknown.
	if x.UntextedMessages() {
		v.unknown("%s carry no key", plural(x.KeylessMsgs, "final message"))
	} else if n := x.soleWritersUnattributed(store.TableMessages); n > 0 {
		v.unknown("%s carry no key that can be attributed (key_scope client: no sender, and several senders of the history used its key)", plural(n, "final message"))
	}
	if n := x.soleWritersUnattributed(store.TableIdempotency); n > 0 {
		v.unknown("%s carry no key that can be attributed (key_scope client: no sender, and no ack or sole writer's single sender names it)", plural(n, "idempotency record"))
	}
	v.pass("%s: record and message agree; every acknowledged key has its record", plural(pairs, "key"))
	return v.result()
}

// soleWritersUnattributed counts, under sole_writer, the final lines of
// table above initial_counter whose key text several senders of their
// chat used and which cannot be attributed: each is one of those senders'
// keys', which one not known.
func (x *index) soleWritersUnattributed(table store.TableKind) int {
	if !x.SoleWriter || table == store.TableMessages && x.KeylessMsgs == 0 || table == store.TableIdempotency && x.KeylessIdems == 0 {
		return 0
	}
	n := 0
	for i, f := range x.RunsLines() {
		if f.Table == table && f.Key == store.FinKeyless {
			if _, texted := x.SenderlessKey[i]; texted {
				n++
			}
		}
	}
	return n
}

// acksAgainstRecords fails each acknowledged persist whose key has no
// idempotency record, or one naming another sequence or message: the
// ack (a replay too, of a key from before the run as well) shows the
// record existed during the run. One whose record only a record without
// a known key may be goes to needs.
func (x *index) acksAgainstRecords(v *verdict, needs counterpartNeeds) {
	for _, o := range x.Acks {
		k := x.Ops.At(o).Key
		if k < 0 {
			continue
		}
		rec := x.KeyIdem[k]
		if rec < 0 {
			c := x.Ops.At(o).Chat
			if x.KeylessIdemIn[c] > 0 && x.keylessMayBe(x.RecordsOf(c), x.KeyText(k), x.AckSeq(o), x.AckID(o)) {
				needs.add(counterpartNeed{c, store.TableIdempotency, x.AckSeq(o), x.AckID(o), x.KeyText(k)}, k, x.OpLines(o))
				continue
			}
			v.fail(x.OpLines(o), "chat %q key %q was acknowledged as seq %d %q (line %d) but the final idempotency table holds no record of the key%s%s",
				x.ChatNames[c], x.KeyText(k), x.AckSeq(o), x.MidName(x.AckID(o)), x.DoneLine(o), x.ReadEmptyNote(store.TableIdempotency), x.noKeylessNote(x.KeylessIdemIn[c], "record"))
			continue
		}
		if r := x.Fin.At(rec); r.Seq != x.AckSeq(o) || r.MessageID != x.AckID(o) {
			v.fail(append(x.OpLines(o), int(r.Line)), "chat %q key %q was acknowledged as seq %d %q (line %d) but its idempotency record says seq %d %q (line %d)",
				x.ChatNames[r.Chat], x.KeyText(k), x.AckSeq(o), x.MidName(x.AckID(o)), x.DoneLine(o), r.Seq, x.MidName(r.MessageID), r.Line)
		}
	}
}

// recordsSharingASequence fails two idempotency records of other keys (or
// none that can be attributed) at one (chat, seq): one message has one key;
// and two records naming one message id at two sequences of a chat.
func (x *index) recordsSharingASequence(v *verdict) {
	var recs []int32
	for i := range x.Fin.Count() {
		if x.Fin.At(i).Table == store.TableIdempotency {
			recs = append(recs, i)
		}
	}
	store.SortByKey(recs, func(i int32) store.SortKey {
		return store.SortKey{Chat: x.Fin.At(i).Chat, A: x.Fin.At(i).Seq, B: int64(x.Fin.At(i).Line)}
	})
	for j := 1; j < len(recs); j++ {
		a, b := x.Fin.At(recs[j-1]), x.Fin.At(recs[j])
		if a.Chat != b.Chat || a.Seq != b.Seq || (a.Key == b.Key && a.Key >= 0) {
			continue // one key's two records fail above
		}
		v.fail([]int{int(a.Line), int(b.Line)}, "chat %q seq %d has two idempotency records, of keys %q (line %d) and %q (line %d): one message has one key",
			x.ChatNames[a.Chat], a.Seq, x.finKeyText(recs[j-1]), a.Line, x.finKeyText(recs[j]), b.Line)
	}
	// Nor does one message id name two sequences of a chat.
	store.SortByKey(recs, func(i int32) store.SortKey {
		return store.SortKey{Chat: x.Fin.At(i).Chat, A: uint64(x.Fin.At(i).MessageID), B: int64(x.Fin.At(i).Line)}
	})
	for j := 1; j < len(recs); j++ {
		a, b := x.Fin.At(recs[j-1]), x.Fin.At(recs[j])
		if a.Chat == b.Chat && a.MessageID == b.MessageID && a.Seq != b.Seq {
			v.fail([]int{int(a.Line), int(b.Line)}, "chat %q: the idempotency records at lines %d and %d name message %q at two sequences, %d and %d",
				x.ChatNames[a.Chat], a.Line, b.Line, x.MidName(a.MessageID), a.Seq, b.Seq)
		}
	}
}

// syncsAgainstRecords fails each message a sync returned whose sequence
// holds an idempotency record naming another message id: a record is its
// message's, whoever wrote it. A message a sync alone shows may lack its
// record (records expire: the idempotency table is not the list of
// messages).
func (x *index) syncsAgainstRecords(v *verdict) {
	if x.HasMessages {
		// A sync's answer is checked against the messages table
		// (sync_completeness) and each record against its key's
		// message (idempotency_sequence_consistency): the record at a
		// sequence a sync returned is then the sync's message. Skipped,
		// that saves a map of every record (a fifth of a 2M-persist
		// check's time).
		return
	}
	type chatSeq struct {
		chat int32
		seq  uint64
	}
	recAt := map[chatSeq]int32{}
	for i := range x.Fin.Count() {
		if f := x.Fin.At(i); f.Table == store.TableIdempotency {
			if _, ok := recAt[chatSeq{f.Chat, f.Seq}]; !ok {
				recAt[chatSeq{f.Chat, f.Seq}] = i
			}
		}
	}
	if len(recAt) == 0 {
		return
	}
	var buf store.SyncBuf
	for _, o := range x.SyncsByChat {
		seqs, ids, ok := x.SyncResult(o, &buf)
		if !ok {
			continue
		}
		c := x.Ops.At(o).Chat
		for j, s := range seqs {
			if r, found := recAt[chatSeq{c, s}]; found && j < len(ids) && x.MidHash[x.Fin.At(r).MessageID] != ids[j] {
				v.fail(append(x.OpLines(o), int(x.Fin.At(r).Line)), "chat %q: the sync at line %d returned seq %d as another message than its idempotency record names, %q (line %d)",
					x.ChatNames[c], x.DoneLine(o), s, x.MidName(x.Fin.At(r).MessageID), x.Fin.At(r).Line)
			}
		}
	}
}

// keylessMayBe reports whether one of the final lines of a chat's table
// (its records or messages) whose key is not known could be the missing
// counterpart of key text at (seq, mid): it must name that sequence and
// message, and carry that key text (a line without a sender under
// key_scope client keeps its text, x.SenderlessKey; a message without any
// key could be any key's). When none could, the counterpart is missing
// whatever the lines' senders were: a failure, not a guess (oracle seed
// 1200001's range).
func (x *index) keylessMayBe(lines []int32, text string, seq uint64, mid uint32) bool {
	for _, i := range lines {
		f := x.Fin.At(i)
		if f.Key >= 0 || f.Seq != seq || f.MessageID != mid {
			continue
		}
		if t, ok := x.SenderlessKey[i]; !ok || t == text {
			return true
		}
	}
	return false
}

// noKeylessNote says, where the chat has final lines of the table whose key
// is not known, that none of them can be the counterpart.
func (x *index) noKeylessNote(keyless int, line string) string {
	if keyless == 0 {
		return ""
	}
	return fmt.Sprintf(" (none of the chat's %s whose key is not known names that sequence and message under that key)", plural(keyless, line))
}

// finKeyText is final line i's key text: its key's, or, for a line without
// a sender whose key could not be attributed, the text it names.
func (x *index) finKeyText(i int32) string {
	if t, ok := x.SenderlessKey[i]; ok {
		return t
	}
	return x.FinKeyName(x.Fin.At(i))
}

// keylessCounterparts fails a final line whose key is not known (without
// a sender, key_scope client) that lacks its counterpart, as a key's line
// does, whoever wrote it: a record needs a message at its sequence, with
// its message id, under its key text (a read messages table), and a
// message its record (a read idempotency table).
func (x *index) keylessCounterparts(v *verdict) {
	if x.KeylessIdems > 0 && x.HasMessages {
		for c, n := range x.KeylessIdemIn {
			if n == 0 {
				continue
			}
			lo, hi := store.Span(x.MsgSpan, c)
			held := x.namedLines(x.Msgs[lo:hi])
			for _, r := range x.RecordsOf(c) {
				if f := x.Fin.At(r); f.Key < 0 && !held[namedLine{f.Seq, f.MessageID, x.finKeyText(r)}] {
					v.fail([]int{int(f.Line)}, "chat %q: the idempotency record of key %q without a sender (line %d) names seq %d %q, and no final message is there under that key text%s",
						x.ChatNames[c], x.finKeyText(r), f.Line, f.Seq, x.MidName(f.MessageID), x.ReadEmptyNote(store.TableMessages))
				}
			}
		}
	}
	if x.KeylessMsgs > 0 && x.HasIdem {
		for c, n := range x.KeylessMsgIn {
			if n == 0 {
				continue
			}
			held := x.namedLines(x.RecordsOf(c))
			lo, hi := store.Span(x.MsgSpan, c)
			for _, m := range x.Msgs[lo:hi] {
				f := x.Fin.At(m)
				if _, texted := x.SenderlessKey[m]; texted && f.Key < 0 && !held[namedLine{f.Seq, f.MessageID, x.finKeyText(m)}] {
					v.fail([]int{int(f.Line)}, "chat %q: the message of key %q without a sender at seq %d (line %d) has no idempotency record under that key text%s",
						x.ChatNames[c], x.finKeyText(m), f.Seq, f.Line, x.ReadEmptyNote(store.TableIdempotency))
				}
			}
		}
	}
}

// namedLine is what a final line names: its sequence, message id and key
// text.
type namedLine struct {
	seq  uint64
	mid  uint32
	text string
}

// namedLines is the set of what lines (a chat's messages or records) name.
func (x *index) namedLines(lines []int32) map[namedLine]bool {
	held := make(map[namedLine]bool, len(lines))
	for _, i := range lines {
		f := x.Fin.At(i)
		held[namedLine{f.Seq, f.MessageID, x.finKeyText(i)}] = true
	}
	return held
}

// counterpartNeed is what the line a key lacks must name, where only a
// line whose key is not known may be it: its table, chat, sequence,
// message id and key text.
type counterpartNeed struct {
	chat  int32
	table store.TableKind
	seq   uint64
	mid   uint32
	text  string
}

// counterpartNeeds is, per need, the keys that have it and a line of each
// (a key's message, record or ack: the counterexample).
type counterpartNeeds map[counterpartNeed]map[int32][]int

func (n counterpartNeeds) add(need counterpartNeed, key int32, lines []int) {
	if n[need] == nil {
		n[need] = map[int32][]int{}
	}
	if _, had := n[need][key]; !had {
		n[need][key] = lines
	}
}

// keylessEnough fails the keys whose missing counterpart no line whose
// key is not known is left to be: each such line is one key's at most (a
// message has one key, a record is its message's), one under the key's
// text first, then one with no key at all. Where there are enough, each
// key may have its line: whoever wrote the others, nothing is missing
// (it was unknown).
func (x *index) keylessEnough(v *verdict, needs counterpartNeeds) {
	if len(needs) == 0 {
		return
	}
	type at struct {
		chat  int32
		table store.TableKind
		seq   uint64
		mid   uint32
	}
	texted, untexted := map[counterpartNeed]int{}, map[at]int{}
	count := func(table store.TableKind, lines []int32) {
		for _, i := range lines {
			f := x.Fin.At(i)
			if f.Key >= 0 {
				continue
			}
			if text, ok := x.SenderlessKey[i]; ok {
				texted[counterpartNeed{f.Chat, table, f.Seq, f.MessageID, text}]++
			} else {
				untexted[at{f.Chat, table, f.Seq, f.MessageID}]++
			}
		}
	}
	chats := map[int32]bool{}
	for need := range needs {
		chats[need.chat] = true
	}
	for _, c := range slices.Sorted(maps.Keys(chats)) {
		lo, hi := store.Span(x.MsgSpan, c)
		count(store.TableMessages, x.Msgs[lo:hi])
		count(store.TableIdempotency, x.RecordsOf(c))
	}
	// In a fixed order, so the counterexample does not vary.
	order := slices.SortedFunc(maps.Keys(needs), func(a, b counterpartNeed) int {
		return cmp.Or(cmp.Compare(a.chat, b.chat), cmp.Compare(a.table, b.table), cmp.Compare(a.seq, b.seq), cmp.Compare(a.mid, b.mid), cmp.Compare(a.text, b.text))
	})
	for _, need := range order {
		keys := slices.Sorted(maps.Keys(needs[need]))
		spare := at{need.chat, need.table, need.seq, need.mid}
		for _, k := range keys {
			switch {
			case texted[need] > 0:
				texted[need]--
			case untexted[spare] > 0:
				untexted[spare]--
			default:
				what := "message"
				if need.table == store.TableIdempotency {
					what = "idempotency record"
				}
				v.fail(needs[need][k], "chat %q key %q: its %s at seq %d %q is missing: the %ss there whose key is not known are fewer than the keys of its text that need one", x.ChatNames[need.chat], x.KeyText(k), what, need.seq, x.MidName(need.mid), what)
			}
		}
	}
}
