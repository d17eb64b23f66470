package history

import (
	"strings"
	"testing"
)

// A message id is never "": every line that carries one refuses it at its
// line, whether the reader keeps ids as strings or hands an IDHasher their
// hashes. Read as "no id", an ack of "" at seq 1 and a push of "" at seq 2
// passed identical_order, where any other id fails it.
func TestAnEmptyMessageIDIsRefused(t *testing.T) {
	syncInvoke := `{"type":"invoke","process":1,"f":"sync","time":10,"chat":"c1","after":0,"limit":0}`
	for _, c := range []struct{ name, text, want string }{
		{"persist ok", lines(testHeader, invokeP1, `{"type":"ok","process":1,"f":"persist","time":20,"seq":1,"message_id":""}`), `h.jsonl:3: "message_id" is empty`},
		{"sync ok", lines(testHeader, syncInvoke, `{"type":"ok","process":1,"f":"sync","time":20,"seqs":[1,2],"message_ids":["m1",""]}`), `h.jsonl:3: "message_ids"[1] is empty`},
		{"sync ok, spaced", lines(testHeader, syncInvoke, `{"type":"ok","process":1,"f":"sync","time":20,"seqs":[1,2],"message_ids":[ "", "m2"]}`), `h.jsonl:3: "message_ids"[0] is empty`},
		{"push", lines(testHeader, `{"type":"join","time":1,"chat":"c1","user":"u1"}`, `{"type":"connect","time":2,"device":"d1","user":"u1"}`,
			`{"type":"push","time":3,"device":"d1","chat":"c1","seqs":[1],"message_ids":[""]}`), `h.jsonl:4: "message_ids"[0] is empty`},
		{"final messages", lines(testHeader, `{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"","key":"k1"}`), `h.jsonl:2: "message_id" is empty`},
		{"final idempotency", lines(testHeader, `{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":""}`), `h.jsonl:2: "message_id" is empty`},
		{"final events", lines(testHeader, `{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"","partition":0,"offset":0}`), `h.jsonl:2: "message_id" is empty`},
	} {
		if _, err := Read(strings.NewReader(c.text), "h.jsonl"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if strings.Contains(c.text, "message_ids") {
			if _, err := Scan(strings.NewReader(c.text), "h.jsonl", hashingSink{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, ids as hashes: %v, want %q", c.name, err, c.want)
			}
		}
	}
}

// A user is never "" on a join, leave or connect line, nor a
// delivery_state row: a sync or a send
// naming "" names no user (an optional string is written only when not
// empty), so "" as a member made a sync answered to "" pass unjudged
// under read_membership: checked (a red team's).
func TestAnEmptyUserIsRefused(t *testing.T) {
	join := `{"type":"join","time":1,"chat":"c1","user":"u1"}`
	for _, c := range []struct{ name, text, want string }{
		{"join", lines(testHeader, `{"type":"join","time":1,"chat":"c1","user":""}`), `h.jsonl:2: "user" is empty`},
		{"leave", lines(testHeader, join, `{"type":"leave","time":2,"chat":"c1","user":""}`), `h.jsonl:3: "user" is empty`},
		{"connect", lines(testHeader, join, `{"type":"connect","time":2,"device":"d1","user":""}`), `h.jsonl:3: "user" is empty`},
		// A delivery_state row is a member's (an outside tester's row of
		// "" was accepted and judged).
		{"delivery_state row", lines(testHeader, `{"type":"final","table":"delivery_state","chat":"c1","user":"","last_acked_sequence":1}`), `h.jsonl:2: "user" is empty`},
	} {
		if _, err := Read(strings.NewReader(c.text), "h.jsonl"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := Read(strings.NewReader(lines(testHeader, join, `{"type":"connect","time":2,"device":"d1","user":"u1"}`)), "h.jsonl"); err != nil {
		t.Fatalf("a join and a connect naming their user: %v", err)
	}
}
