package checker

import (
	"strings"
	"testing"
)

// The final counter is the state after the run: no allocation of the run,
// so no commit, is above it. A commit whose sequence no one names (a
// persist of unknown outcome's, a key a rejection proves) must fit at or
// below it (oracle seed 1330020, a false PASS).

// Under key_reuse reject, p1's rejection proves key p1's message exists.
// The sync saw no message at seq 1, the only one from before the run, so
// p2's persist (same key, pending) made it, in the run: above the initial
// counter 1. The final counter is 1.
const committedAboveTheCounter = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"reject"},"initial_counter":1}
{"type":"invoke","process":3,"f":"sync","time":1,"chat":"c1","after":0,"limit":0}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"p1","payload_hash":"hp1x"}
{"type":"ok","process":3,"f":"sync","time":3,"seqs":[],"message_ids":[]}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"p1","payload_hash":"hp1"}
{"type":"fail","process":1,"f":"persist","time":6,"error":"idempotency_key_reused"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":1}`

func TestACommitAboveTheFinalCounter(t *testing.T) {
	mustBoth(t, committedAboveTheCounter, NameLinearizability, Fail)
	// A counter of 2 holds p2's commit at seq 2.
	kept := strings.Replace(committedAboveTheCounter, `"value":1}`, `"value":2}`, 1)
	mustBoth(t, kept, NameLinearizability, Pass)
	// Without the sync, the key can be from before the run, at seq 1.
	unseen := strings.Replace(committedAboveTheCounter, `"seqs":[],"message_ids":[]`, `"seqs":[1],"message_ids":["m0"]`, 1)
	mustBoth(t, unseen, NameLinearizability, Pass)
}

// The same under gaps forbidden, and with a persist of unknown outcome
// whose key a later replay needs committed.
func TestACommitAboveTheFinalCounterGapless(t *testing.T) {
	forbidden := strings.Replace(committedAboveTheCounter, `"gaps":"allowed"`, `"gaps":"forbidden"`, 1)
	mustBoth(t, forbidden, NameLinearizability, Fail)
	mustBoth(t, strings.Replace(forbidden, `"value":1}`, `"value":2}`, 1), NameLinearizability, Pass)
}

// The sequences up to the counter may be taken by other writers' final
// lines (keys no persist used): the commit a rejection proves needs one of
// its own (oracle seed 2189847).
func TestACommitWhereOtherWritersLinesHoldEverySequence(t *testing.T) {
	const full = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c1","key":"k1","payload_hash":"hk1x"}
{"type":"info","process":1,"f":"persist","time":5,"error":"timeout"}
{"type":"fail","process":2,"f":"persist","time":8,"error":"idempotency_key_reused"}
{"type":"final","table":"counters","chat":"c1","value":2}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"f1","seq":1,"message_id":"m1"}
{"type":"final","table":"idempotency","chat":"c1","key":"f2","seq":2,"message_id":"m2"}
{"type":"table_read","table":"idempotency","lines":2}`
	mustBoth(t, full, NameLinearizability, Fail)
	// A counter of 3 leaves seq 3 for k1.
	mustBoth(t, strings.Replace(full, `"value":2}`, `"value":3}`, 1), NameLinearizability, Pass)
	// A sync that shows seq 1 shows f1's message there, not k1's: the
	// exact checker once let k1's persist commit it.
	const sync = `{"type":"invoke","process":1,"f":"sync","time":7,"chat":"c1","after":0,"limit":0}
{"type":"fail","process":2,"f":"persist","time":8,"error":"idempotency_key_reused"}
{"type":"ok","process":1,"f":"sync","time":12,"seqs":[1],"message_ids":["m1"]}`
	shown := strings.Replace(full, `{"type":"fail","process":2,"f":"persist","time":8,"error":"idempotency_key_reused"}`, sync, 1)
	mustBoth(t, shown, NameLinearizability, Fail)
}

// Under gaps: forbidden, a commit no line places takes the next sequence
// no other writer's line holds: other writers took theirs before it. The
// rejection proves s1's k1 committed, by p3's pending persist; seqs 1 and
// 2 are other writers' records and the counter is 2 (oracle seed 3481932:
// the commit took seq 1).
func TestAGaplessCommitAfterOtherWritersLines(t *testing.T) {
	const broken = `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden","key_reuse":"reject","key_scope":"client"}}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1x"}
{"type":"fail","process":2,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":2}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s2"}
{"type":"final","table":"idempotency","chat":"c1","key":"f2","seq":2,"message_id":"m2","sender":"sf"}`
	mustBoth(t, broken, NameLinearizability, Fail)
	// A counter of 3 leaves it seq 3.
	mustBoth(t, strings.Replace(broken, `"value":2`, `"value":3`, 1), NameLinearizability, Pass)
}
