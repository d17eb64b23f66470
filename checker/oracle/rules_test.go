package oracle

import (
	"math/rand/v2"
	"testing"
)

const hdr = `{"format":"chatseq-history","version":1`

// ruleCases pin the oracle's reading of single rules, each beside the
// history that differs in the rule alone.
var ruleCases = []struct {
	name  string
	valid bool
	text  string
}{
	{"two-phase: 12 commits before 11", true, hdr + `,"initial_counter":10}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"invoke","process":2,"f":"persist","time":1,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":2,"f":"persist","time":2,"seq":12,"message_id":"m12","dedup":false}
{"type":"ok","process":1,"f":"persist","time":3,"seq":11,"message_id":"m11","dedup":false}
`},
	{"sequence_monotonic: a later new persist takes a smaller sequence", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":2,"message_id":"m2","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":1,"message_id":"m1","dedup":false}
`},
	// A rejection proves k1 committed before it, so the sync after it
	// shows k1's message; the one sequence it shows, an idempotency record
	// gives another key no persist sent. Porcupine bound k1 there and
	// passed (oracle seed 16826497); with the record k1's it is valid.
	{"a rejected key's message at another key's recorded sequence", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"k1","payload_hash":"hk1x"}
{"type":"info","process":1,"f":"persist","time":3,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"fail","process":1,"f":"persist","time":9,"error":"idempotency_key_reused"}
{"type":"invoke","process":1,"f":"sync","time":10,"chat":"c1","after":0,"limit":0}
{"type":"ok","process":1,"f":"sync","time":12,"seqs":[1],"message_ids":["m1"]}
{"type":"table_read","table":"idempotency","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"kx0","seq":1,"message_id":"m1"}
`},
	{"a rejected key's message at its own recorded sequence", true, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"k1","payload_hash":"hk1x"}
{"type":"info","process":1,"f":"persist","time":3,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"fail","process":1,"f":"persist","time":9,"error":"idempotency_key_reused"}
{"type":"invoke","process":1,"f":"sync","time":10,"chat":"c1","after":0,"limit":0}
{"type":"ok","process":1,"f":"sync","time":12,"seqs":[1],"message_ids":["m1"]}
{"type":"table_read","table":"idempotency","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","payload_hash":"hk1x"}
`},
	{"a table read and empty loses the ack", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"table_read","table":"messages","lines":0}
`},
	{"a table not read judges nothing", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"counters","chat":"c","value":1}
`},
	{"gaps forbidden, sole writer: the counter above the highest message", false, hdr + `,"contract":{"gaps":"forbidden"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"counters","chat":"c","value":2}
`},
	{"gaps forbidden, sole writer: a gap between two acks", false, hdr + `,"contract":{"gaps":"forbidden"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":3,"message_id":"m3","dedup":false}
`},
	{"gaps forbidden: a gap between two acks is another writer's message", true, hdr + `,"contract":{"gaps":"forbidden"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":3,"message_id":"m3","dedup":false}
`},
	{"gaps forbidden: a gap the messages table shows empty", false, hdr + `,"contract":{"gaps":"forbidden"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":3,"message_id":"m3","dedup":false}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"a"}
{"type":"final","table":"messages","chat":"c","seq":3,"message_id":"m3","key":"b"}
`},
	{"gaps allowed: the counter above the highest message", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"counters","chat":"c","value":2}
`},
	{"a missing counter", false, hdr + `}
{"type":"final","table":"counters","chat":"c","missing":true}
`},
	{"a sync's first page", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":3,"message_id":"m3","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c","key":"d","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":5,"seq":4,"message_id":"m4","dedup":false}
{"type":"invoke","process":1,"f":"sync","time":6,"chat":"c","after":0,"limit":2}
{"type":"ok","process":1,"f":"sync","time":7,"seqs":[1,3],"message_ids":["m1","m3"]}
`},
	{"a sync's page skipping a message", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":3,"message_id":"m3","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c","key":"d","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":5,"seq":4,"message_id":"m4","dedup":false}
{"type":"invoke","process":1,"f":"sync","time":6,"chat":"c","after":0,"limit":2}
{"type":"ok","process":1,"f":"sync","time":7,"seqs":[1,4],"message_ids":["m1","m4"]}
`},
	{"two messages share one id", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":2,"message_id":"m","dedup":false}
`},
	{"another writer's message, seen by a sync", true, hdr + `}
{"type":"invoke","process":1,"f":"sync","time":0,"chat":"c","after":0,"limit":0}
{"type":"ok","process":1,"f":"sync","time":1,"seqs":[1],"message_ids":["x"]}
`},
	{"a sole writer's sync shows a message no one sent", false, hdr + `,"sole_writer":true}
{"type":"invoke","process":1,"f":"sync","time":0,"chat":"c","after":0,"limit":0}
{"type":"ok","process":1,"f":"sync","time":1,"seqs":[1],"message_ids":["x"]}
`},
	{"return-original: a reused key gets the original", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"a","payload_hash":"h2"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":1,"message_id":"m1","dedup":true}
`},
	{"reject: a reused key must not get the original", false, hdr + `,"contract":{"key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"a","payload_hash":"h2"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":1,"message_id":"m1","dedup":true}
`},
	{"key_scope client: two senders, one key, two messages", true, hdr + `,"contract":{"key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"a","sender":"s2","payload_hash":"h"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":2,"message_id":"m2","dedup":false}
`},
	{"key_scope chat: two senders, one key, two messages", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"a","sender":"s2","payload_hash":"h"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":2,"message_id":"m2","dedup":false}
`},
	{"equal times are concurrent", true, hdr + `}
{"type":"invoke","process":1,"f":"sync","time":0,"chat":"c","after":0,"limit":0}
{"type":"invoke","process":2,"f":"persist","time":1,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"sync","time":1,"seqs":[1],"message_ids":["m1"]}
{"type":"ok","process":2,"f":"persist","time":2,"seq":1,"message_id":"m1","dedup":false}
`},
	// FORMAT.md's final messages line: its payload_hash, where given, is
	// what the persist acknowledged as creating the message sent.
	{"a message stored as its persist sent it", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"a","payload_hash":"h"}
`},
	{"a message stored with other content", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"a","payload_hash":"h-altered"}
`},
	{"a replay's other content is not its message's", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"a","payload_hash":"h2"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":1,"message_id":"m1","dedup":true}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"a","payload_hash":"h"}
`},
	// HISTORY.md's sequence_monotonic: "of two persists that each created
	// their message": a persist of unknown outcome whose key's message a
	// final line places created it, no earlier than its invoke. Under
	// key_scope client the record below is s2's key k1, which only s2's
	// persist used, invoked after seq 4 was acknowledged.
	{"key_scope client, gaps forbidden: a record placing a later persist's message below an earlier ack", false, hdr + `,"contract":{"gaps":"forbidden","key_scope":"client"},"initial_counter":2}
{"type":"invoke","process":3,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"info","process":3,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k2","sender":"s1","payload_hash":"hk2"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":4,"message_id":"m2","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":3,"message_id":"m1","sender":"s2"}
{"type":"final","table":"idempotency","chat":"c1","key":"k2","seq":4,"message_id":"m2","sender":"s1"}
{"type":"table_read","table":"idempotency","lines":2}
`},
	{"key_scope client, gaps allowed: a record placing a later persist's message below an earlier ack", false, hdr + `,"contract":{"key_scope":"client"},"initial_counter":2}
{"type":"invoke","process":3,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"info","process":3,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k2","sender":"s1","payload_hash":"hk2"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":4,"message_id":"m2","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":3,"message_id":"m1","sender":"s2"}
{"type":"final","table":"idempotency","chat":"c1","key":"k2","seq":4,"message_id":"m2","sender":"s1"}
{"type":"table_read","table":"idempotency","lines":2}
`},
	{"key_scope client, gaps forbidden: the record's persist invoked before the ack", true, hdr + `,"contract":{"gaps":"forbidden","key_scope":"client"},"initial_counter":2}
{"type":"invoke","process":3,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"info","process":3,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k2","sender":"s1","payload_hash":"hk2"}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":4,"message_id":"m2","dedup":false}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":3,"message_id":"m1","sender":"s2"}
{"type":"final","table":"idempotency","chat":"c1","key":"k2","seq":4,"message_id":"m2","sender":"s1"}
{"type":"table_read","table":"idempotency","lines":2}
`},
	{"gaps allowed: a replay placing a later persist's message below an earlier ack", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":4,"message_id":"m4","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":3,"message_id":"m3","dedup":true}
`},
	{"gaps allowed: a replay placing a concurrent persist's message below an ack", true, hdr + `}
{"type":"invoke","process":2,"f":"persist","time":0,"chat":"c","key":"b","payload_hash":"h"}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":4,"message_id":"m4","dedup":false}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":3,"message_id":"m3","dedup":true}
`},
	{"sole writer, gaps allowed: a sync shows a message only a persist invoked after a higher ack can have made", false, hdr + `,"contract":{"gaps":"allowed"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"ok","process":1,"f":"persist","time":4,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":16,"chat":"c1","key":"k3","payload_hash":"hk3"}
{"type":"ok","process":1,"f":"persist","time":21,"seq":3,"message_id":"m3","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":22,"chat":"c1","key":"k2","payload_hash":"hk2"}
{"type":"info","process":1,"f":"persist","time":24,"error":"timeout"}
{"type":"invoke","process":1,"f":"sync","time":30,"chat":"c1","after":0,"limit":2}
{"type":"ok","process":1,"f":"sync","time":31,"seqs":[1,2],"message_ids":["m1","m2"]}
`},
	{"sole writer, gaps allowed: a sync shows a message a persist concurrent with the higher ack made", true, hdr + `,"contract":{"gaps":"allowed"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"ok","process":1,"f":"persist","time":4,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":1,"f":"persist","time":16,"chat":"c1","key":"k3","payload_hash":"hk3"}
{"type":"invoke","process":2,"f":"persist","time":17,"chat":"c1","key":"k2","payload_hash":"hk2"}
{"type":"ok","process":1,"f":"persist","time":21,"seq":3,"message_id":"m3","dedup":false}
{"type":"info","process":2,"f":"persist","time":24,"error":"timeout"}
{"type":"invoke","process":1,"f":"sync","time":30,"chat":"c1","after":0,"limit":2}
{"type":"ok","process":1,"f":"sync","time":31,"seqs":[1,2],"message_ids":["m1","m2"]}
`},
	// FORMAT.md: another writer's message is "never under a key the
	// history used", and a fail took no effect: the record of s2's k1,
	// whose only persist failed, is no other writer's, though the
	// messages line without a sender could be (oracle seed 545007).
	{"key_scope client: a record of a key only a failed persist used", false, hdr + `,"contract":{"key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"fail","process":1,"f":"persist","time":5,"error":"crash_after_allocate"}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"m2","key":"k1"}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":2,"message_id":"m2","sender":"s2"}
{"type":"table_read","table":"idempotency","lines":1}
`},
	// HISTORY.md: the final tables are the state after the run, and the
	// counters' value is the last allocated sequence. The rejection proves
	// key p1's message; the sync saw none at seq 1 (from before the run),
	// so p2's persist made it in the run, above the counter of 1 (oracle
	// seed 1330020).
	{"reject: a rejection proves a commit above the final counter", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject"},"initial_counter":1}
{"type":"invoke","process":3,"f":"sync","time":1,"chat":"c1","after":0,"limit":0}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"p1","payload_hash":"hp1x"}
{"type":"ok","process":3,"f":"sync","time":3,"seqs":[],"message_ids":[]}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"p1","payload_hash":"hp1"}
{"type":"fail","process":1,"f":"persist","time":6,"error":"idempotency_key_reused"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":1}
`},
	{"reject: a rejection proves a commit the final counter holds", true, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject"},"initial_counter":1}
{"type":"invoke","process":3,"f":"sync","time":1,"chat":"c1","after":0,"limit":0}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"p1","payload_hash":"hp1x"}
{"type":"ok","process":3,"f":"sync","time":3,"seqs":[],"message_ids":[]}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"p1","payload_hash":"hp1"}
{"type":"fail","process":1,"f":"persist","time":6,"error":"idempotency_key_reused"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":2}
`},
	{"key_scope client: another sender's record of the same key", true, hdr + `,"contract":{"key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"fail","process":1,"f":"persist","time":5,"error":"crash_after_allocate"}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"m2","key":"k1"}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":2,"message_id":"m2","sender":"s9"}
{"type":"table_read","table":"idempotency","lines":1}
`},
	// A key only rejected is from before the run; its message there, on a
	// line without a sender, is under its text (seeds 358437, 3312796).
	{"key_scope client, key_reuse reject: a rejected key's line from before the run under another text", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":4}
{"type":"invoke","process":1,"f":"persist","time":3,"chat":"c1","key":"k3","sender":"s1","payload_hash":"hk3"}
{"type":"fail","process":1,"f":"persist","time":8,"error":"idempotency_key_reused"}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":4,"message_id":"pm4c1","key":"p4","payload_hash":"hp4"}
`},
	{"key_scope client, key_reuse reject: a rejected key's line from before the run under its text", true, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":4}
{"type":"invoke","process":1,"f":"persist","time":3,"chat":"c1","key":"k3","sender":"s1","payload_hash":"hk3"}
{"type":"fail","process":1,"f":"persist","time":8,"error":"idempotency_key_reused"}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":4,"message_id":"pm4c1","key":"k3","payload_hash":"hp4"}
`},
	// Gapless: other writers' records hold seqs 1 and 2 under a counter
	// of 2, so the proven commit has no sequence (seed 3481932).
	{"gaps forbidden: a proven commit past other writers' records and the counter", false, hdr + `,"contract":{"gaps":"forbidden","key_reuse":"reject","key_scope":"client"}}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1x"}
{"type":"fail","process":2,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":2}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s2"}
{"type":"final","table":"idempotency","chat":"c1","key":"f2","seq":2,"message_id":"m2","sender":"sf"}
`},
	{"gaps forbidden: a proven commit past other writers' records under the counter", true, hdr + `,"contract":{"gaps":"forbidden","key_reuse":"reject","key_scope":"client"}}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1x"}
{"type":"fail","process":2,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":3}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s2"}
{"type":"final","table":"idempotency","chat":"c1","key":"f2","seq":2,"message_id":"m2","sender":"sf"}
`},
	// A record without a sender, of a text only a failed persist used, is
	// another writer's: its sequence is not room for k1's proven commit.
	{"key_scope client: a record without a sender holds the only room a proven commit has", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"kx","sender":"s2","payload_hash":"hkx"}
{"type":"fail","process":1,"f":"persist","time":2,"error":"not_a_member"}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1x"}
{"type":"fail","process":2,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":1}
{"type":"table_read","table":"idempotency","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"kx","seq":1,"message_id":"m1"}
`},
	// Two keys of text p1 rejected, from before the run: a record without
	// a sender of that text can be one's message, a free sequence the
	// other's (seed 200204); records of other texts can be neither's.
	{"key_scope client, key_reuse reject: two rejected keys, a record of their text and a free sequence", true, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":3}
{"type":"invoke","process":2,"f":"persist","time":0,"chat":"c2","key":"p1","payload_hash":"hp1x"}
{"type":"fail","process":2,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"invoke","process":2,"f":"persist","time":7,"chat":"c2","key":"p1","sender":"s2","payload_hash":"hp1x"}
{"type":"fail","process":2,"f":"persist","time":10,"error":"idempotency_key_reused"}
{"type":"final","table":"idempotency","chat":"c2","key":"p1","seq":1,"message_id":"pm1c2"}
{"type":"final","table":"idempotency","chat":"c2","key":"p3","seq":3,"message_id":"pm3c2"}
{"type":"table_read","table":"idempotency","lines":2}
`},
	{"key_scope client, key_reuse reject: two rejected keys, records of other texts and one free sequence", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":3}
{"type":"invoke","process":2,"f":"persist","time":0,"chat":"c2","key":"p1","payload_hash":"hp1x"}
{"type":"fail","process":2,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"invoke","process":2,"f":"persist","time":7,"chat":"c2","key":"p1","sender":"s2","payload_hash":"hp1x"}
{"type":"fail","process":2,"f":"persist","time":10,"error":"idempotency_key_reused"}
{"type":"final","table":"idempotency","chat":"c2","key":"p2","seq":1,"message_id":"pm1c2"}
{"type":"final","table":"idempotency","chat":"c2","key":"p4","seq":3,"message_id":"pm3c2"}
{"type":"table_read","table":"idempotency","lines":2}
`},
	// Two records at one sequence are two keys of one message, whoever
	// sent them (seed 3040735).
	{"key_scope client: two records without a sender at one sequence", false, hdr + `,"contract":{"key_scope":"client"}}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":2,"message_id":"m1"}
{"type":"final","table":"idempotency","chat":"c1","key":"f2","seq":2,"message_id":"m2"}
`},
	{"key_scope client: two records without a sender at two sequences", true, hdr + `,"contract":{"key_scope":"client"}}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":2,"message_id":"m1"}
{"type":"final","table":"idempotency","chat":"c1","key":"f2","seq":3,"message_id":"m2"}
`},
	// A rejection proves the key's message exists, at a sequence from 1
	// up to the counter (seed 744565).
	{"key_reuse reject: a counter of 0 after a rejection", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"fail","process":1,"f":"persist","time":6,"error":"idempotency_key_reused"}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k1","payload_hash":"hk1x"}
{"type":"final","table":"counters","chat":"c1","value":0}
{"type":"table_read","table":"counters","lines":1}
`},
	{"key_reuse reject: a counter of 1 after a rejection", true, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c1","key":"k1","payload_hash":"hk1"}
{"type":"fail","process":1,"f":"persist","time":6,"error":"idempotency_key_reused"}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k1","payload_hash":"hk1x"}
{"type":"final","table":"counters","chat":"c1","value":1}
{"type":"table_read","table":"counters","lines":1}
`},
	// A key rejected as reused whose other persist sent the same content
	// (so cannot have committed it) is from before the run: under
	// key_scope client the pre-run line without a sender, which two
	// senders' keys could claim, can be its.
	{"key_scope client, key_reuse reject: a rejected key's message from before the run, on a line without a sender", true, hdr + `,"contract":{"key_reuse":"reject","key_scope":"client"},"initial_counter":2}
{"type":"invoke","process":3,"f":"persist","time":1,"chat":"c1","key":"p2","payload_hash":"hp2x"}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"p2","payload_hash":"hp2x"}
{"type":"fail","process":3,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"invoke","process":3,"f":"persist","time":8,"chat":"c1","key":"p2","sender":"s2","payload_hash":"hp2"}
{"type":"fail","process":3,"f":"persist","time":12,"error":"crash_after_allocate"}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"pm2c1","key":"p2"}
`},
	{"key_scope client, key_reuse reject: a rejected key with no message from before the run", false, hdr + `,"contract":{"key_reuse":"reject","key_scope":"client"},"initial_counter":2}
{"type":"invoke","process":3,"f":"persist","time":1,"chat":"c1","key":"p2","payload_hash":"hp2x"}
{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c1","key":"p2","payload_hash":"hp2x"}
{"type":"fail","process":3,"f":"persist","time":5,"error":"idempotency_key_reused"}
{"type":"invoke","process":3,"f":"persist","time":8,"chat":"c1","key":"p2","sender":"s2","payload_hash":"hp2"}
{"type":"fail","process":3,"f":"persist","time":12,"error":"crash_after_allocate"}
{"type":"table_read","table":"messages","lines":0}
`},
	{"key_scope client, key_reuse reject: a rejected key's only line from before the run is where a replay put another key", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":4}
{"type":"invoke","process":2,"f":"persist","time":1,"chat":"c1","key":"p1","payload_hash":"hp1x"}
{"type":"invoke","process":3,"f":"persist","time":1,"chat":"c1","key":"k3","sender":"s1","payload_hash":"hk3x"}
{"type":"fail","process":2,"f":"persist","time":7,"error":"idempotency_key_reused"}
{"type":"ok","process":3,"f":"persist","time":7,"seq":6,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":8,"chat":"c1","key":"p1","sender":"s2","payload_hash":"hp1"}
{"type":"ok","process":2,"f":"persist","time":14,"seq":1,"message_id":"pm1c1","dedup":true}
{"type":"table_read","table":"messages","lines":2}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"pm1c1","key":"p1","payload_hash":"hp1"}
{"type":"final","table":"messages","chat":"c1","seq":6,"message_id":"m1","key":"k3"}
`},
	{"other writers: a sync shows another id than the final line at that sequence", false, hdr + `,"contract":{"gaps":"allowed","key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"p1","sender":"s1","payload_hash":"hp1"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"sync","time":5,"chat":"c1","after":1,"limit":0}
{"type":"ok","process":2,"f":"sync","time":6,"seqs":[2],"message_ids":["my"]}
{"type":"table_read","table":"messages","lines":2}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"p1","sender":"s1","payload_hash":"hp1"}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"mx1","key":"kx0"}
`},
	{"key_scope client, key_reuse reject: a key's record from before the run, its content rejected in the run", true, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"initial_counter":3}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c1","key":"p3","sender":"s1","payload_hash":"hp3x"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":8,"chat":"c1","key":"p3","sender":"s1","payload_hash":"hp3x"}
{"type":"fail","process":1,"f":"persist","time":11,"error":"idempotency_key_reused"}
{"type":"table_read","table":"messages","lines":2}
{"type":"final","table":"messages","chat":"c1","seq":3,"message_id":"pm3c1","key":"p3"}
{"type":"final","table":"messages","chat":"c1","seq":4,"message_id":"m1","key":"p3","sender":"s2"}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"p3","seq":3,"message_id":"pm3c1","sender":"s1"}
{"type":"final","table":"idempotency","chat":"c1","key":"p3","seq":4,"message_id":"m1","sender":"s2"}
`},
	{"key_scope client: a replayed key's message on a line without a sender at the replay's sequence", true, hdr + `,"contract":{"gaps":"allowed","key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"info","process":1,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":3,"chat":"c1","key":"k2","payload_hash":"hk2"}
{"type":"ok","process":1,"f":"persist","time":9,"seq":2,"message_id":"m2","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":18,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"ok","process":2,"f":"persist","time":24,"seq":1,"message_id":"m1","dedup":true}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"m2","key":"k2"}
{"type":"table_read","table":"messages","lines":2}
`},
	{"key_scope client: two records without a sender from before the run, of one key text", true, hdr + `,"contract":{"gaps":"allowed","key_scope":"client"},"initial_counter":4}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"p3","sender":"s2","payload_hash":"hp3"}
{"type":"info","process":1,"f":"persist","time":6,"error":"timeout"}
{"type":"table_read","table":"idempotency","lines":2}
{"type":"final","table":"idempotency","chat":"c1","key":"p3","seq":3,"message_id":"pm3c1"}
{"type":"final","table":"idempotency","chat":"c1","key":"p3","seq":1,"message_id":"mx0"}
`},
	{"key_scope client, sole writer: a record without a sender is the one sender's key without a record", false, hdr + `,"contract":{"gaps":"allowed","key_scope":"client"},"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk2"}
{"type":"ok","process":2,"f":"persist","time":4,"seq":3,"message_id":"m3","dedup":false}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s1"}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":2,"message_id":"m2"}
{"type":"table_read","table":"idempotency","lines":2}
`},
	{"key_scope client, sole writer: a message without a sender whose record names one", true, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"sole_writer":true}
{"type":"invoke","process":2,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"info","process":2,"f":"persist","time":2,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"invoke","process":3,"f":"sync","time":6,"chat":"c1","after":0,"limit":1}
{"type":"ok","process":3,"f":"sync","time":7,"seqs":[1],"message_ids":["m1"]}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":1}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}
{"type":"table_read","table":"idempotency","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s1"}
`},
	{"key_scope client, sole writer: a message without a sender whose record names one, shown before that sender sent it", false, hdr + `,"contract":{"gaps":"allowed","key_reuse":"reject","key_scope":"client"},"sole_writer":true}
{"type":"invoke","process":2,"f":"persist","time":0,"chat":"c1","key":"k1","sender":"s2","payload_hash":"hk1"}
{"type":"invoke","process":3,"f":"sync","time":2,"chat":"c1","after":0,"limit":1}
{"type":"info","process":2,"f":"persist","time":2,"error":"timeout"}
{"type":"ok","process":3,"f":"sync","time":3,"seqs":[1],"message_ids":["m1"]}
{"type":"invoke","process":1,"f":"persist","time":4,"chat":"c1","key":"k1","sender":"s1","payload_hash":"hk1"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":1}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}
{"type":"table_read","table":"idempotency","lines":1}
{"type":"final","table":"idempotency","chat":"c1","key":"k1","seq":1,"message_id":"m1","sender":"s1"}
`},
	{"key_scope client, sole writer: a message without a sender of a key text whose every sender has its own message", false, hdr + `,"contract":{"gaps":"allowed","key_scope":"client"},"initial_counter":1,"sole_writer":true}
{"type":"invoke","process":6,"f":"persist","time":1,"chat":"c2","key":"p1","sender":"s1","payload_hash":"hp1"}
{"type":"ok","process":6,"f":"persist","time":6,"seq":1,"message_id":"pm1c2","dedup":true}
{"type":"invoke","process":6,"f":"persist","time":12,"chat":"c2","key":"p1","sender":"s2","payload_hash":"hp1x"}
{"type":"ok","process":6,"f":"persist","time":17,"seq":4,"message_id":"m3","dedup":false}
{"type":"table_read","table":"messages","lines":3}
{"type":"final","table":"messages","chat":"c2","seq":1,"message_id":"pm1c2","key":"p1","sender":"s1"}
{"type":"final","table":"messages","chat":"c2","seq":4,"message_id":"m3","key":"p1","sender":"s2","payload_hash":"hp1x"}
{"type":"final","table":"messages","chat":"c2","seq":2,"message_id":"mx2","key":"p1"}
`},
	{"a sync shows a message as it was sent", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1],"message_ids":["m1"],"keys":["a"],"senders":["s1"],"payload_hashes":["h1"]}
`},
	{"a sync shows a message with another key", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1],"message_ids":["m1"],"keys":["b"]}
`},
	{"a sync shows a message with another sender", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1],"message_ids":["m1"],"senders":["s2"]}
`},
	{"a sync shows a message with other content", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1],"message_ids":["m1"],"payload_hashes":["h2"]}
`},
	{"a sync shows nothing of a message where it says \"\"", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1],"message_ids":["m1"],"keys":[""],"senders":[""],"payload_hashes":[""]}
`},
	{"sole writer: a message answered only as a replay shows what its key's persists all sent", false, hdr + `,"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":3,"f":"persist","time":3,"seq":1,"message_id":"m1","dedup":true}
{"type":"invoke","process":2,"f":"sync","time":4,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":5,"seqs":[1],"message_ids":["m1"],"payload_hashes":["h2"]}
`},
	{"another writer: a message answered only as a replay may have been anyone's", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"info","process":1,"f":"persist","time":1,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":2,"chat":"c","key":"a","sender":"s1","payload_hash":"h1"}
{"type":"ok","process":3,"f":"persist","time":3,"seq":1,"message_id":"m1","dedup":true}
{"type":"invoke","process":2,"f":"sync","time":4,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":5,"seqs":[1],"message_ids":["m1"],"payload_hashes":["h2"]}
`},
	{"return-original: a held key refused as reused", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"a","payload_hash":"h"}
{"type":"fail","process":2,"f":"persist","time":3,"error":"idempotency_key_reused"}
`},
	{"return-original: a key refused as reused while its first persist is in flight", true, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"invoke","process":2,"f":"persist","time":1,"chat":"c","key":"a","payload_hash":"h"}
{"type":"fail","process":2,"f":"persist","time":2,"error":"idempotency_key_reused"}
{"type":"ok","process":1,"f":"persist","time":3,"seq":1,"message_id":"m1","dedup":false}
`},
	{"return-original: a key refused as reused after a sync showed its message", false, hdr + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"invoke","process":3,"f":"sync","time":1,"chat":"c","after":0,"limit":0}
{"type":"ok","process":3,"f":"sync","time":2,"seqs":[1],"message_ids":["m1"]}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c","key":"a","payload_hash":"h"}
{"type":"fail","process":2,"f":"persist","time":4,"error":"idempotency_key_reused"}
{"type":"ok","process":1,"f":"persist","time":5,"seq":1,"message_id":"m1","dedup":false}
`},
}

func TestOracleRules(t *testing.T) {
	for _, c := range ruleCases {
		if ok, why := judgeText(t, c.text); ok != c.valid {
			t.Errorf("%s: the oracle says valid=%v (%s), want %v", c.name, ok, why, c.valid)
		}
	}
}

// The generator's correct sequencer never breaks the model: the oracle must
// find every history it records valid (a check of the oracle and of the
// generator alike).
func TestOracleAcceptsCorrectSequencer(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 500
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		h := generateCorrect(rand.New(rand.NewPCG(seed, 27)), seed%2 == 0)
		data := h.encode()
		if ok, why := judgeText(t, string(data)); !ok {
			t.Fatalf("seed %d: the oracle says INVALID (%s) on a correct sequencer's history:\n%s", seed, why, data)
		}
	}
}
