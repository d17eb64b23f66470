package checker

import (
	"strings"
	"testing"
)

// A final line that places a key's message says one of the key's persists
// made it there: for the model that effect is not optional (the oracle's
// disagreements of 2026-12-04). Each case fails by the exact checker and by
// porcupine alike, and its twin, which differs in the one fact, passes.

const placedHead = `{"format":"chatseq-history","version":1`

// Under key_scope client the record at seq 3 is s2's key k1, which only
// s2's persist used, invoked after seq 4 was acknowledged: under gaps
// forbidden its message cannot be at 3. s1's k1 is another key.
const placedBelowAnEarlierAck = placedHead + `,"contract":{"gaps":"forbidden","key_scope":"client"},"initial_counter":2}
{"type":"invoke","process":3,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"info","process":3,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k2","sender":"s1","payload_hash":"hk2"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":4,"message_id":"m2","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":3,"message_id":"m1","sender":"s2"}
{"type":"final","table":"idempotency","chat":"c1","key":"k2","seq":4,"message_id":"m2","sender":"s1"}
{"type":"table_read","table":"idempotency","lines":2}`

// invokedBeforeTheAck moves s2's invoke (time 6) before the ack of seq 4
// (time 5), at time 4.
func invokedBeforeTheAck(h string) string {
	const ack = `{"type":"ok","process":3,"f":"persist","time":5,"seq":4,"message_id":"m2","dedup":false}` + "\n"
	const late = `{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}` + "\n"
	early := strings.Replace(late, `"time":6`, `"time":4`, 1)
	return strings.Replace(h, ack+late, early+ack, 1)
}

func TestAPlacedMessageIsMadeWhereItsLineSays(t *testing.T) {
	mustBoth(t, placedBelowAnEarlierAck, NameLinearizability, Fail)
	// s2's persist invoked before the ack: it can make seq 3 first.
	kept := invokedBeforeTheAck(placedBelowAnEarlierAck)
	if kept == placedBelowAnEarlierAck {
		t.Fatal("the twin is the history")
	}
	mustBoth(t, kept, NameLinearizability, Pass)
	must(t, mustExact(t, kept), NameSequenceMonotonic, Pass)
}

// Under gaps forbidden a key placed at seq 3 needs seq 2 committed, and
// the messages table, read, holds nothing there: another writer's message
// would be on it. The exact checker once left a placed key without a
// replay out of the gapless prefix.
func TestAPlacedMessageNeedsTheSequencesBelowIt(t *testing.T) {
	broken := placedHead + `,"contract":{"gaps":"forbidden"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"ha"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"ma","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"hb"}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"ma","key":"a"}
{"type":"final","table":"messages","chat":"c","seq":3,"message_id":"mb","key":"b"}
{"type":"table_read","table":"messages","lines":2}`
	mustBoth(t, broken, NameLinearizability, Fail)
	kept := strings.Replace(broken, `"seq":3,"message_id":"mb"`, `"seq":2,"message_id":"mb"`, 1)
	mustBoth(t, kept, NameLinearizability, Pass)
}

// A key placed at a sequence another key's persist was acked as creating:
// the one message there cannot be both.
func TestAPlacedMessageAtAnAckedSequence(t *testing.T) {
	broken := placedHead + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"ha"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"ma","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"hb"}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"final","table":"idempotency","chat":"c","key":"a","seq":1,"message_id":"ma"}
{"type":"final","table":"idempotency","chat":"c","key":"b","seq":1,"message_id":"mb"}
{"type":"table_read","table":"idempotency","lines":2}`
	mustBoth(t, broken, NameLinearizability, Fail)
	kept := strings.Replace(broken, `"key":"b","seq":1,"message_id":"mb"`, `"key":"b","seq":2,"message_id":"mb"`, 1)
	mustBoth(t, kept, NameLinearizability, Pass)
}

// Two keys placed at one sequence, neither acked: only one message is there.
func TestTwoKeysPlacedAtOneSequence(t *testing.T) {
	broken := placedHead + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"ha"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"hb"}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"final","table":"idempotency","chat":"c","key":"a","seq":1,"message_id":"m1"}
{"type":"final","table":"idempotency","chat":"c","key":"b","seq":1,"message_id":"m1"}
{"type":"table_read","table":"idempotency","lines":2}`
	mustBoth(t, broken, NameLinearizability, Fail)
	kept := strings.Replace(broken, `"key":"b","seq":1,"message_id":"m1"`, `"key":"b","seq":2,"message_id":"m2"`, 1)
	mustBoth(t, kept, NameLinearizability, Pass)
}

// Under key_reuse reject a key rejected as reused whose other persist sent
// the same content cannot have been committed by it: its message is from
// before the run. Under key_scope client the line there without a sender
// (two senders used the key), from before the run, can be it, and no
// persist of the run made it: a pass (it was unknown while the model let
// the persist of unknown outcome commit anywhere). With no line there,
// the rejection proves a message the table does not hold.
func TestRejectedKeyFromBeforeTheRunOnALineWithoutASender(t *testing.T) {
	const h = placedHead + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":2}
{"type":"invoke","process":3,"f":"persist","time":1,"chat":"c1","key":"p2","payload_hash":"hp2x"}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"p2","payload_hash":"hp2x"}
{"type":"fail","process":3,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"invoke","process":3,"f":"persist","time":8,"chat":"c1","key":"p2","sender":"s2","payload_hash":"hp2"}
{"type":"fail","process":3,"f":"persist","time":12,"error":"crash_after_allocate"}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"pm2c1","key":"p2"}`
	mustBoth(t, h, NameLinearizability, Pass)
	empty := strings.Replace(h, `{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"pm2c1","key":"p2"}`, `{"type":"table_read","table":"messages","lines":0}`, 1)
	mustBoth(t, empty, NameLinearizability, Fail)
}

// The counter only grows: a persist invoked after seq 3 was acknowledged
// creates above 3 (HISTORY.md's sequence_monotonic), so the message the
// sync shows at seq 2, which only k2's persist can have made (sole
// writer), cannot be its. Under gaps allowed the model's commit may come
// long after the allocation, so the floor is stated (allocorder.go).
func TestAMessageMadeBelowWhatWasAckedBeforeItsPersist(t *testing.T) {
	broken := placedHead + `,"contract":{"gaps":"allowed"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"ok","process":1,"f":"persist","time":4,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":16,"chat":"c1","key":"k3","payload_hash":"hk3"}
{"type":"ok","process":1,"f":"persist","time":21,"seq":3,"message_id":"m3","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":22,"chat":"c1","key":"k2","payload_hash":"hk2"}
{"type":"info","process":2,"f":"persist","time":24,"error":"timeout"}
{"type":"invoke","process":1,"f":"sync","time":30,"chat":"c1","after":0,"limit":2}
{"type":"ok","process":1,"f":"sync","time":31,"seqs":[1,2],"message_ids":["m1","m2"]}`
	mustBoth(t, broken, NameLinearizability, Fail)
	// k2 invoked while k3's persist was under way: it may have drawn 2.
	kept := reorderByTime(t, strings.Replace(broken, `"time":22,"chat":"c1","key":"k2"`, `"time":17,"chat":"c1","key":"k2"`, 1))
	mustBoth(t, kept, NameLinearizability, Pass)
	// Two persists of unknown outcome, invoked before and after the ack
	// of 5, and two sequences only they can have made: 2 and 6 can be
	// theirs, 2 and 3 cannot (the later one creates above 5), although
	// they are as many as the persists.
	two := placedHead + `,"contract":{"gaps":"allowed"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"ok","process":1,"f":"persist","time":4,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":16,"chat":"c1","key":"k5","payload_hash":"hk5"}
{"type":"invoke","process":2,"f":"persist","time":17,"chat":"c1","key":"p","payload_hash":"hp"}
{"type":"ok","process":1,"f":"persist","time":21,"seq":5,"message_id":"m5","dedup":false}
{"type":"invoke","process":3,"f":"persist","time":22,"chat":"c1","key":"q","payload_hash":"hq"}
{"type":"info","process":2,"f":"persist","time":24,"error":"timeout"}
{"type":"info","process":3,"f":"persist","time":25,"error":"timeout"}
{"type":"invoke","process":1,"f":"sync","time":30,"chat":"c1","after":0,"limit":0}
{"type":"ok","process":1,"f":"sync","time":31,"seqs":[1,2,5,6],"message_ids":["m1","m2","m5","m6"]}`
	mustBoth(t, two, NameLinearizability, Pass)
	below := strings.Replace(two, `"seqs":[1,2,5,6],"message_ids":["m1","m2","m5","m6"]`, `"seqs":[1,2,3,5],"message_ids":["m1","m2","m3","m5"]`, 1)
	mustBoth(t, below, NameLinearizability, Fail)
}
