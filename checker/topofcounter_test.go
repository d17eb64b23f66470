package checker

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// At the top of the counter's range nothing wraps: a sequence of 2^64-1
// under gaps: forbidden is placed and the exact checker ends (next+1
// wrapped to 0 and it placed sequences without end, gigabytes a minute),
// and an initial_counter of 2^64-1 leaves every message before the run
// (initial_counter+1 wrapped to 0: a replay or sync of a message from
// before the run failed gapless and linearizability). A red-team's
// histories; exact and porcupine agree on each, and the same histories
// one below the top still pass.
func TestTheTopOfTheCounterDoesNotWrap(t *testing.T) {
	const top = "18446744073709551615"
	const belowTop = "18446744073709551614"
	for _, c := range []struct{ name, text string }{
		{"a send acked at the top", `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"},"initial_counter":` + belowTop + `}
{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","time":1}
{"type":"ok","process":0,"f":"persist","seq":` + top + `,"message_id":"mM","dedup":false,"time":2}
`},
		{"a lost answer stored at the top", `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"},"initial_counter":` + belowTop + `}
{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","time":1}
{"type":"info","process":0,"f":"persist","error":"x","time":2}
{"type":"final","table":"messages","chat":"c1","seq":` + top + `,"message_id":"x","key":"k1"}
{"type":"table_read","table":"messages","lines":1}
`},
		{"a sync showing the top", `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"},"initial_counter":` + belowTop + `}
{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","time":1}
{"type":"info","process":0,"f":"persist","error":"x","time":2}
{"type":"invoke","process":1,"f":"sync","chat":"c1","after":0,"limit":0,"time":3}
{"type":"ok","process":1,"f":"sync","seqs":[` + top + `],"message_ids":["x"],"time":4}
`},
		{"a replay from before a full counter", `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"},"initial_counter":` + top + `,"sole_writer":true}
{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"old","time":1}
{"type":"ok","process":0,"f":"persist","seq":5,"message_id":"m5","dedup":true,"time":2}
`},
		{"a sync from before a full counter", `{"format":"chatseq-history","version":1,"initial_counter":` + top + `,"sole_writer":true}
{"type":"invoke","process":1,"f":"sync","chat":"c1","after":0,"limit":0,"time":1}
{"type":"ok","process":1,"f":"sync","seqs":[3],"message_ids":["m3"],"time":2}
`},
		{"a full counter's messages", `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"},"initial_counter":` + top + `,"sole_writer":true}
{"type":"table_read","table":"messages","lines":2}
{"type":"final","table":"messages","chat":"c1","seq":3,"message_id":"m3","key":"a"}
{"type":"final","table":"messages","chat":"c1","seq":7,"message_id":"m7","key":"b"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":` + top + `}
`},
	} {
		h, err := history.Read(strings.NewReader(c.text), "h.jsonl")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, porcupine := range []bool{false, true} {
			rep := Check(h, Options{Porcupine: porcupine})
			if rep.ExitCode() != 0 {
				for _, r := range rep.Invariants {
					if r.Status != Pass {
						t.Errorf("%s (porcupine %v): %s %s: %s", c.name, porcupine, r.Name, r.Status, r.Detail)
					}
				}
			}
		}
	}
	// A counter full at the start holds nothing the run placed: one
	// below the top at the end is a counter that went back.
	h, err := history.Read(strings.NewReader(`{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"},"initial_counter":`+top+`,"sole_writer":true}
{"type":"table_read","table":"messages","lines":0}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":`+belowTop+`}
`), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if rep := Check(h, Options{}); rep.ExitCode() != 1 {
		t.Errorf("a counter below a full initial counter: exit %d, want 1", rep.ExitCode())
	}
}
