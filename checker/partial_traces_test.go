package checker

import "testing"

// Trace lines are optional, so a history may trace some allocations and
// not others: a persist answered ok as new allocated its sequence within
// its interval all the same. A counter that handed an acked, untraced
// sequence out again (or a lower one after it) passed allocation
// monotonicity; a counter at an untraced ack's sequence failed
// counter_is_last_allocated, judged against the traced ones alone. A
// red-team's histories.
func TestUntracedAcksAreAllocations(t *testing.T) {
	const head = `{"format":"chatseq-history","version":1,"sole_writer":true}
`
	const tables = `{"type":"table_read","table":"counters","lines":1}
{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"counters","chat":"c1","value":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}
`
	// k1 acked at 1 untraced, then k2's traced allocation returns 1 again.
	again := checkText(t, head+`{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","time":1}
{"type":"ok","process":0,"f":"persist","seq":1,"message_id":"m1","dedup":false,"time":2}
{"type":"invoke","process":1,"f":"persist","chat":"c1","key":"k2","time":3}
{"type":"trace","process":1,"f":"allocate","chat":"c1","seq":1,"start":4,"time":4}
{"type":"info","process":1,"f":"persist","error":"crash_after_allocate","time":5}
`+tables)
	res := mustFail(t, again, NameAllocationMonotonicity, 3, 5)
	mustContain(t, res.Detail, "returned one value more than once, e.g. 1 at lines 5 and 3")
	// A traced allocation of 2, then a persist invoked after it acked new at 1.
	lower := checkText(t, head+`{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k0","time":1}
{"type":"trace","process":0,"f":"allocate","chat":"c1","seq":2,"start":1,"time":2}
{"type":"info","process":0,"f":"persist","error":"crash_after_allocate","time":3}
{"type":"invoke","process":1,"f":"persist","chat":"c1","key":"k1","time":4}
{"type":"ok","process":1,"f":"persist","seq":1,"message_id":"m1","dedup":false,"time":5}
`+tables)
	res = mustFail(t, lower, NameAllocationMonotonicity, 3, 5, 6)
	mustContain(t, res.Detail, "e.g. 2 (line 3) returned at time 2, before the allocation of 1 (line 6) began at time 4")
	// k1 traced at 1, k2 untraced acked at 2, the counter at 2: valid.
	valid := checkText(t, head+`{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","time":1}
{"type":"trace","process":0,"f":"allocate","chat":"c1","seq":1,"time":2}
{"type":"ok","process":0,"f":"persist","seq":1,"message_id":"m1","dedup":false,"time":3}
{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k2","time":4}
{"type":"ok","process":0,"f":"persist","seq":2,"message_id":"m2","dedup":false,"time":5}
{"type":"table_read","table":"counters","lines":1}
{"type":"table_read","table":"messages","lines":2}
{"type":"final","table":"counters","chat":"c1","value":2}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}
{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"m2","key":"k2"}
`)
	must(t, valid, NameAllocationMonotonicity, Pass)
	must(t, valid, NameCounterIsLastAllocated, Pass)
	if valid.ExitCode() != 0 {
		t.Fatalf("the valid history exits %d", valid.ExitCode())
	}
}
