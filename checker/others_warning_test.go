package checker

import (
	"strings"
	"testing"
)

// Without sole_writer, sequences a sync showed that no ack created are
// taken as other writers' messages, and the warning says how many of
// them no persist of the history could have committed in time: none when
// a persist of unknown outcome, invoked before the sync, could have made
// the one shown. It said "no persist could have" of every such sequence
// (an outside tester's).
func TestOtherWritersWarningCountsWhatNoPersistCouldMake(t *testing.T) {
	const head = `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m1"}
`
	const unknown = `{"type":"invoke","process":3,"f":"persist","time":3,"chat":"c1","key":"k2","payload_hash":"h2"}
{"type":"info","process":3,"f":"persist","time":4,"error":"timeout"}
`
	sync := func(seqs, ids string) string {
		return `{"type":"invoke","process":2,"f":"sync","time":5,"chat":"c1","after":0,"limit":10}
{"type":"ok","process":2,"f":"sync","time":6,"seqs":[` + seqs + `],"message_ids":[` + ids + `]}
`
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"one shown, a persist could have made it", head + unknown + sync(`1,2`, `"m1","m2"`), ""},
		{"one shown, no persist", head + sync(`1,2`, `"m1","m2"`), `chat "c1": sequence 2 no persist of the history could have committed in time`},
		{"two shown, one persist", head + unknown + sync(`1,2,3`, `"m1","m2","m3"`), `chat "c1": of sequences 2, 3, which no ack created, 1 no persist of the history could have committed in time`},
	} {
		rep := checkText(t, tc.text)
		must(t, rep, NameLinearizability, Pass)
		var said string
		for _, w := range rep.Warnings {
			if strings.Contains(w, "other writers' messages") {
				said = w
			}
		}
		switch {
		case tc.want == "" && said != "":
			t.Errorf("%s: warned %q", tc.name, said)
		case tc.want != "" && !strings.Contains(said, tc.want):
			t.Errorf("%s: warned %q, want %q", tc.name, said, tc.want)
		}
	}
}
