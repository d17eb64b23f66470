package oracle

import (
	"fmt"
	"sort"
	"strconv"
)

// The sequential specification of one chat's sequencer, read from
// HISTORY.md, history/FORMAT.md, ADR-001 and ADR-004:
//
//   - The state is the set of committed messages: (seq, message_id, key,
//     sender, payload_hash). Before the run it holds only messages at
//     sequences 1..initial_counter (any of them, with any keys: the
//     documents say syncs "may" return them and replays "may" answer
//     them, so the oracle never requires them to be gapless).
//   - persist ok dedup=false: the key (scoped per chat, or per sender per
//     chat under key_scope client) is not committed; the sequence is
//     unused, >= 1 and above initial_counter; under gaps forbidden it is
//     exactly one above the highest sequence held. It commits.
//   - persist ok dedup=true: the key is committed with that (seq,
//     message_id); under key_reuse reject the committed content
//     (payload_hash) is the persist's own.
//   - persist fail idempotency_key_reused under key_reuse reject: the key
//     is committed with other content. Any other fail: no effect, nothing
//     observed; but under return-original, idempotency_key_reused once the
//     key was known held breaks the history (refusedOnceHeld).
//   - persist info (or never completed): at most one commit, of its own
//     key and content, at any point after its invoke (even after the info
//     line: the request may still be in flight), with any sequence the
//     rules above allow and any message id.
//   - sync ok: exactly the committed messages above after, ascending, the
//     first limit of them (0: no limit). A failed or unknown sync reads
//     nothing.
//
// Choices where the documents leave room, taken as a demanding user would:
//   - Message ids are unique: two messages never share one (ADR-001 calls
//     it the server-assigned message identifier).
//   - Without sole_writer other clients may write the chat: a message that
//     no persist of the history could have written (its key is none of the
//     chat's persists' keys, or it is only seen by a sync) may have been
//     committed by another writer at any time. Another writer never uses a
//     key of the history: a key the history used only in fail answers
//     therefore explains no message (HISTORY.md: "a final message whose
//     key only ever had fail answers breaks the history").
//     Under gaps forbidden such a message may also be one no line shows,
//     taking the next sequence (a gap in the acks is then another
//     writer's message, unless a table read or a sync shows none there).
//   - With sole_writer no other writer exists during the run; messages at
//     or below initial_counter still predate it and are allowed.
//   - A payload_hash absent is the empty string, compared as any other.
//   - Final tables are the state after the run: a read messages table
//     holds exactly the committed messages; a read idempotency table holds
//     at most one record per message and none without its message, and
//     one for every message the history shows to exist (a line of the
//     messages table read, or an ack; ADR-004 writes both in one
//     transaction), before the run or not. A message nothing shows (an
//     unacknowledged send's, another writer's) may lack its record: records
//     expire, so the idempotency table is not the list of messages (the
//     lead's decision on D11); a read
//     counters table holds each chat's counter, at least every committed
//     sequence and initial_counter (the counter only grows), exactly the
//     highest under gaps forbidden. A chat with no counter line in a read
//     counters table has lost its counter, as a "missing" one has.
//   - A final table has a primary key: messages (chat, seq), idempotency
//     (chat, key), counters (chat). Two lines under one primary key, even
//     two equal lines, are a table that holds two rows where it can hold
//     one: they break the history.
//   - Under key_scope client a final line without sender may be any
//     sender's: the chat is valid when some attribution makes it valid.

// keyRef is a scoped idempotency key.
type keyRef struct {
	raw, sender string
	anySender   bool   // a final line under key_scope client without sender
	unique      string // non-empty: a key no other message can share
}

func (k keyRef) id() string {
	if k.unique != "" {
		return "\x02" + k.unique
	}
	return k.sender + "\x00" + k.raw
}

type message struct {
	seq     uint64
	mid     string
	key     keyRef
	payload string
}

type dkind int

const (
	dNew dkind = iota
	dReplay
	dReject
	dSync
	dInfo    // optional: may commit its own message
	dForeign // optional: another writer's message, fixed
	dGhostK  // optional, before the run: a history key's message
)

type dop struct {
	kind             dkind
	invoke, complete int64
	key              keyRef
	payload          string
	seq              uint64
	mid              string
	after, limit     uint64
	seqs             []uint64
	mids             []string
	msg              message // dForeign
	payloads         []string
	anySeq           bool // dGhostK: any free sequence, besides seqs
}

func (d *dop) mandatory() bool { return d.kind <= dSync }
func (d *dop) ghost() bool {
	return d.kind == dGhostK || (d.kind == dForeign && d.invoke == always && d.complete == always)
}

// chatJudge decides one chat.
type chatJudge struct {
	s         *spec
	ops       []dop
	mentioned map[uint64]bool
	pairs     map[uint64][]string // seq -> every message id shown with it
	critical  []uint64
	finals    map[string][]finalLine // table -> this chat's distinct lines
	memo      map[string]bool
	anonBound uint64
	noFinal   bool // judge the operations alone (for the reason)
	// usedKeys: the keys (as key_scope scopes them) the chat's persists
	// used, by id.
	usedKeys map[string]bool
	// anonBound: under gaps forbidden without sole_writer, the highest
	// sequence an unseen writer's message may take (0: none may).
	steps int
}

// other is the content of a message from before the run whose content
// differs from every persist's.
const other = "\x03other"

func (s *spec) scoped(key, sender string) keyRef {
	if s.clientScope {
		return keyRef{raw: key, sender: sender}
	}
	return keyRef{raw: key}
}

// judge returns whether every chat is valid and, if not, why the first
// invalid chat is.
func (s *spec) judge() (bool, string) {
	for _, c := range s.chats() {
		if ok, why := s.judgeChat(c); !ok {
			return false, fmt.Sprintf("chat %q: %s", c, why)
		}
	}
	return true, ""
}

func (s *spec) judgeChat(chat string) (bool, string) {
	var ops []operation
	for _, op := range s.ops {
		if op.chat == chat {
			ops = append(ops, op)
		}
	}
	if why := sequenceMonotonic(ops); why != "" {
		return false, why
	}
	if why := s.storedAsSent(chat, ops); why != "" {
		return false, why
	}
	if why := s.storedAsItsKeySent(chat, ops); why != "" {
		return false, why
	}
	if why := s.shownAsSent(chat, ops); why != "" {
		return false, why
	}
	if why := s.refusedOnceHeld(ops); why != "" {
		return false, why
	}
	if why := s.shownKeysHoldOne(chat, ops); why != "" {
		return false, why
	}
	if why := s.shownFailedKeys(ops); why != "" {
		return false, why
	}
	j := s.newJudge(chat, ops)
	if j.search() {
		return true, ""
	}
	j.noFinal, j.memo = true, map[string]bool{}
	if j.search() {
		return false, "the operations linearize, but no linearization leaves the final tables' state" + s.finalCulprit(chat, ops)
	}
	return false, "no linearization of the operations"
}

// storedAsSent: a final messages line that gives its stored content's
// payload_hash holds what the persist acknowledged as creating that
// message (an ack not a replay) sent, where it sent one, and one that
// gives its sender that persist's sender, where it named one, under
// either key_scope (FORMAT.md's final lines, ack_implies_persistence).
func (s *spec) storedAsSent(chat string, ops []operation) string {
	for _, f := range s.finals {
		if f.table != "messages" || f.chat != chat || f.payload == "" {
			continue
		}
		for _, op := range ops {
			if op.kind == persistOK && !op.dedup && op.payload != "" &&
				op.seq == f.seq && op.mid == f.mid && op.payload != f.payload {
				return fmt.Sprintf("ack_implies_persistence: seq %d %q was acked to a persist that sent %q, and is stored with %q", f.seq, f.mid, op.payload, f.payload)
			}
		}
	}
	for _, f := range s.finals {
		if f.table != "messages" || f.chat != chat || f.sender == "" {
			continue
		}
		for _, op := range ops {
			if op.kind == persistOK && !op.dedup && op.sender != "" &&
				op.seq == f.seq && op.mid == f.mid && op.sender != f.sender {
				return fmt.Sprintf("ack_implies_persistence: seq %d %q was acked to a persist sent by %q, and is stored as sent by %q", f.seq, f.mid, op.sender, f.sender)
			}
		}
	}
	return ""
}

// shownAsSent: where a sync ok says what a returned message carried (its
// keys, senders or payload_hashes entry, not ""), that is what the persist
// acknowledged with the message's id, not as a replay, sent as its key,
// sender and payload_hash. A message acknowledged only as replays is
// held, field by field, to what all of its key's persists sent alike
// (those that ended fail left out: a fail took no effect), and only when the header says sole_writer and its sequence is above
// initial_counter (FORMAT.md, the sync ok's fields and identical_order).
//
// A message no persist is known to have created is held instead to the
// key of the first replay that answered with it, and to what the first
// final messages line of its id says it carries (its key, its
// sender, its payload_hash), when that line stores it at the sequence the
// sync shows: a message carries one key, sender and content however it
// is read (FORMAT.md, the sync ok's fields).
func (s *spec) shownAsSent(chat string, ops []operation) string {
	for _, y := range ops {
		if y.kind != syncOK {
			continue
		}
		for i, seq := range y.seqs {
			shown := [3]string{at(y.shownKeys, i), at(y.shownSenders, i), at(y.shownPayloads, i)}
			sent, ok := s.sentWith(ops, y.mids[i])
			if !ok {
				if why := shownAsReplayed(ops, seq, y.mids[i], shown[0]); why != "" {
					return why
				}
				if why := s.shownAsStored(chat, seq, y.mids[i], shown); why != "" {
					return why
				}
				continue
			}
			for f, name := range [3]string{"key", "sender", "payload_hash"} {
				if shown[f] != "" && sent[f] != "" && shown[f] != sent[f] {
					return fmt.Sprintf("sync_completeness: a sync shows seq %d %q with %s %q, sent with %q", seq, y.mids[i], name, shown[f], sent[f])
				}
			}
		}
	}
	return ""
}

// shownAsReplayed: a replay's answer names its message as the replayed
// key's, whoever wrote it, so a sync that shows that message with another
// key (not "") contradicts it (FORMAT.md, the sync ok's fields).
func shownAsReplayed(ops []operation, seq uint64, mid, key string) string {
	if key == "" {
		return ""
	}
	for _, op := range ops {
		if op.kind == persistOK && op.dedup && op.mid == mid {
			if op.key != key {
				return fmt.Sprintf("sync_completeness: a sync shows seq %d %q with key %q, which a replay of %q answered", seq, mid, key, op.key)
			}
			return ""
		}
	}
	return ""
}

// shownAsStored compares what a sync showed message mid at seq carrying
// with the first final messages line of mid in chat, if it is at seq.
func (s *spec) shownAsStored(chat string, seq uint64, mid string, shown [3]string) string {
	for _, f := range s.finals {
		if f.table != "messages" || f.chat != chat || f.mid != mid {
			continue
		}
		if f.seq != seq {
			return ""
		}
		stored := [3]string{f.key, f.sender, f.payload}
		for k, name := range [3]string{"key", "sender", "payload_hash"} {
			if shown[k] != "" && stored[k] != "" && shown[k] != stored[k] {
				return fmt.Sprintf("sync_completeness: a sync shows seq %d %q with %s %q, stored with %q", seq, mid, name, shown[k], stored[k])
			}
		}
		return ""
	}
	return ""
}

// sentWith is what the message with id mid was sent with (key, sender,
// payload_hash; "" not known), and whether anything is known.
func (s *spec) sentWith(ops []operation, mid string) ([3]string, bool) {
	for _, op := range ops {
		if op.kind == persistOK && !op.dedup && op.mid == mid {
			return [3]string{op.key, op.sender, op.payload}, true
		}
	}
	var replay *operation
	for i := range ops {
		if ops[i].kind == persistOK && ops[i].dedup && ops[i].mid == mid {
			replay = &ops[i]
			break
		}
	}
	if replay == nil || !s.soleWriter || replay.seq <= s.initial {
		return [3]string{}, false
	}
	// The key's persists, as key_scope scopes a key.
	k := s.scoped(replay.key, replay.sender)
	sent := [3]string{replay.key, "", ""}
	first := true
	known := firstOKAnswer(ops, func(op operation) bool { return s.scoped(op.key, op.sender).id() == k.id() })
	for _, op := range ops {
		// "(those that ended fail left out: a fail took no effect)",
		// FORMAT.md's identical_order, which the sync ok's fields follow.
		// Nor those answered as a replay: a replay answers with a
		// message an earlier persist made (sequence_monotonic's "not
		// the replay").
		// Nor those invoked after an ok answer of the key had shown its
		// message written.
		if op.kind != persistOK && op.kind != persistInfo || op.kind == persistOK && op.dedup || op.invoke > known {
			continue
		}
		if s.scoped(op.key, op.sender).id() != k.id() {
			continue
		}
		if first {
			sent[1], sent[2], first = op.sender, op.payload, false
			continue
		}
		if op.sender != sent[1] {
			sent[1] = ""
		}
		if op.payload != sent[2] {
			sent[2] = ""
		}
	}
	if first {
		// Only replays and failures: none of them made the message.
		return [3]string{}, false
	}
	return sent, true
}

func at(ss []string, i int) string {
	if i < len(ss) {
		return ss[i]
	}
	return ""
}

// refusedOnceHeld: under key_reuse return-original a held key gets its
// original sequence, so no persist is refused as idempotency_key_reused
// after its key was known held: invoked after an ok answer of the key (as
// key_scope scopes it) completed, or after an ok sync completed that
// returned the (seq, message_id) such an answer gave (FORMAT.md, the
// contract's key_reuse).
func (s *spec) refusedOnceHeld(ops []operation) string {
	if s.reject {
		return ""
	}
	for _, r := range ops {
		if r.kind != persistFail || r.errCode != "idempotency_key_reused" {
			continue
		}
		key := s.scoped(r.key, r.sender).id()
		for _, a := range ops {
			if a.kind != persistOK || s.scoped(a.key, a.sender).id() != key {
				continue
			}
			if a.complete < r.invoke {
				return fmt.Sprintf("idempotency_guarantee: key %q refused as reused at %d, acked at %d", r.key, r.invoke, a.complete)
			}
			for _, y := range ops {
				if y.kind != syncOK || y.complete >= r.invoke {
					continue
				}
				for i := range y.seqs {
					if y.seqs[i] == a.seq && y.mids[i] == a.mid {
						return fmt.Sprintf("idempotency_guarantee: key %q refused as reused at %d, its message shown by a sync at %d", r.key, r.invoke, y.complete)
					}
				}
			}
		}
	}
	return ""
}

// sequenceMonotonic: of two persists acked as new, the one acked before the
// other was invoked has the smaller sequence (HISTORY.md).
func sequenceMonotonic(ops []operation) string {
	for _, a := range ops {
		for _, b := range ops {
			if a.kind == persistOK && b.kind == persistOK && !a.dedup && !b.dedup &&
				a.complete < b.invoke && a.seq >= b.seq {
				return fmt.Sprintf("sequence_monotonic: seq %d acked at %d, then seq %d invoked at %d", a.seq, a.complete, b.seq, b.invoke)
			}
		}
	}
	return ""
}

func (s *spec) newJudge(chat string, ops []operation) *chatJudge {
	j := &chatJudge{s: s, mentioned: map[uint64]bool{}, pairs: map[uint64][]string{},
		finals: map[string][]finalLine{}, memo: map[string]bool{}}
	pair := func(seq uint64, mid string) {
		j.mentioned[seq] = true
		for _, m := range j.pairs[seq] {
			if m == mid {
				return
			}
		}
		j.pairs[seq] = append(j.pairs[seq], mid)
	}
	crit := map[uint64]bool{0: true, s.initial: true}
	historyKeys := map[string]keyRef{}
	j.usedKeys = map[string]bool{}
	payloads := map[string][]string{}
	for _, op := range ops {
		if op.kind == persistOK || op.kind == persistFail || op.kind == persistInfo {
			k := s.scoped(op.key, op.sender)
			historyKeys[k.id()] = k
			j.usedKeys[k.id()] = true
			if !contains(payloads[k.id()], op.payload) {
				payloads[k.id()] = append(payloads[k.id()], op.payload)
			}
		}
		switch op.kind {
		case persistOK:
			pair(op.seq, op.mid)
			d := dop{kind: dNew, invoke: op.invoke, complete: op.complete,
				key: s.scoped(op.key, op.sender), payload: op.payload, seq: op.seq, mid: op.mid}
			if op.dedup {
				d.kind = dReplay
			}
			j.ops = append(j.ops, d)
		case persistFail:
			if s.reject && op.errCode == "idempotency_key_reused" {
				j.ops = append(j.ops, dop{kind: dReject, invoke: op.invoke, complete: op.complete,
					key: s.scoped(op.key, op.sender), payload: op.payload})
			}
		case persistInfo:
			j.ops = append(j.ops, dop{kind: dInfo, invoke: op.invoke, complete: never,
				key: s.scoped(op.key, op.sender), payload: op.payload})
		case syncOK:
			crit[op.after] = true
			for i := range op.seqs {
				pair(op.seqs[i], op.mids[i])
			}
			j.ops = append(j.ops, dop{kind: dSync, invoke: op.invoke, complete: op.complete,
				after: op.after, limit: op.limit, seqs: op.seqs, mids: op.mids})
		}
	}
	for _, f := range s.finals {
		if f.chat != chat {
			continue
		}
		j.finals[f.table] = append(j.finals[f.table], f)
		if f.table == "messages" || f.table == "idempotency" {
			pair(f.seq, f.mid)
		}
	}
	// A history key's message from before the run, where something shows
	// one: a replay answering a sequence at or below the initial counter,
	// a final line there under the key, or (under reject) a rejection.
	if s.initial > 0 {
		ids := make([]string, 0, len(historyKeys))
		for id := range historyKeys {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			k := historyKeys[id]
			var seqs []uint64
			ps := []string{""}
			if s.reject {
				ps = []string{other}
			}
			rejected := false
			for _, d := range j.ops {
				if d.key.id() != id {
					continue
				}
				switch {
				case d.kind == dReplay && d.seq >= 1 && d.seq <= s.initial:
					seqs = appendSeq(seqs, d.seq)
					if s.reject && !contains(ps, d.payload) {
						ps = append(ps, d.payload)
					}
				case d.kind == dReject:
					rejected = true
				}
			}
			for _, t := range []string{"messages", "idempotency"} {
				for _, f := range j.finals[t] {
					if f.seq >= 1 && f.seq <= s.initial && f.key == k.raw &&
						(!s.clientScope || !f.hasSender || f.sender == k.sender) {
						seqs = appendSeq(seqs, f.seq)
					}
				}
			}
			if len(seqs) == 0 && !rejected {
				continue
			}
			j.ops = append(j.ops, dop{kind: dGhostK, invoke: always, complete: always, key: k,
				payloads: ps, seqs: seqs, anySeq: rejected})
		}
	}
	// Messages another writer may have written, or that predate the run.
	foreign := map[string]bool{}
	acked := map[uint64]bool{}
	ackedMid := map[string]bool{}
	for _, d := range j.ops {
		if d.kind == dNew || d.kind == dReplay {
			acked[d.seq], ackedMid[d.mid] = true, true
		}
	}
	addForeign := func(m message) {
		if acked[m.seq] || ackedMid[m.mid] {
			return // a persist's message: another writer's there is ruled out
		}
		preRun := m.seq <= s.initial
		if !preRun && s.soleWriter {
			return
		}
		id := fmt.Sprintf("%d\x00%s\x00%s", m.seq, m.mid, m.key.id())
		if foreign[id] {
			return
		}
		foreign[id] = true
		d := dop{kind: dForeign, invoke: always, complete: never, msg: m}
		if preRun {
			d.complete = always
		}
		j.ops = append(j.ops, d)
	}
	for _, f := range j.finals["messages"] {
		j.lineForeign(f, historyKeys, addForeign)
	}
	for _, f := range j.finals["idempotency"] {
		j.lineForeign(f, historyKeys, addForeign)
	}
	for _, op := range ops {
		if op.kind == syncOK {
			for i := range op.seqs {
				addForeign(message{seq: op.seqs[i], mid: op.mids[i],
					key: keyRef{unique: fmt.Sprintf("sync %d %s", op.seqs[i], op.mids[i])}})
			}
		}
	}
	for seq := range j.mentioned {
		crit[seq] = true
		if s.gapsForbidden && !s.soleWriter && seq > j.anonBound {
			j.anonBound = seq
		}
	}
	for _, f := range j.finals["counters"] {
		if s.gapsForbidden && !s.soleWriter && f.value > j.anonBound {
			j.anonBound = f.value
		}
	}
	for c := range crit {
		j.critical = append(j.critical, c)
	}
	sort.Slice(j.critical, func(a, b int) bool { return j.critical[a] < j.critical[b] })
	return j
}

// lineForeign adds the message a final line shows as another writer's (or a
// pre-run one's) when no persist of the history could have written it.
func (j *chatJudge) lineForeign(f finalLine, historyKeys map[string]keyRef, add func(message)) {
	s := j.s
	switch {
	case s.clientScope && !f.hasSender:
		// Any sender's: another writer's too, whoever used the key.
		add(message{seq: f.seq, mid: f.mid, key: keyRef{raw: f.key, anySender: true,
			unique: fmt.Sprintf("line %d %s %s", f.seq, f.mid, f.key)}})
	default:
		k := s.scoped(f.key, f.sender)
		if _, used := historyKeys[k.id()]; !used {
			add(message{seq: f.seq, mid: f.mid, key: k})
		}
	}
}

func appendSeq(list []uint64, x uint64) []uint64 {
	for _, y := range list {
		if y == x {
			return list
		}
	}
	return append(list, x)
}

// takenSeq: an ack shows seq as another persist's: a persist acked new
// (whatever its key: its own commit needs the sequence, or its key
// uncommitted) or a replay of another key.
func (j *chatJudge) takenSeq(seq uint64, k keyRef) bool {
	for i := range j.ops {
		d := &j.ops[i]
		if d.seq == seq && (d.kind == dNew || d.kind == dReplay && d.key.id() != k.id()) {
			return true
		}
	}
	return false
}

// ackedBefore: a persist acked as new before d was invoked has a sequence
// at or above seq, so d, creating its message at seq, would break
// HISTORY.md's sequence_monotonic ("of two persists that each created
// their message, the one acknowledged before the other was invoked has the
// smaller sequence"): a persist of unknown outcome that commits creates.
func (j *chatJudge) ackedBefore(d *dop, seq uint64) bool {
	for i := range j.ops {
		a := &j.ops[i]
		if a.kind == dNew && a.complete < d.invoke && a.seq >= seq {
			return true
		}
	}
	return false
}

func (j *chatJudge) takenMid(mid string, k keyRef) bool {
	for i := range j.ops {
		d := &j.ops[i]
		if d.mid == mid && (d.kind == dNew || d.kind == dReplay && d.key.id() != k.id()) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// state is the committed messages, sorted by sequence.
type state []message

func (st state) at(seq uint64) (message, bool) {
	for _, m := range st {
		if m.seq == seq {
			return m, true
		}
	}
	return message{}, false
}

func (st state) byKey(k keyRef) (message, bool) {
	if k.unique != "" {
		return message{}, false
	}
	for _, m := range st {
		if m.key.unique == "" && m.key.id() == k.id() {
			return m, true
		}
	}
	return message{}, false
}

func (st state) midUsed(mid string) bool {
	for _, m := range st {
		if m.mid == mid {
			return true
		}
	}
	return false
}

func (st state) with(m message) state {
	out := make(state, 0, len(st)+1)
	out = append(out, st...)
	out = append(out, m)
	sort.Slice(out, func(a, b int) bool { return out[a].seq < out[b].seq })
	return out
}

func (j *chatJudge) top(st state) uint64 {
	t := j.s.initial
	if len(st) > 0 && st[len(st)-1].seq > t {
		t = st[len(st)-1].seq
	}
	return t
}

// canCommit: m may be committed now as a message of the run (or, preRun,
// before it).
func (j *chatJudge) canCommit(st state, m message, preRun bool) bool {
	if m.seq == 0 {
		return false
	}
	if _, used := st.at(m.seq); used {
		return false
	}
	if st.midUsed(m.mid) {
		return false
	}
	if _, dup := st.byKey(m.key); dup {
		return false
	}
	if preRun {
		return m.seq <= j.s.initial
	}
	if m.seq <= j.s.initial {
		return false
	}
	return !j.s.gapsForbidden || m.seq == j.top(st)+1
}

func (j *chatJudge) search() bool {
	return j.dfs(0, nil)
}

func (j *chatJudge) memoKey(done uint64, st state) string {
	b := make([]byte, 0, 16+len(st)*24)
	b = strconv.AppendUint(b, done, 16)
	for _, m := range st {
		b = append(b, '|')
		b = strconv.AppendUint(b, m.seq, 10)
		b = append(b, 0)
		b = append(b, m.mid...)
		b = append(b, 0)
		b = append(b, m.key.id()...)
		b = append(b, 0)
		b = append(b, m.payload...)
	}
	return string(b)
}

func (j *chatJudge) dfs(done uint64, st state) bool {
	key := j.memoKey(done, st)
	if j.memo[key] {
		return false
	}
	j.steps++
	minComplete := never
	allDone := true
	var runStarted bool
	for i := range j.ops {
		d := &j.ops[i]
		if done&(1<<i) != 0 {
			if !d.ghost() {
				runStarted = true
			}
			continue
		}
		if d.mandatory() {
			allDone = false
			if d.complete < minComplete {
				minComplete = d.complete
			}
		}
	}
	if allDone && (j.noFinal || j.finalOK(st)) {
		return true
	}
	lastGhost := -1
	for i := range j.ops {
		if done&(1<<i) != 0 && j.ops[i].ghost() {
			lastGhost = i
		}
	}
	for i := range j.ops {
		d := &j.ops[i]
		if done&(1<<i) != 0 || d.invoke > minComplete {
			continue
		}
		if d.ghost() && (runStarted || i < lastGhost) {
			continue // before the run, in one canonical order
		}
		for _, next := range j.outcomes(d, st) {
			if j.dfs(done|1<<i, next) {
				return true
			}
		}
	}
	// Under gaps forbidden another writer's message no line shows may
	// have taken the next sequence, at any time (without sole_writer).
	if j.anonBound > 0 {
		if next := j.top(st) + 1; next <= j.anonBound {
			m := message{seq: next, mid: fmt.Sprintf("\x01anon %d", next), key: keyRef{unique: fmt.Sprintf("anon %d", next)}}
			if j.dfs(done, st.with(m)) {
				return true
			}
		}
	}
	j.memo[key] = true
	return false
}

// outcomes lists the states d may lead to from st (none: d cannot take
// effect now).
func (j *chatJudge) outcomes(d *dop, st state) []state {
	switch d.kind {
	case dNew:
		m := message{seq: d.seq, mid: d.mid, key: d.key, payload: d.payload}
		if j.canCommit(st, m, false) {
			return []state{st.with(m)}
		}
	case dReplay:
		if m, ok := st.byKey(d.key); ok && m.seq == d.seq && m.mid == d.mid &&
			(!j.s.reject || m.payload == d.payload) {
			return []state{st}
		}
	case dReject:
		if m, ok := st.byKey(d.key); ok && m.payload != d.payload {
			return []state{st}
		}
	case dSync:
		if j.syncAnswers(d, st) {
			return []state{st}
		}
	case dForeign:
		if j.canCommit(st, d.msg, d.complete == always) {
			return []state{st.with(d.msg)}
		}
	case dInfo:
		var out []state
		for _, seq := range j.seqCandidates(st, false) {
			if j.takenSeq(seq, d.key) || j.ackedBefore(d, seq) {
				continue
			}
			for _, mid := range j.midCandidates(seq, d) {
				if j.takenMid(mid, d.key) {
					continue
				}
				m := message{seq: seq, mid: mid, key: d.key, payload: d.payload}
				if j.canCommit(st, m, false) {
					out = append(out, st.with(m))
				}
			}
		}
		return out
	case dGhostK:
		seqs := d.seqs
		if d.anySeq {
			seqs = append(append([]uint64{}, seqs...), j.seqCandidates(st, true)...)
		}
		var out []state
		for _, seq := range seqs {
			for _, mid := range j.midCandidates(seq, d) {
				for _, p := range d.payloads {
					m := message{seq: seq, mid: mid, key: d.key, payload: p}
					if j.canCommit(st, m, true) {
						out = append(out, st.with(m))
					}
				}
			}
		}
		return out
	}
	return nil
}

// seqCandidates: every sequence the history shows, and, between each two
// values it names, the lowest one it does not show (the only sequences a
// message no one saw may take that make a difference).
func (j *chatJudge) seqCandidates(st state, preRun bool) []uint64 {
	lo, hi := j.s.initial+1, uint64(1<<63)
	if preRun {
		lo, hi = 1, j.s.initial
	}
	if !preRun && j.s.gapsForbidden {
		return []uint64{j.top(st) + 1}
	}
	var out []uint64
	add := func(x uint64) {
		if x < lo || x > hi {
			return
		}
		if _, used := st.at(x); used {
			return
		}
		for _, y := range out {
			if y == x {
				return
			}
		}
		out = append(out, x)
	}
	for seq := range j.mentioned {
		add(seq)
	}
	for _, c := range j.critical {
		x := c + 1
		if x < lo {
			x = lo
		}
		for x <= hi {
			_, used := st.at(x)
			if !used && !j.mentioned[x] {
				break
			}
			x++
		}
		add(x)
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// midCandidates: the ids shown with seq, and one no line shows.
func (j *chatJudge) midCandidates(seq uint64, d *dop) []string {
	out := append([]string{}, j.pairs[seq]...)
	return append(out, fmt.Sprintf("\x01fresh %p %d", d, seq))
}

func (j *chatJudge) syncAnswers(d *dop, st state) bool {
	var want []message
	for _, m := range st {
		if m.seq > d.after {
			want = append(want, m)
		}
	}
	if d.limit > 0 && uint64(len(want)) > d.limit {
		want = want[:d.limit]
	}
	if len(want) != len(d.seqs) {
		return false
	}
	for i, m := range want {
		if m.seq != d.seqs[i] || m.mid != d.mids[i] {
			return false
		}
	}
	return true
}
