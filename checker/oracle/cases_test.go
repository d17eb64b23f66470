package oracle

import (
	"strings"
	"testing"
)

// issue26Cases are the eight histories of issue 26, each beside a nearby
// twin that is valid: the oracle must fail the first and pass the second.
var issue26Cases = []struct {
	name           string
	invalid, valid string
}{
	{
		// A replay binds x to B's key, yet a sync showed x before B's
		// first send; A's info is unrelated (another key).
		name: "1 replay's sequence shown before any possible committer",
		invalid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"kA","payload_hash":"hA"}
{"type":"invoke","process":2,"f":"sync","time":1,"chat":"c","after":0,"limit":0}
{"type":"info","process":1,"f":"persist","time":2,"error":"timeout"}
{"type":"ok","process":2,"f":"sync","time":5,"seqs":[1],"message_ids":["x"]}
{"type":"invoke","process":3,"f":"persist","time":10,"chat":"c","key":"kB","payload_hash":"hB"}
{"type":"info","process":3,"f":"persist","time":11,"error":"timeout"}
{"type":"invoke","process":4,"f":"persist","time":20,"chat":"c","key":"kB","payload_hash":"hB"}
{"type":"ok","process":4,"f":"persist","time":21,"seq":1,"message_id":"x","dedup":true}
`,
		// B's first send began before the sync completed.
		valid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"kA","payload_hash":"hA"}
{"type":"invoke","process":2,"f":"sync","time":1,"chat":"c","after":0,"limit":0}
{"type":"info","process":1,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":3,"chat":"c","key":"kB","payload_hash":"hB"}
{"type":"ok","process":2,"f":"sync","time":5,"seqs":[1],"message_ids":["x"]}
{"type":"info","process":3,"f":"persist","time":11,"error":"timeout"}
{"type":"invoke","process":4,"f":"persist","time":20,"chat":"c","key":"kB","payload_hash":"hB"}
{"type":"ok","process":4,"f":"persist","time":21,"seq":1,"message_id":"x","dedup":true}
`,
	},
	{
		// The rejection proves k committed by t=3; a later full sync
		// returns nothing.
		name: "2 a rejection proves a commit no sync may then hide",
		invalid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k","payload_hash":"h1"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"k","payload_hash":"h2"}
{"type":"fail","process":2,"f":"persist","time":3,"error":"idempotency_key_reused"}
{"type":"invoke","process":3,"f":"sync","time":4,"chat":"c","after":0,"limit":0}
{"type":"ok","process":3,"f":"sync","time":5,"seqs":[],"message_ids":[]}
`,
		valid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k","payload_hash":"h1"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"k","payload_hash":"h2"}
{"type":"fail","process":2,"f":"persist","time":3,"error":"idempotency_key_reused"}
{"type":"invoke","process":3,"f":"sync","time":4,"chat":"c","after":0,"limit":0}
{"type":"ok","process":3,"f":"sync","time":5,"seqs":[4],"message_ids":["m"]}
`,
	},
	{
		// c1 lost an acknowledged message; c2's final line has no
		// sender, which must not excuse c1.
		name: "3 a senderless final line in another chat under key_scope client",
		invalid: `{"format":"chatseq-history","version":1,"contract":{"key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"k2","sender":"s1","payload_hash":"h2"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":2,"message_id":"m2","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":4,"chat":"c2","key":"kz","sender":"s2","payload_hash":"hz"}
{"type":"ok","process":2,"f":"persist","time":5,"seq":1,"message_id":"mz","dedup":false}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1","sender":"s1"}
{"type":"final","table":"messages","chat":"c2","seq":1,"message_id":"mz","key":"kz"}
`,
		valid: `{"format":"chatseq-history","version":1,"contract":{"key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"k2","sender":"s1","payload_hash":"h2"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":2,"message_id":"m2","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":4,"chat":"c2","key":"kz","sender":"s2","payload_hash":"hz"}
{"type":"ok","process":2,"f":"persist","time":5,"seq":1,"message_id":"mz","dedup":false}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1","sender":"s1"}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"m2","key":"k2","sender":"s1"}
{"type":"final","table":"messages","chat":"c2","seq":1,"message_id":"mz","key":"kz"}
`,
	},
	{
		name: "4 a new message below the initial counter",
		invalid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed"},"initial_counter":5}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":3,"message_id":"m3","dedup":false}
`,
		// A replay at or below the initial counter may answer a key
		// from before the run.
		valid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed"},"initial_counter":5}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":3,"message_id":"m3","dedup":true}
`,
	},
	{
		name: "5 a definite failure whose message exists",
		invalid: `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k0","payload_hash":"h"}
{"type":"fail","process":1,"f":"persist","time":1,"error":"crash_after_allocate"}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k0"}
`,
		valid: `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k0","payload_hash":"h"}
{"type":"info","process":1,"f":"persist","time":1,"error":"crash_after_allocate"}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k0"}
`,
	},
	{
		name: "6 an ack stored under another key",
		invalid: `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k1","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k2"}
`,
		valid: `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k1","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k1"}
`,
	},
	{
		name: "7 a message no client sent, from the history's sole writer",
		invalid: `{"format":"chatseq-history","version":1,"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k1","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k1"}
{"type":"final","table":"messages","chat":"c","seq":2,"message_id":"m2","key":"kz"}
`,
		// Without sole_writer another writer may have sent it.
		valid: `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k1","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k1"}
{"type":"final","table":"messages","chat":"c","seq":2,"message_id":"m2","key":"kz"}
`,
	},
	{
		// k's committer is unknown, its rejection proves it committed
		// by t=5, and under gaps forbidden it must then hold seq 2,
		// which b's ack holds.
		name: "8 a rejected key whose committer's outcome is unknown, gaps forbidden",
		invalid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k","payload_hash":"h1"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"a","payload_hash":"ha"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":1,"message_id":"ma","dedup":false}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"k","payload_hash":"h2"}
{"type":"fail","process":3,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"invoke","process":4,"f":"persist","time":6,"chat":"c","key":"b","payload_hash":"hb"}
{"type":"ok","process":4,"f":"persist","time":7,"seq":2,"message_id":"mb","dedup":false}
`,
		valid: `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k","payload_hash":"h1"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"a","payload_hash":"ha"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":1,"message_id":"ma","dedup":false}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"k","payload_hash":"h2"}
{"type":"fail","process":3,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"invoke","process":4,"f":"persist","time":6,"chat":"c","key":"b","payload_hash":"hb"}
{"type":"ok","process":4,"f":"persist","time":7,"seq":3,"message_id":"mb","dedup":false}
`,
	},
}

func judgeText(t *testing.T, text string) (bool, string) {
	t.Helper()
	s, err := parseSpec([]byte(text))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	return s.judge()
}

func TestOracleIssue26Cases(t *testing.T) {
	for _, c := range issue26Cases {
		t.Run(strings.Fields(c.name)[0], func(t *testing.T) {
			if ok, _ := judgeText(t, c.invalid); ok {
				t.Errorf("%s: the oracle says VALID, want INVALID:\n%s", c.name, c.invalid)
			}
			if ok, why := judgeText(t, c.valid); !ok {
				t.Errorf("%s: the oracle says INVALID (%s) on the valid twin:\n%s", c.name, why, c.valid)
			}
		})
	}
}
