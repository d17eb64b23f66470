package delivery

import (
	"strings"
	"testing"
)

// Hand-written histories, one that keeps and one that breaks each
// invariant, judged by the oracle and by chatseq's checker: both must give
// the expected status. They pin the oracle's readings on plain cases that
// the text settles without doubt.

// base: u1 sends m1 in c1; u2, a member from the start, has device u2/d1
// connected and streamed m1.
const base = `{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u1"}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"invoke","process":1,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"u1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":4,"seq":1,"message_id":"m1","dedup":false}
`

const pushM1 = `{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
`

// second: u1 sends m2 after u2/d1's stream of c1 began.
const sendM2 = `{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"k2","sender":"u1","payload_hash":"h2"}
{"type":"ok","process":1,"f":"persist","time":7,"seq":2,"message_id":"m2","dedup":false}
`

const end = `{"type":"end"}
`

// replayOnly: u1's persist of k1 created m1 at seq 2 but its answer was
// lost (info); the retry was answered as a replay. u2/d1 streams m1.
const replayOnlyHead = `{"type":"join","time":1,"chat":"c1","user":"u1"}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"invoke","process":1,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"u1","payload_hash":"h1"}
{"type":"info","process":1,"f":"persist","time":4,"error":"timeout"}
{"type":"invoke","process":1,"f":"persist","time":5,"chat":"c1","key":"k1","sender":"u1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":6,"seq":2,"message_id":"m1","dedup":true}
`

// events12: the topic of c1 holds m1 and m2, then m3.
const events123 = `{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
{"type":"final","table":"events","chat":"c1","seq":3,"message_id":"m3","partition":0,"offset":2}
{"type":"table_read","table":"events","lines":3}
`

const sendM3 = `{"type":"invoke","process":1,"f":"persist","time":8,"chat":"c1","key":"k3","sender":"u1","payload_hash":"h3"}
{"type":"ok","process":1,"f":"persist","time":8,"seq":3,"message_id":"m3","dedup":false}
`

var cases = []struct {
	name    string
	inv     string
	history string
	want    status
}{
	{"every message reached the settled member device", invVisibility, base + pushM1 +
		`{"type":"settled","time":9,"device":"u2/d1"}
` + end, pass},
	{"a member device settled without m1", invVisibility, base +
		`{"type":"settled","time":9,"device":"u2/d1"}
` + end, fail},

	{"pushes agree with the acks and the persist's content", invOrder, base +
		`{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"payload_hashes":["h1"],"senders":["u1"]}
` + end, pass},
	{"seq 1 pushed under another id", invOrder, base +
		`{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m9"]}
` + end, fail},
	{"m1 pushed with another message's content", invOrder, base +
		`{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"payload_hashes":["h2"]}
` + end, fail},
	{"m1 pushed at a sequence the acks hold nothing at", invOrder, base +
		`{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m1"]}
` + end, fail},
	{"an unknown message at a sequence from before the run the table does not hold", invOrder,
		`{"format":"chatseq-history","version":1,"end_line":true,"initial_counter":3}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["old2"],"catch_up":true}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"old1","key":"ko1"}
{"type":"table_read","table":"messages","lines":1}
` + end, pass},
	{"an unknown message above initial_counter the table does not hold", invOrder,
		`{"format":"chatseq-history","version":1,"end_line":true,"initial_counter":1}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["ghost"],"catch_up":true}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"old1","key":"ko1"}
{"type":"table_read","table":"messages","lines":1}
` + end, fail},
	{"a message acknowledged only as a replay, pushed with other content, under sole_writer", invOrder,
		`{"format":"chatseq-history","version":1,"end_line":true,"sole_writer":true}
` + replayOnlyHead + `{"type":"push","time":7,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m1"],"payload_hashes":["h9"]}
` + end, fail},
	{"a message acknowledged only as a replay, pushed with other content, without sole_writer", invOrder,
		`{"format":"chatseq-history","version":1,"end_line":true}
` + replayOnlyHead + `{"type":"push","time":7,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m1"],"payload_hashes":["h9"]}
` + end, pass},
	{"a message acknowledged only as a replay, at or below initial_counter", invOrder,
		`{"format":"chatseq-history","version":1,"end_line":true,"sole_writer":true,"initial_counter":2}
` + replayOnlyHead + `{"type":"push","time":7,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m1"],"payload_hashes":["h9"]}
` + end, pass},
	{"m1 pushed under a forged sender", invOrder, base +
		`{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"senders":["u3"]}
` + end, fail},

	{"ack of what was pushed, row equal to it", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"settled","time":9,"device":"u2/d1"}
{"type":"final","table":"delivery_state","chat":"c1","user":"u2","last_acked_sequence":1}
{"type":"table_read","table":"delivery_state","lines":1}
` + end, pass},
	{"ack ahead of what was pushed", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":2}
` + end, fail},
	{"row above every ack", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"final","table":"delivery_state","chat":"c1","user":"u2","last_acked_sequence":5}
{"type":"table_read","table":"delivery_state","lines":1}
` + end, fail},
	{"row below an ack on a connection open to the settle", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"settled","time":9,"device":"u2/d1"}
{"type":"final","table":"delivery_state","chat":"c1","user":"u2","last_acked_sequence":0}
{"type":"table_read","table":"delivery_state","lines":1}
` + end, fail},

	{"a row below an ack on a connection that dropped", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"disconnect","time":7,"device":"u2/d1","error":"dropped"}
{"type":"connect","time":8,"device":"u2/d1","user":"u2"}
{"type":"settled","time":9,"device":"u2/d1"}
{"type":"final","table":"delivery_state","chat":"c1","user":"u2","last_acked_sequence":0}
{"type":"table_read","table":"delivery_state","lines":1}
` + end, unknown},
	{"no row for an ack on a connection open to the settle", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"settled","time":9,"device":"u2/d1"}
{"type":"table_read","table":"delivery_state","lines":0}
` + end, fail},
	{"no row for an ack of a device that never settled", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"table_read","table":"delivery_state","lines":0}
` + end, unknown},
	{"a row of a table not read, for a user whose ack dropped: not judged", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"disconnect","time":7,"device":"u2/d1","error":"dropped"}
{"type":"connect","time":8,"device":"u2/d1","user":"u2"}
{"type":"settled","time":9,"device":"u2/d1"}
{"type":"final","table":"delivery_state","chat":"c1","user":"u1","last_acked_sequence":0}
` + end, pass},

	{"pushed to a member on an accepted connection", invAuth, base + pushM1 + end, pass},
	{"streamed after a leave on a connection opened before it: in flight", invAuth, base +
		`{"type":"leave","time":5,"chat":"c1","user":"u2"}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
` + end, pass},
	{"streamed on a connection opened after the user left", invAuth, base +
		`{"type":"leave","time":5,"chat":"c1","user":"u2"}
{"type":"disconnect","time":5,"device":"u2/d1"}
{"type":"connect","time":6,"device":"u2/d1","user":"u2"}
{"type":"push","time":7,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
` + end, fail},
	{"caught up on a connection opened after the user left: in flight", invAuth, base +
		`{"type":"leave","time":5,"chat":"c1","user":"u2"}
{"type":"disconnect","time":5,"device":"u2/d1"}
{"type":"connect","time":6,"device":"u2/d1","user":"u2"}
{"type":"push","time":7,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"catch_up":true}
` + end, pass},
	{"pushed to a user who never joined", invAuth, base +
		`{"type":"connect","time":5,"device":"u3/d1","user":"u3"}
{"type":"push","time":5,"device":"u3/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
` + end, fail},
	{"streamed on a refused connection", invAuth, base +
		`{"type":"connect","time":5,"device":"u1/d1","user":"u1","refused":true}
{"type":"push","time":5,"device":"u1/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
` + end, fail},

	{"the stream is a contiguous run of the topic", invContinuity, base + pushM1 + sendM2 +
		`{"type":"push","time":8,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m2"]}
{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
{"type":"table_read","table":"events","lines":2}
` + end, pass},
	{"a repeat that goes back is no skip", invContinuity, base + pushM1 + sendM2 +
		`{"type":"push","time":8,"device":"u2/d1","chat":"c1","seqs":[2,1,2],"message_ids":["m2","m1","m2"]}
{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
{"type":"table_read","table":"events","lines":2}
` + end, pass},
	{"the live stream skipped m2", invContinuity, base + pushM1 + sendM2 +
		`{"type":"invoke","process":1,"f":"persist","time":8,"chat":"c1","key":"k3","sender":"u1","payload_hash":"h3"}
{"type":"ok","process":1,"f":"persist","time":8,"seq":3,"message_id":"m3","dedup":false}
{"type":"push","time":8,"device":"u2/d1","chat":"c1","seqs":[3],"message_ids":["m3"]}
{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
{"type":"final","table":"events","chat":"c1","seq":3,"message_id":"m3","partition":0,"offset":2}
{"type":"table_read","table":"events","lines":3}
` + end, fail},

	{"a hole across which the user left and joined again is not judged", invContinuity, base + pushM1 + sendM2 +
		`{"type":"leave","time":7,"chat":"c1","user":"u2"}
{"type":"join","time":7,"chat":"c1","user":"u2"}
` + sendM3 + `{"type":"push","time":8,"device":"u2/d1","chat":"c1","seqs":[3],"message_ids":["m3"]}
` + events123 + end, pass},
	{"only a refused connection streamed", invContinuity, base +
		`{"type":"connect","time":5,"device":"u1/d1","user":"u1","refused":true}
{"type":"push","time":5,"device":"u1/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
` + events123 + end, na},

	{"a message sent after the stream began came on it", invCompleteness, base + pushM1 + sendM2 +
		`{"type":"push","time":8,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m2"]}
{"type":"settled","time":9,"device":"u2/d1"}
` + end, pass},
	{"a message sent after the stream began came only by catch-up", invCompleteness, base + pushM1 + sendM2 +
		`{"type":"push","time":8,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m2"],"catch_up":true}
{"type":"settled","time":9,"device":"u2/d1"}
` + end, fail},
	{"a replay of a key from before the run, answered after the stream began, is not owed", invCompleteness,
		`{"format":"chatseq-history","version":1,"end_line":true,"initial_counter":1}
{"type":"join","time":1,"chat":"c1","user":"u1"}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"invoke","process":1,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"u1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":4,"seq":2,"message_id":"m2","dedup":false}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m2"]}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"old1","sender":"u1","payload_hash":"h9"}
{"type":"ok","process":1,"f":"persist","time":7,"seq":1,"message_id":"m1","dedup":true}
{"type":"settled","time":9,"device":"u2/d1"}
` + end, na},
	{"a live connection that never streamed its chat owes what was sent a second after it connected", invCompleteness,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u1"}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"invoke","process":1,"f":"persist","time":2000000000,"chat":"c1","key":"k1","sender":"u1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":2000000010,"seq":1,"message_id":"m1","dedup":false}
{"type":"push","time":4000000000,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"catch_up":true}
{"type":"settled","time":4000000010,"device":"u2/d1"}
` + end, fail},

	// Cases the cross-check's first report disputed, which the clarified
	// text settles and both judges now read alike.
	{"a push to a user in a history with no join line at all", invAuth,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"catch_up":true}
` + end, na},
	{"a catch-up page to a non-member with no join line, beside a refused connection", invAuth,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"connect","time":1,"device":"u2/d1","user":"u2","refused":true}
{"type":"connect","time":2,"device":"u1/d1","user":"u1"}
{"type":"push","time":5,"device":"u1/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"catch_up":true}
` + end, pass},
	{"streamed on a refused connection in a history with no join line", invAuth,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"connect","time":2,"device":"u2/d1","user":"u2","refused":true}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
` + end, fail},
	{"a catch-up page while the device's refused connection is open", invAuth,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2","refused":true}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"catch_up":true}
` + end, pass},
	{"a catch-up page to a non-member while the device's refused connection is open", invAuth,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u1"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2","refused":true}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"],"catch_up":true}
` + end, fail},
	{"two equal rows of a (chat, user) with no ack open at a settle", invState,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"final","table":"delivery_state","chat":"c1","user":"u1","last_acked_sequence":0}
{"type":"final","table":"delivery_state","chat":"c1","user":"u1","last_acked_sequence":0}
` + end, fail},
	{"two rows of a (chat, user) in a table read", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"final","table":"delivery_state","chat":"c1","user":"u2","last_acked_sequence":1}
{"type":"final","table":"delivery_state","chat":"c1","user":"u2","last_acked_sequence":0}
{"type":"table_read","table":"delivery_state","lines":2}
` + end, fail},
	{"no row for an ack at initial_counter on a connection open to the settle", invState,
		`{"format":"chatseq-history","version":1,"end_line":true,"initial_counter":1}
{"type":"connect","time":2,"device":"u1/d1","user":"u1"}
{"type":"delivery_ack","time":3,"chat":"c1","device":"u1/d1","last_acked_sequence":1}
{"type":"settled","time":4,"device":"u1/d1"}
{"type":"table_read","table":"delivery_state","lines":0}
` + end, fail},
	{"no row for an ack of 0 on a connection open to the settle", invState,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"connect","time":2,"device":"u1/d1","user":"u1"}
{"type":"delivery_ack","time":3,"chat":"c1","device":"u1/d1","last_acked_sequence":0}
{"type":"settled","time":4,"device":"u1/d1"}
{"type":"table_read","table":"delivery_state","lines":0}
` + end, pass},
	{"no row for an ack open to the settle in a table present but not read", invState, base + pushM1 +
		`{"type":"delivery_ack","time":6,"device":"u2/d1","chat":"c1","last_acked_sequence":1}
{"type":"settled","time":9,"device":"u2/d1"}
{"type":"final","table":"delivery_state","chat":"c1","user":"u1","last_acked_sequence":0}
` + end, pass},
	{"after a hole across a leave, the run is aligned anew at any copy", invContinuity,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"push","time":3,"device":"u2/d1","chat":"c1","seqs":[3],"message_ids":["m3"]}
{"type":"leave","time":4,"chat":"c1","user":"u2"}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[4],"message_ids":["m4"]}
{"type":"push","time":6,"device":"u2/d1","chat":"c1","seqs":[7],"message_ids":["m7"]}
{"type":"final","table":"events","chat":"c1","seq":3,"message_id":"m3","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":4,"message_id":"m4","partition":0,"offset":3}
{"type":"final","table":"events","chat":"c1","seq":4,"message_id":"m4","partition":0,"offset":6}
{"type":"final","table":"events","chat":"c1","seq":7,"message_id":"m7","partition":0,"offset":8}
` + end, pass},
	{"a message contiguous across a leave and a join is aligned anew at any copy", invContinuity,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"push","time":3,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
{"type":"leave","time":4,"chat":"c1","user":"u2"}
{"type":"join","time":4,"chat":"c1","user":"u2"}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m2"]}
{"type":"push","time":6,"device":"u2/d1","chat":"c1","seqs":[3],"message_ids":["m3"]}
{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
{"type":"final","table":"events","chat":"c1","seq":9,"message_id":"m9","partition":0,"offset":2}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":3}
{"type":"final","table":"events","chat":"c1","seq":3,"message_id":"m3","partition":0,"offset":4}
` + end, pass},
	{"without a join or leave, a contiguous message is not aligned anew", invContinuity,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"push","time":3,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[2],"message_ids":["m2"]}
{"type":"push","time":6,"device":"u2/d1","chat":"c1","seqs":[3],"message_ids":["m3"]}
{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
{"type":"final","table":"events","chat":"c1","seq":9,"message_id":"m9","partition":0,"offset":2}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":3}
{"type":"final","table":"events","chat":"c1","seq":3,"message_id":"m3","partition":0,"offset":4}
` + end, fail},
	{"a hole across a leave with a message the topic lacks pushed inside it", invContinuity,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"join","time":1,"chat":"c1","user":"u2"}
{"type":"connect","time":2,"device":"u2/d1","user":"u2"}
{"type":"push","time":3,"device":"u2/d1","chat":"c1","seqs":[1],"message_ids":["m1"]}
{"type":"leave","time":4,"chat":"c1","user":"u2"}
{"type":"push","time":5,"device":"u2/d1","chat":"c1","seqs":[8],"message_ids":["ghost"]}
{"type":"push","time":6,"device":"u2/d1","chat":"c1","seqs":[3],"message_ids":["m3"]}
{"type":"final","table":"events","chat":"c1","seq":1,"message_id":"m1","partition":0,"offset":0}
{"type":"final","table":"events","chat":"c1","seq":2,"message_id":"m2","partition":0,"offset":1}
{"type":"final","table":"events","chat":"c1","seq":3,"message_id":"m3","partition":0,"offset":2}
` + end, pass},
	// identical_order: "a message acknowledged only as a replay ... is
	// compared, field by field, with what its key's persists sent where
	// they all sent the same". Every persist of k5 was sent by u3, their
	// payload hashes differ: the sender is certain (whichever persist
	// created the message, u3 sent it), so a push naming u2 "forges its
	// sender". (The second cross-check disputed it: chatseq compared
	// neither field once one differed, until FORMAT.md said field by
	// field.)
	{"a replay-only message whose key's persists agree on the sender only, pushed under another sender", invOrder,
		`{"format":"chatseq-history","version":1,"end_line":true,"sole_writer":true}
{"type":"invoke","process":2,"f":"persist","time":150,"chat":"c1","key":"k5","sender":"u3","payload_hash":"h-other"}
{"type":"invoke","process":1,"f":"persist","time":180,"chat":"c1","key":"k5","sender":"u3","payload_hash":"h-k5"}
{"type":"ok","process":1,"f":"persist","time":210,"seq":3,"message_id":"c1-m3","dedup":true}
{"type":"connect","time":510,"device":"u4/d1","user":"u4"}
{"type":"push","time":520,"chat":"c1","device":"u4/d1","catch_up":true,"seqs":[3],"message_ids":["c1-m3"],"senders":["u2"]}
` + end, fail},
	// The same, field for field the other way: the persists of k5 agree on
	// the payload hash, not on the sender; the push leaks another hash.
	{"a replay-only message whose key's persists agree on the payload hash only, pushed with another hash", invOrder,
		`{"format":"chatseq-history","version":1,"end_line":true,"sole_writer":true}
{"type":"invoke","process":2,"f":"persist","time":150,"chat":"c1","key":"k5","sender":"u5","payload_hash":"h-k5"}
{"type":"invoke","process":1,"f":"persist","time":180,"chat":"c1","key":"k5","sender":"u3","payload_hash":"h-k5"}
{"type":"ok","process":1,"f":"persist","time":210,"seq":3,"message_id":"c1-m3","dedup":true}
{"type":"connect","time":510,"device":"u4/d1","user":"u4"}
{"type":"push","time":520,"chat":"c1","device":"u4/d1","catch_up":true,"seqs":[3],"message_ids":["c1-m3"],"payload_hashes":["h-bad"]}
` + end, fail},
}

// read_authorization of state_read lines: "A state_read line not refused
// whose user was not a member of its chat at that line (a chat some join
// line before it names) fails it too".
var stateReadCases = []struct {
	name    string
	inv     string
	history string
	want    status
}{
	{"a member's delivery_state read, answered", invRead, base +
		`{"type":"state_read","time":5,"chat":"c1","user":"u2"}
` + end, pass},
	{"an outsider's delivery_state read, refused", invRead, base +
		`{"type":"state_read","time":5,"chat":"c1","user":"outsider-1","refused":true}
` + end, pass},
	{"an outsider's delivery_state read, answered", invRead, base +
		`{"type":"state_read","time":5,"chat":"c1","user":"outsider-1"}
` + end, fail},
	{"a former member's delivery_state read, answered", invRead, base +
		`{"type":"leave","time":5,"chat":"c1","user":"u2"}
{"type":"state_read","time":6,"chat":"c1","user":"u2"}
` + end, fail},
	{"an outsider's delivery_state read answered before any join of its chat", invRead,
		`{"format":"chatseq-history","version":1,"end_line":true}
{"type":"state_read","time":1,"chat":"c1","user":"outsider-1"}
{"type":"join","time":1,"chat":"c1","user":"u1"}
` + end, na},
	{"a delivery_state read answered, then its user joins", invRead, base +
		`{"type":"state_read","time":5,"chat":"c1","user":"u3"}
{"type":"join","time":5,"chat":"c1","user":"u3"}
` + end, fail},
}

func TestDeliveryCases(t *testing.T) {
	for _, c := range append(cases, stateReadCases...) {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			data := []byte(c.history)
			h, err := readable(data)
			if err != nil {
				t.Fatalf("chatseq's reader rejects the case: %v", err)
			}
			d, err := decode(data)
			if err != nil {
				t.Fatalf("the oracle cannot read the case: %v", err)
			}
			if got := judge(d)[c.inv]; got.status != c.want {
				t.Errorf("oracle: %s is %s (%s), want %s", c.inv, got.status, got.reason, c.want)
			}
			if got := chatseqVerdicts(h)[c.inv]; got.status != c.want {
				t.Errorf("chatseq: %s is %s (%s), want %s", c.inv, got.status, got.detail, c.want)
			}
		})
	}
}
