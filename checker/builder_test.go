package checker

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// hb builds a history in memory the way a file would hold it: line 1 is the
// header, every event gets the next line and a later time, finals come last.
// Interleaving calls is how a test expresses concurrency.
type hb struct {
	h    history.History
	line int
	now  int64

	// What send and commit recorded, for dump.
	committed []history.Final // messages, in commit order
	lastAlloc map[string]uint64
	chats     []string
}

func newHB() *hb { return newHBContract(history.Contract{}) }

func newHBContract(c history.Contract) *hb {
	b := &hb{line: 1, lastAlloc: map[string]uint64{}}
	// chatseq's own histories say their clients are the only writers.
	b.h.Header = history.Header{Version: history.Version, Contract: c, Extra: map[string]string{history.SoleWriterField: "true"}}
	return b
}

func (b *hb) add(e history.Event) int {
	b.line++
	b.now += 10
	e.Line, e.Time = b.line, b.now
	b.h.Events = append(b.h.Events, e)
	if !slices.Contains(b.chats, e.Chat) {
		b.chats = append(b.chats, e.Chat)
	}
	return b.line
}

func (b *hb) invoke(p int, chat, key string) int { return b.invokeHash(p, chat, key, "h:"+key) }

func (b *hb) invokeHash(p int, chat, key, hash string) int {
	return b.add(history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: chat, Key: key, Sender: fmt.Sprintf("u%d", p), PayloadHash: hash})
}

func (b *hb) ok(p int, chat, key string, seq uint64, id string) int {
	return b.add(history.Event{Kind: history.KindOK, Process: p, F: history.FPersist, Chat: chat, Key: key, Seq: seq, MessageID: id})
}

func (b *hb) dedup(p int, chat, key string, seq uint64, id string) int {
	return b.add(history.Event{Kind: history.KindOK, Process: p, F: history.FPersist, Chat: chat, Key: key, Seq: seq, MessageID: id, Dedup: true})
}

func (b *hb) fail(p int, chat, key, code string) int {
	return b.add(history.Event{Kind: history.KindFail, Process: p, F: history.FPersist, Chat: chat, Key: key, Error: code})
}

func (b *hb) info(p int, chat, key, code string) int {
	return b.add(history.Event{Kind: history.KindInfo, Process: p, F: history.FPersist, Chat: chat, Key: key, Error: code})
}

// alloc traces an allocation for p's outstanding operation.
func (b *hb) alloc(p int, chat string, seq uint64) int {
	b.lastAlloc[chat] = max(b.lastAlloc[chat], seq)
	return b.add(history.Event{Kind: history.KindTrace, F: history.FAllocate, Process: p, Chat: chat, Seq: seq})
}

// allocFrom traces an allocation whose call was issued at start.
func (b *hb) allocFrom(p int, chat string, seq uint64, start int64) int {
	b.lastAlloc[chat] = max(b.lastAlloc[chat], seq)
	return b.add(history.Event{Kind: history.KindTrace, F: history.FAllocate, Process: p, Chat: chat, Seq: seq, Start: start, HasStart: true})
}

func (b *hb) syncInvoke(p int, chat string, after uint64, limit int) int {
	return b.add(history.Event{Kind: history.KindInvoke, Process: p, F: history.FSync, Chat: chat, After: after, Limit: limit})
}

func (b *hb) syncOK(p int, chat string, seqs ...uint64) int {
	ids := make([]string, len(seqs))
	for i, s := range seqs {
		ids[i] = b.idAt(chat, s)
	}
	return b.syncOKIDs(p, chat, seqs, ids)
}

func (b *hb) syncOKIDs(p int, chat string, seqs []uint64, ids []string) int {
	return b.add(history.Event{Kind: history.KindOK, Process: p, F: history.FSync, Chat: chat, Sync: &history.SyncResult{Seqs: seqs, MessageIDs: ids}})
}

// idAt is the committed message id at (chat, seq), or a made-up one.
func (b *hb) idAt(chat string, seq uint64) string {
	for _, m := range b.committed {
		if m.Chat == chat && m.Seq == seq {
			return m.MessageID
		}
	}
	return fmt.Sprintf("ghost-%s-%d", chat, seq)
}

// commit records a message for dump without an event.
func (b *hb) commit(chat, key string, seq uint64, id string) {
	b.committed = append(b.committed, history.Final{Table: history.TableMessages, Chat: chat, Seq: seq, MessageID: id, Key: key})
}

// sendLines are the lines of one send.
type sendLines struct{ invoke, alloc, ok int }

// send is a whole successful persist: invoke, allocation, commit, ack.
func (b *hb) send(p int, chat, key string, seq uint64) sendLines {
	var l sendLines
	l.invoke = b.invoke(p, chat, key)
	l.alloc = b.alloc(p, chat, seq)
	id := "m-" + key
	b.commit(chat, key, seq, id)
	l.ok = b.ok(p, chat, key, seq, id)
	return l
}

func (b *hb) final(f history.Final) int {
	b.line++
	f.Line = b.line
	b.h.Finals = append(b.h.Finals, f)
	return b.line
}

func (b *hb) counter(chat string, v uint64) int {
	return b.final(history.Final{Table: history.TableCounters, Chat: chat, Value: v})
}

func (b *hb) counterMissing(chat string) int {
	return b.final(history.Final{Table: history.TableCounters, Chat: chat, Missing: true})
}

func (b *hb) msg(chat string, seq uint64, id, key string) int {
	return b.final(history.Final{Table: history.TableMessages, Chat: chat, Seq: seq, MessageID: id, Key: key})
}

func (b *hb) idem(chat, key string, seq uint64, id string) int {
	return b.final(history.Final{Table: history.TableIdempotency, Chat: chat, Seq: seq, MessageID: id, Key: key})
}

func (b *hb) event(chat string, seq uint64, id string, partition int32, offset int64) int {
	return b.final(history.Final{Table: history.TableEvents, Chat: chat, Seq: seq, MessageID: id, Partition: partition, Offset: offset})
}

// dumpLines are the final lines dump wrote, by table and message.
type dumpLines struct {
	counter map[string]int
	msg     map[string]int // by message id
	idem    map[string]int
	event   map[string]int
}

// dump writes the final state the recorded sends imply: counters at the
// last allocation, messages, idempotency records and one event each.
func (b *hb) dump(withEvents bool) dumpLines {
	d := dumpLines{counter: map[string]int{}, msg: map[string]int{}, idem: map[string]int{}, event: map[string]int{}}
	for _, c := range b.chats {
		d.counter[c] = b.counter(c, b.lastAlloc[c])
	}
	for _, m := range b.committed {
		d.msg[m.MessageID] = b.msg(m.Chat, m.Seq, m.MessageID, m.Key)
	}
	for _, m := range b.committed {
		d.idem[m.MessageID] = b.idem(m.Chat, m.Key, m.Seq, m.MessageID)
	}
	if withEvents {
		for i, m := range b.committed {
			d.event[m.MessageID] = b.event(m.Chat, m.Seq, m.MessageID, 0, int64(i))
		}
	}
	return d
}

func (b *hb) check(t testing.TB) Report {
	t.Helper()
	return Check(&b.h, Options{})
}

// must returns the named result after asserting its status; on a mismatch
// it prints the whole report.
func must(t testing.TB, r Report, name string, want Status) Result {
	t.Helper()
	res, ok := r.Result(name)
	if !ok {
		t.Fatalf("%s not judged; report:\n%s", name, reportText(r))
	}
	if res.Status != want {
		t.Fatalf("%s = %s, want %s: %s\nreport:\n%s", name, res.Status, want, res.Detail, reportText(r))
	}
	if want != Fail && len(res.Lines) != 0 {
		t.Fatalf("%s = %s carries lines %v", name, res.Status, res.Lines)
	}
	return res
}

// mustFail asserts a failure with exactly the given counterexample lines.
func mustFail(t testing.TB, r Report, name string, lines ...int) Result {
	t.Helper()
	res := must(t, r, name, Fail)
	slices.Sort(lines)
	if !slices.Equal(res.Lines, lines) {
		t.Fatalf("%s lines = %v, want %v (%s)", name, res.Lines, lines, res.Detail)
	}
	if r.Valid == nil || *r.Valid || r.ExitCode() != 1 {
		t.Fatalf("a failing report must be invalid with exit code 1, got valid=%v exit=%d", r.Valid, r.ExitCode())
	}
	return res
}

// mustAllPass asserts every judged invariant passed.
func mustAllPass(t testing.TB, r Report) {
	t.Helper()
	for _, res := range r.Invariants {
		if res.Status != Pass {
			t.Fatalf("%s = %s: %s\nreport:\n%s", res.Name, res.Status, res.Detail, reportText(r))
		}
	}
	if r.Valid == nil || !*r.Valid || r.ExitCode() != 0 {
		t.Fatalf("valid = %v, exit %d", r.Valid, r.ExitCode())
	}
}

func mustNA(t testing.TB, r Report, name string) NotApplicable {
	t.Helper()
	for _, na := range r.NotApplicable {
		if na.Name == name {
			if na.Reason == "" {
				t.Fatalf("%s not applicable without a reason", name)
			}
			if _, judged := r.Result(name); judged {
				t.Fatalf("%s both judged and not applicable", name)
			}
			return na
		}
	}
	t.Fatalf("%s is not listed as not applicable; report:\n%s", name, reportText(r))
	return NotApplicable{}
}

func mustContain(t testing.TB, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("%q does not contain %q", s, sub)
	}
}

func reportText(r Report) string {
	var sb strings.Builder
	if err := WriteText(&sb, r); err != nil {
		return err.Error()
	}
	return sb.String()
}

// tableRead writes a table_read line for table, promising the lines of it
// written so far (plus more: a table cut short).
func (b *hb) tableRead(table string, more uint64) int {
	b.line++
	var n uint64
	for _, f := range b.h.Finals {
		if f.Table == table {
			n++
		}
	}
	b.h.TablesRead = append(b.h.TablesRead, history.TableRead{Line: b.line, Table: table, Lines: n + more, Found: n})
	return b.line
}

// randomRuns is how many random histories a cross-check judges: n, or a
// sixth of it (at least 200) under -short and the race detector, which
// looks for races in the checks' goroutines and needs no more to find
// them (CI runs the whole count without it).
func randomRuns(n int) int {
	if raceEnabled || testing.Short() {
		return max(n/6, 200)
	}
	return n
}
