// Package receiveredit mutates a recorded history's receiver lines as a
// broken delivery plane would have written them, for tests that show each
// mutation fails the invariant that guards it. It reads and writes the
// history as generic JSON lines (history FORMAT.md, "Receivers"), so a
// mutation knows nothing of how chatseq records or checks.
package receiveredit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// Lines is a history, one JSON object a line.
type Lines []map[string]any

// A Mutation edits a copy of the lines; it fails t when the history
// holds nothing it can mutate.
type Mutation func(t testing.TB, lines Lines) Lines

// Case is a mutation and the invariant that must fail on it.
type Case struct {
	Name, Want string
	Mutate     Mutation
}

// Cases are the mutations every recorded receiver history is put through.
// The invariant names are the checker's (kept as strings: this package
// does not read the checker).
var Cases = []Case{
	{"a push dropped", "eventual_visibility", DropOnePush},
	{"two message ids swapped", "identical_order", SwapTwoIDs},
	{"another chat's content pushed", "identical_order", PushAnotherChatsContent},
	{"an ack ahead", "delivery_state_consistency", AckAhead},
	{"a push to another chat's device", "push_authorization", PushToANonMember},
	{"a message skipped on a live connection", "stream_continuity", SkipOnALiveConnection},
	{"a message held back from a live connection", "stream_completeness", HoldBackOnALiveConnection},
}

// CasesFor are the cases whose invariant want names (ok), or the others.
func CasesFor(want string, ok bool) []Case {
	var out []Case
	for _, c := range Cases {
		if (c.Want == want) == ok {
			out = append(out, c)
		}
	}
	return out
}

// Read reads a history file.
func Read(t testing.TB, path string) Lines {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out Lines
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Write writes lines as a history file.
func Write(t testing.TB, path string, lines Lines) {
	t.Helper()
	if err := os.WriteFile(path, encode(t, lines), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Clone is a deep copy of lines, for one mutation each.
func Clone(t testing.TB, lines Lines) Lines {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(encode(t, lines)))
	dec.UseNumber()
	var out Lines
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func encode(t testing.TB, lines Lines) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(b, '\n'))
	}
	return buf.Bytes()
}

func isPush(l map[string]any) bool           { return l["type"] == "push" }
func isStreamed(l map[string]any) bool       { return isPush(l) && l["catch_up"] != true }
func seqsOf(l map[string]any) []any          { s, _ := l["seqs"].([]any); return s }
func idsOf(l map[string]any) []any           { s, _ := l["message_ids"].([]any); return s }
func pushKey(l map[string]any, s any) string { return fmt.Sprint(l["device"], " ", l["chat"], " ", s) }

// removeAt takes the j-th message out of push line i (the line, when it
// was its only one).
func removeAt(lines Lines, i, j int) Lines {
	l := lines[i]
	if len(seqsOf(l)) == 1 {
		return append(lines[:i:i], lines[i+1:]...)
	}
	for _, f := range []string{"seqs", "message_ids", "payload_hashes", "senders"} {
		if a, ok := l[f].([]any); ok && j < len(a) {
			l[f] = append(a[:j:j], a[j+1:]...)
		}
	}
	return lines
}

// DropOnePush takes out of the pushes a message its device received once
// only: the device never saw it.
func DropOnePush(t testing.TB, lines Lines) Lines {
	received := map[string]int{}
	for _, l := range lines {
		if isPush(l) {
			for _, s := range seqsOf(l) {
				received[pushKey(l, s)]++
			}
		}
	}
	for i, l := range lines {
		if !isPush(l) {
			continue
		}
		for j, s := range seqsOf(l) {
			if received[pushKey(l, s)] == 1 {
				return removeAt(lines, i, j)
			}
		}
	}
	t.Fatal("no message reached its device only once")
	return nil
}

// SkipOnALiveConnection takes out of a device's live stream of a chat a
// message between two others it streamed on the same connection, one its
// device also received by a catch-up where there is one: the device saw
// everything, but its live connection skipped one. The three may be in
// one push line or in several (a gateway that reads the topic quickly
// pushes a message a line), with no line of the device's connection
// (connect, disconnect, settled) or of the chat's membership between
// them; the one taken out is streamed once on that device, so no copy
// of it fills the hole.
func SkipOnALiveConnection(t testing.TB, lines Lines) Lines {
	caughtUp := map[string]bool{}
	streamed := map[string]int{}
	// copies counts each message's events on the topic: a stream may
	// align across a message the topic holds twice (a replay published
	// again), so the three around the hole must each be there once, or
	// the skip may be no skip (a run's replays made one so: ci-clone90).
	copies := map[string]int{}
	for _, l := range lines {
		if l["type"] == "final" && l["table"] == history.TableEvents {
			copies[fmt.Sprint(l["chat"], " ", l["seq"])]++
		}
		for _, s := range seqsOf(l) {
			if isStreamed(l) {
				streamed[pushKey(l, s)]++
			} else if isPush(l) {
				caughtUp[pushKey(l, s)] = true
			}
		}
	}
	type at struct {
		line, j int
		seq     string
	}
	for _, need := range []bool{true, false} { // one healed by a catch-up first
		recent := map[string][]at{} // by device and chat: its stream on the connection
		for i, l := range lines {
			switch l["type"] {
			case "push", "delivery_ack":
			case "join", "leave":
				for k := range recent {
					if strings.HasSuffix(k, " "+fmt.Sprint(l["chat"])) {
						delete(recent, k)
					}
				}
			default:
				for k := range recent {
					if strings.HasPrefix(k, fmt.Sprint(l["device"])+" ") {
						delete(recent, k)
					}
				}
			}
			if !isStreamed(l) {
				continue
			}
			k := fmt.Sprint(l["device"], " ", l["chat"])
			for j, s := range seqsOf(l) {
				r := append(recent[k], at{i, j, fmt.Sprint(s)})
				if len(r) > 3 {
					r = r[1:]
				}
				recent[k] = r
				if len(r) < 3 {
					continue
				}
				a, b, c := r[0], r[1], r[2]
				mid := pushKey(lines[b.line], b.seq)
				once := func(seq string) bool { return copies[fmt.Sprint(l["chat"], " ", seq)] == 1 }
				if a.seq != b.seq && b.seq != c.seq && a.seq != c.seq && streamed[mid] == 1 && (!need || caughtUp[mid]) &&
					once(a.seq) && once(b.seq) && once(c.seq) {
					return removeAt(lines, b.line, b.j)
				}
			}
		}
	}
	t.Fatal("no device streamed three messages of a chat on one connection")
	return nil
}

// HoldBackOnALiveConnection marks as caught up ("catch_up": true) the
// last push line a device's connection open to its settled line streamed
// of a chat, after an earlier one of that chat on the connection, when
// it carries a message streamed to the device once only: the device got
// it, by a sync, but its live connection never streamed it.
func HoldBackOnALiveConnection(t testing.TB, lines Lines) Lines {
	streamed := map[string]int{}
	lastConnect, settled := map[string]int{}, map[string]int{}
	for i, l := range lines {
		dev := fmt.Sprint(l["device"])
		switch l["type"] {
		case "connect":
			lastConnect[dev] = i
		case "settled":
			settled[dev] = i
		}
		if isStreamed(l) {
			for _, s := range seqsOf(l) {
				streamed[pushKey(l, s)]++
			}
		}
	}
	onLive := func(i int, l map[string]any) bool {
		dev := fmt.Sprint(l["device"])
		end, ok := settled[dev]
		return ok && isStreamed(l) && i > lastConnect[dev] && i < end
	}
	earlier := map[string]int{} // by device and chat: its first line on the live connection
	for i, l := range lines {
		if k := fmt.Sprint(l["device"], " ", l["chat"]); onLive(i, l) {
			if _, ok := earlier[k]; !ok {
				earlier[k] = i
			}
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if first, ok := earlier[fmt.Sprint(l["device"], " ", l["chat"])]; !ok || !onLive(i, l) || first == i {
			continue
		}
		for _, s := range seqsOf(l) {
			if streamed[pushKey(l, s)] == 1 {
				l["catch_up"] = true
				return lines
			}
		}
	}
	t.Fatal("no connection open to its device's settle streamed a chat twice")
	return nil
}

// PushAnotherChatsContent gives a pushed message the content hash
// (payload_hashes) another chat's message was pushed with: a push
// channel leaking one chat's messages under another's ids.
func PushAnotherChatsContent(t testing.TB, lines Lines) Lines {
	// A push's (a sync ok's answer says what its messages carried too).
	hashes := func(l map[string]any) []any {
		if !isPush(l) {
			return nil
		}
		h, _ := l["payload_hashes"].([]any)
		return h
	}
	// A message some persist created (its ok, not a replay): what it
	// sent is known, and the push is compared with it.
	created := map[any]bool{}
	for _, l := range lines {
		if l["type"] == "ok" && l["f"] == "persist" && l["dedup"] != true {
			created[l["message_id"]] = true
		}
	}
	for _, l := range lines {
		for j, h := range hashes(l) {
			if h == "" || j >= len(idsOf(l)) || !created[idsOf(l)[j]] {
				continue
			}
			for _, o := range lines {
				if o["chat"] == l["chat"] {
					continue
				}
				for _, other := range hashes(o) {
					if other != "" && other != h {
						hashes(l)[j] = other
						return lines
					}
				}
			}
		}
	}
	t.Fatal("no two chats' pushes carried content hashes")
	return nil
}

// SwapTwoIDs swaps the message ids two pushes of one chat gave two
// sequences.
func SwapTwoIDs(t testing.TB, lines Lines) Lines {
	type at struct{ line, i int }
	first := map[string]at{}
	for n, l := range lines {
		if !isPush(l) {
			continue
		}
		chat := fmt.Sprint(l["chat"])
		for i, s := range seqsOf(l) {
			f, ok := first[chat]
			if !ok {
				first[chat] = at{n, i}
				continue
			}
			if fmt.Sprint(seqsOf(lines[f.line])[f.i]) == fmt.Sprint(s) {
				continue
			}
			a, b := idsOf(lines[f.line]), idsOf(l)
			a[f.i], b[i] = b[i], a[f.i]
			return lines
		}
	}
	t.Fatal("no chat had two sequences pushed")
	return nil
}

// AckAhead raises a delivery ack past every sequence its device was
// pushed.
func AckAhead(t testing.TB, lines Lines) Lines {
	for _, l := range lines {
		if l["type"] == "delivery_ack" {
			l["last_acked_sequence"] = json.Number("1000000")
			return lines
		}
	}
	t.Fatal("no delivery ack")
	return nil
}

// PushToANonMember hands one chat's catch-up page to a device of another
// chat's member.
func PushToANonMember(t testing.TB, lines Lines) Lines {
	devices := map[string]string{} // device → a chat it was pushed
	var names []string
	for _, l := range lines {
		if isPush(l) {
			d := fmt.Sprint(l["device"])
			if _, ok := devices[d]; !ok {
				names = append(names, d)
			}
			devices[d] = fmt.Sprint(l["chat"])
		}
	}
	slices.Sort(names)
	for n := len(lines) - 1; n >= 0; n-- { // late: every device has connected
		l := lines[n]
		if !isPush(l) {
			continue
		}
		for _, d := range names {
			// bench names a device after its user, and a user after
			// the one chat it is a member of.
			if chat := devices[d]; chat != l["chat"] && !strings.HasPrefix(d, fmt.Sprint(l["chat"])) {
				l["device"], l["catch_up"] = d, true
				return lines
			}
		}
	}
	t.Fatal("no two chats' devices")
	return nil
}

// Each writes each case's mutation of a copy of lines to a file of its
// own and runs the case as a subtest with it.
func Each(t *testing.T, lines Lines, run func(t *testing.T, c Case, path string)) {
	EachOf(t, Cases, lines, run)
}

// EachOf is Each over cases.
func EachOf(t *testing.T, cases []Case, lines Lines, run func(t *testing.T, c Case, path string)) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mutated.jsonl")
			Write(t, path, c.Mutate(t, Clone(t, lines)))
			run(t, c, path)
		})
	}
}
