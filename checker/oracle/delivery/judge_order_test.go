package delivery

import (
	"fmt"
	"math"
)

// identicalOrder, FORMAT.md ("What the checker judges of them"): "no
// device is pushed a (seq, message_id) of a chat that differs from the
// final messages table (without it, from the acknowledgements): another id
// at the sequence, or, at a sequence it holds nothing at, an id it holds
// at another (with the table, a sequence above initial_counter it does
// not hold fails too); nor from what any device (another, or the same one
// on another line) was pushed at that sequence; one id is never pushed at
// two sequences. Where a push line
// gives a message's payload_hashes or senders entry (not ""), it is what
// the persist that created the message (acknowledged with its id, not as
// a replay) sent as its payload_hash and sender; a message acknowledged
// only as a replay (its creating attempt's answer lost) is compared with
// what its key's persists sent when they all sent the same (those that
// ended fail left out: a fail took no effect), and only where one of them
// created it: the header says sole_writer and it lies above
// initial_counter. A push channel that leaks another chat's content under
// a message's id, or forges its sender, fails. With sole_writer and
// without the messages table, a chat's pushed sequences above
// initial_counter that no acknowledgement holds, more than the chat's
// persists of unknown outcome could have made (a key with a persist that
// ended info or was never answered, none of its persists answered ok,
// counts once; a persist without a key, so ended or unanswered, once),
// fail".
//
// Readings (each rule below quotes the words it implements):
//   - The reference is f.reference: the final messages table when it is
//     read or present, otherwise every acknowledged (seq, message_id).
//   - "another id at the sequence": the reference holds the pushed
//     sequence, and not under the pushed id. (A reference holding two ids
//     at one sequence is another invariant's failure; a push of either is
//     not "another id" here. The text does not say; no generated history
//     has such a reference.)
//   - "at a sequence it holds nothing at, an id it holds at another".
//   - "with the table, a sequence above initial_counter it does not hold
//     fails too": only with the messages table (read or present); at or
//     below initial_counter a message from before the run the table does
//     not hold is not judged, nor, without the table, a pair the acks do
//     not know at all (a persist that ended info may have written it).
//   - "what any device (another, or the same one on another line) was
//     pushed at that sequence": any two pushes of one sequence of a chat
//     under two ids, to two devices or to one (FORMAT.md said "another
//     device" until delivery seeds from 200001 showed chatseq failing two
//     ids pushed to one device, rightly: one sequence holds one message).
//   - "one id is never pushed at two sequences": any two pushes of a chat
//     (one device or two) giving one message id two sequences.
//   - Content, "the persist that created the message": a persist ok of the
//     push's chat with the pushed id and dedup not true; each such one is
//     compared, and a field its invoke did not give is not compared.
//   - Content, "acknowledged only as a replay": the chat has persist oks
//     with the pushed id and all of them have dedup true. Compared only
//     when the header says "sole_writer": true and the message (the
//     sequence those acks give) lies above initial_counter, with "its
//     key's persists": every persist invoke of the chat with the key those
//     acks were sent under (judged only when they name one key). "when they
//     all sent the same" is read per field and strictly: every one of
//     those invokes gave the field, and all gave one value; one invoke
//     without it, or two values (a key reused with other content), leaves
//     the field uncompared. (The text does not say whether an invoke that
//     gave no payload_hash breaks "all sent the same"; generated histories
//     always give one.)
//   - "those that ended fail left out": a persist invoke whose completion
//     (its process's next completion line) is a fail line is not among
//     "its key's persists".
//   - "pushed sequences ... that no acknowledgement holds": distinct
//     sequences of pushes of the chat, above initial_counter, at which
//     no persist ok of the chat (dedup or not) gives a sequence; counted
//     per chat against "persists of unknown outcome": per key of the
//     chat, one if some invoke of it has an info completion or none and
//     no invoke of it has an ok completion; plus one per invoke without
//     a key whose completion is info or none. Checked after every push
//     passed the rules above (its line is the chat's first such push).
//   - A message neither created nor replayed by an acknowledged persist of
//     the history has nothing it "sent": its content is not compared.
func (f *facts) identicalOrder() verdict {
	all := f.pushes()
	if len(all) == 0 {
		return notApplicable("no message was pushed")
	}
	table := f.tableKnown(tableMessages)
	refs := map[string][]msgID{}
	compared := 0
	for _, e := range all {
		ref, ok := refs[e.chat]
		if !ok {
			ref = f.reference(e.chat)
			refs[e.chat] = ref
		}
		var atSeq []string
		elsewhere := -1
		for k, r := range ref {
			switch {
			case r.seq == e.seq:
				atSeq = append(atSeq, r.id)
			case r.id == e.id && elsewhere < 0:
				elsewhere = k
			}
		}
		switch {
		case len(atSeq) > 0 && !containsString(atSeq, e.id):
			return failed("device %s was pushed (%d, %q) of chat %s on line %d, but the %s hold %q at that sequence",
				e.device, e.seq, e.id, e.chat, fileLine(e.at), f.referenceName(), atSeq[0])
		case len(atSeq) == 0 && elsewhere >= 0:
			return failed("device %s was pushed (%d, %q) of chat %s on line %d, but the %s hold nothing at that sequence and hold %q at %d",
				e.device, e.seq, e.id, e.chat, fileLine(e.at), f.referenceName(), e.id, ref[elsewhere].seq)
		case len(atSeq) == 0 && table && e.seq > f.initial:
			return failed("device %s was pushed (%d, %q) of chat %s on line %d, a sequence above initial_counter %d that the final messages table does not hold",
				e.device, e.seq, e.id, e.chat, fileLine(e.at), f.initial)
		}
		for _, o := range all {
			if o.chat != e.chat {
				continue
			}
			if o.seq == e.seq && o.id != e.id {
				return failed("sequence %d of chat %s was pushed as %q to device %s on line %d and as %q to device %s on line %d",
					e.seq, e.chat, e.id, e.device, fileLine(e.at), o.id, o.device, fileLine(o.at))
			}
			if o.id == e.id && o.seq != e.seq {
				return failed("message %q of chat %s was pushed at sequence %d to device %s on line %d and at %d to device %s on line %d",
					e.id, e.chat, e.seq, e.device, fileLine(e.at), o.seq, o.device, fileLine(o.at))
			}
		}
		if e.hash == "" && e.sender == "" {
			continue
		}
		hash, sender, from, ok := f.sentContent(e.chat, e.id)
		if !ok {
			continue
		}
		compared++
		if e.hash != "" && hash != "" && e.hash != hash {
			return failed("push on line %d gives message %q of chat %s payload hash %q, but %s sent %q",
				fileLine(e.at), e.id, e.chat, e.hash, from, hash)
		}
		if e.sender != "" && sender != "" && e.sender != sender {
			return failed("push on line %d gives message %q of chat %s sender %q, but %s was sent by %q",
				fileLine(e.at), e.id, e.chat, e.sender, from, sender)
		}
	}
	if f.soleWriter && !table {
		if why := f.pushedBeyondUnknownWriters(all); why != "" {
			return failed("%s", why)
		}
	}
	return passed("%d pushed messages agree with the %s and with each other; %d with content compared with their persists",
		len(all), f.referenceName(), compared)
}

// pushedBeyondUnknownWriters: the sole_writer count rule of
// identicalOrder's readings, "" when every chat's pushed sequences no
// acknowledgement holds are within what its persists of unknown outcome
// could have made.
func (f *facts) pushedBeyondUnknownWriters(all []entry) string {
	unheld := map[string]map[uint64]int{} // chat -> seq -> first push line
	var chats []string
	for _, e := range all {
		if e.seq <= f.initial {
			continue
		}
		held := false
		for _, a := range f.acks {
			if a.chat == e.chat && a.seq == e.seq {
				held = true
				break
			}
		}
		if held {
			continue
		}
		if unheld[e.chat] == nil {
			unheld[e.chat] = map[uint64]int{}
			chats = append(chats, e.chat)
		}
		if at, ok := unheld[e.chat][e.seq]; !ok || e.at < at {
			unheld[e.chat][e.seq] = e.at
		}
	}
	for _, chat := range chats {
		could := f.unknownWriters(chat)
		if len(unheld[chat]) > could {
			return fmt.Sprintf("chat %s was pushed %d sequences above initial_counter no acknowledgement holds, but its persists of unknown outcome could have made %d (sole_writer)",
				chat, len(unheld[chat]), could)
		}
	}
	return ""
}

// unknownWriters counts chat's keys with an invoke that ended info or
// was never answered and no invoke answered ok, and its keyless invokes
// that ended info or were never answered.
func (f *facts) unknownWriters(chat string) int {
	unknownKey, okKey := map[string]bool{}, map[string]bool{}
	keyless := 0
	for i, l := range f.lines {
		if l.Type != tInvoke || l.F != "persist" || l.Chat != chat {
			continue
		}
		done := f.completion[i]
		unknown := done >= len(f.lines) || f.lines[done].Type == tInfo
		switch {
		case l.Key == "" && unknown:
			keyless++
		case l.Key == "":
		case unknown:
			unknownKey[l.Key] = true
		case f.lines[done].Type == tOK:
			okKey[l.Key] = true
		}
	}
	n := keyless
	for k := range unknownKey {
		if !okKey[k] {
			n++
		}
	}
	return n
}

// sentContent is what a pushed message's content is compared with: the
// payload_hash and sender its creating persist's invoke sent, or for a
// message acknowledged only as a replay, what its key's persists all sent
// (see identicalOrder's readings); "" for a field not compared, and ok
// false when nothing is. With several creating persists (another
// invariant's failure) a field is compared only when they agree.
func (f *facts) sentContent(chat, id string) (hash, sender, from string, ok bool) {
	var creators, replays []ack
	for _, a := range f.acks {
		if a.chat == chat && a.id == id {
			if a.dedup {
				replays = append(replays, a)
			} else {
				creators = append(creators, a)
			}
		}
	}
	if len(creators) > 0 {
		var hs, ss []string
		for _, a := range creators {
			hs, ss = append(hs, a.hash), append(ss, a.sender)
		}
		return same(hs), same(ss), "its persist (invoke line " + itoa(fileLine(creators[0].invokeAt)) + ")", true
	}
	if len(replays) == 0 || !f.soleWriter {
		return "", "", "", false
	}
	key := replays[0].key
	for _, a := range replays {
		if a.key != key || a.seq <= f.initial {
			return "", "", "", false
		}
	}
	var hs, ss []string
	known := int64(math.MaxInt64) // when the key's first ok answer completed
	for i, l := range f.lines {
		if done := f.completion[i] < len(f.lines); done && l.Type == tInvoke && l.F == "persist" && l.Chat == chat && l.Key == key {
			if c := f.lines[f.completion[i]]; c.Type == tOK && c.Time < known {
				known = c.Time
			}
		}
	}
	for i, l := range f.lines {
		// A failed send took no effect, a send answered as a replay
		// made no message (its answer is one an earlier persist made),
		// and neither did one invoked after an ok answer of the key
		// had shown the message written.
		done := f.completion[i] < len(f.lines)
		failedSend := done && f.lines[f.completion[i]].Type == tFail
		replayed := done && f.lines[f.completion[i]].Type == tOK && f.lines[f.completion[i]].Dedup != nil && *f.lines[f.completion[i]].Dedup
		late := l.Time > known
		if l.Type == tInvoke && l.F == "persist" && l.Chat == chat && l.Key == key && !failedSend && !replayed && !late {
			hs, ss = append(hs, l.PayloadHash), append(ss, l.Sender)
		}
	}
	hash, sender = same(hs), same(ss)
	return hash, sender, "every persist of its key " + quote(key) + " (acknowledged only as a replay, under sole_writer)", hash != "" || sender != ""
}

// same is the value every element of s holds, or "" when they differ, one
// is "" or s is empty.
func same(s []string) string {
	if len(s) == 0 {
		return ""
	}
	for _, v := range s {
		if v == "" || v != s[0] {
			return ""
		}
	}
	return s[0]
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (f *facts) referenceName() string {
	if f.tableKnown(tableMessages) {
		return "final messages table"
	}
	return "acknowledgements"
}
