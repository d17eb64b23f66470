package checker

import (
	"strings"
	"testing"
)

// Under sole_writer, without a messages table, a pushed message or an
// event at a sequence no ack holds is one a persist of unknown outcome
// made: more such sequences than those persists could make were written
// by no client. A device pushed, or a topic holding, a message of a chat
// no client wrote to (or whose only send failed, or beyond its acks)
// passed, though a sync showing it failed (an outside tester's). A
// persist of unknown outcome explains one, and without sole_writer
// another writer may have.
func TestPushesAndEventsBeyondWhatClientsCouldWriteFail(t *testing.T) {
	const sole = `{"format":"chatseq-history","version":1,"sole_writer":true}
`
	const plain = `{"format":"chatseq-history","version":1}
`
	const member = `{"type":"join","chat":"c1","user":"u1","time":1}
{"type":"connect","device":"d1","user":"u1","time":2}
`
	const acked = `{"type":"invoke","process":1,"f":"persist","chat":"c1","key":"k1","sender":"u1","time":3}
{"type":"ok","process":1,"f":"persist","seq":1,"message_id":"m1","time":4}
`
	const failed = `{"type":"invoke","process":2,"f":"persist","chat":"c1","key":"k2","sender":"u1","time":5}
{"type":"fail","process":2,"f":"persist","error":"counter_missing","time":6}
`
	const unknown = `{"type":"invoke","process":2,"f":"persist","chat":"c1","key":"k2","sender":"u1","time":5}
{"type":"info","process":2,"f":"persist","error":"timeout","time":6}
`
	const push = `{"type":"push","device":"d1","chat":"c1","seqs":[1,2],"message_ids":["m1","m2"],"time":7}
`
	const events = `{"type":"table_read","table":"events","lines":2}
{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
`
	for _, tc := range []struct {
		name, text, invariant string
		fails                 bool
	}{
		{"a push beyond the acks", sole + member + acked + push, NameIdenticalOrder, true},
		{"a push of a failed send's sequence", sole + member + acked + failed + push, NameIdenticalOrder, true},
		{"a push a send of unknown outcome explains", sole + member + acked + unknown + push, NameIdenticalOrder, false},
		{"a push beyond the acks, another writer allowed", plain + member + acked + push, NameIdenticalOrder, false},
		{"an event beyond the acks", sole + acked + events, NameEventCompleteness, true},
		{"an event of a failed send's sequence", sole + acked + failed + events, NameEventCompleteness, true},
		{"an event a send of unknown outcome explains", sole + acked + unknown + events, NameEventCompleteness, false},
		{"an event beyond the acks, another writer allowed", plain + acked + events, NameEventCompleteness, false},
	} {
		res, _ := checkText(t, tc.text).Result(tc.invariant)
		switch {
		case (res.Status == Fail) != tc.fails:
			t.Errorf("%s: %s %s (%s)", tc.name, tc.invariant, res.Status, res.Detail)
		case tc.fails && !strings.Contains(res.Detail, "no ack holds"):
			t.Errorf("%s: %s", tc.name, res.Detail)
		}
	}
}
