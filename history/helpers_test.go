package history

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// encodeHistory writes h with the recorder's encoders, keeping its times: the
// re-encoding half of the round-trip properties.
func encodeHistory(t testing.TB, h *History) []byte {
	t.Helper()
	b, err := appendHeader(nil, &h.Header)
	if err != nil {
		t.Fatalf("encoding a header that was read: %v", err)
	}
	// Receiver lines go among the events and the finals by line.
	recv := h.Receivers
	for i := range h.Events {
		for len(recv) > 0 && recv[0].Kind != KindFinal && recv[0].Line < h.Events[i].Line {
			b, recv = appendReceiver(b, &recv[0]), recv[1:]
		}
		b = appendEvent(b, &h.Events[i])
	}
	for len(recv) > 0 && recv[0].Kind != KindFinal {
		b, recv = appendReceiver(b, &recv[0]), recv[1:]
	}
	for i := range h.Finals {
		for len(recv) > 0 && recv[0].Line < h.Finals[i].Line {
			b, recv = appendReceiver(b, &recv[0]), recv[1:]
		}
		b, _ = appendFinal(b, &h.Finals[i])
	}
	for _, rv := range recv {
		b = appendReceiver(b, &rv)
	}
	for i := range h.TablesRead {
		b = appendTableRead(b, &h.TablesRead[i])
	}
	if h.End > 0 {
		b = append(b, endLine...)
	}
	return b
}

// withoutLines returns a copy of h's events and finals with Line zeroed, and
// empty sync results normalised, for comparing content across files.
func withoutLines(h *History) ([]Event, []Final) {
	events := make([]Event, len(h.Events))
	for i, e := range h.Events {
		e.Line = 0
		if e.Sync != nil {
			s := *e.Sync
			if len(s.Seqs) == 0 {
				s.Seqs = nil
			}
			if len(s.MessageIDs) == 0 {
				s.MessageIDs = nil
			}
			e.Sync = &s
		}
		events[i] = e
	}
	finals := make([]Final, len(h.Finals))
	for i, f := range h.Finals {
		f.Line = 0
		finals[i] = f
	}
	return events, finals
}

// sameContent fails t unless a and b hold the same header, events and finals
// (line numbers and warnings aside).
func sameContent(t testing.TB, a, b *History) {
	t.Helper()
	if !reflect.DeepEqual(a.Header, b.Header) {
		t.Fatalf("headers differ:\n%+v\n%+v", a.Header, b.Header)
	}
	ae, af := withoutLines(a)
	be, bf := withoutLines(b)
	if len(ae) != len(be) {
		t.Fatalf("%d events, then %d", len(ae), len(be))
	}
	for i := range ae {
		if !reflect.DeepEqual(ae[i], be[i]) {
			t.Fatalf("event %d differs:\n%+v\n%+v", i, ae[i], be[i])
		}
	}
	if !reflect.DeepEqual(af, bf) {
		t.Fatalf("finals differ:\n%+v\n%+v", af, bf)
	}
	if ar, br := tablesReadWithoutLines(a), tablesReadWithoutLines(b); !reflect.DeepEqual(ar, br) {
		t.Fatalf("table_read lines differ:\n%+v\n%+v", ar, br)
	}
	if ar, br := receiversWithoutLines(a), receiversWithoutLines(b); !reflect.DeepEqual(ar, br) {
		t.Fatalf("receiver lines differ:\n%+v\n%+v", ar, br)
	}
}

// receiversWithoutLines is h's receiver lines with Line zeroed and empty
// pushes normalised.
func receiversWithoutLines(h *History) []Receiver {
	var out []Receiver
	for _, r := range h.Receivers {
		r.Line = 0
		if len(r.Seqs) == 0 {
			r.Seqs = nil
		}
		if len(r.MessageIDs) == 0 {
			r.MessageIDs = nil
		}
		out = append(out, r)
	}
	return out
}

func tablesReadWithoutLines(h *History) []TableRead {
	var out []TableRead
	for _, t := range h.TablesRead {
		t.Line = 0
		out = append(out, t)
	}
	return out
}

func mustRead(t testing.TB, text string) *History {
	t.Helper()
	h, err := Read(strings.NewReader(text), "h.jsonl")
	if err != nil {
		t.Fatalf("Read: %v\ninput:\n%s", err, text)
	}
	return h
}

// lines joins JSON lines into a file with a trailing newline.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

const testHeader = `{"format":"chatseq-history","version":1}`

// generateHistory writes a valid single-chat history of ops operations by
// the given number of processes, shaped like a load run: each persist is an
// invoke, an allocate trace and a completion (mostly ok, some fail or info),
// with some syncs mixed in, then the counter's final value. The times are
// synthetic (one nanosecond per line) so the output is deterministic.
func generateHistory(w io.Writer, ops, processes int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	b, err := appendHeader(nil, &Header{Target: "generated", Scenario: "bench", Seed: 1, HasSeed: true})
	if err != nil {
		return err
	}
	var now int64
	emit := func(e *Event) {
		now++
		e.Time = now
		b = appendEvent(b, e)
		if len(b) > 64<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}
	const chat = "chat-000001"
	var seq uint64
	for done := 0; done < ops; {
		round := min(processes, ops-done)
		invokes := make([]Event, round)
		for p := range round {
			n := done + p
			inv := &invokes[p]
			if n%10 == 9 {
				*inv = Event{Kind: KindInvoke, Process: p, F: FSync, Chat: chat, After: seq / 2, Limit: 4}
			} else {
				*inv = Event{Kind: KindInvoke, Process: p, F: FPersist, Chat: chat,
					Key: fmt.Sprintf("key-%08d", n), Sender: fmt.Sprintf("user-%d", p%10),
					PayloadHash: fmt.Sprintf("%016x", uint64(n)*0x9e3779b97f4a7c15)}
			}
			emit(inv)
		}
		for p := range round {
			n := done + p
			inv := &invokes[p]
			if inv.F == FSync {
				res := &SyncResult{}
				for s := inv.After + 1; s <= min(seq, inv.After+4); s++ {
					res.Seqs = append(res.Seqs, s)
					res.MessageIDs = append(res.MessageIDs, fmt.Sprintf("01J%023d", s))
				}
				emit(&Event{Kind: KindOK, Process: p, F: FSync, Chat: chat, Sync: res})
				continue
			}
			seq++
			emit(&Event{Kind: KindTrace, Process: p, F: FAllocate, Chat: chat, Seq: seq})
			switch {
			case n%97 == 5:
				emit(&Event{Kind: KindInfo, Process: p, F: FPersist, Chat: chat, Key: inv.Key, Error: "timeout"})
			case n%89 == 7:
				emit(&Event{Kind: KindFail, Process: p, F: FPersist, Chat: chat, Key: inv.Key, Error: "not_a_member"})
			default:
				emit(&Event{Kind: KindOK, Process: p, F: FPersist, Chat: chat, Key: inv.Key, Seq: seq, MessageID: fmt.Sprintf("01J%023d", seq)})
			}
		}
		done += round
	}
	b, _ = appendFinal(b, &Final{Table: TableCounters, Chat: chat, Value: seq})
	if _, err := bw.Write(b); err != nil {
		return err
	}
	return bw.Flush()
}
