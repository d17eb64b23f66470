package checker

import "testing"

// Under gaps: forbidden without sole_writer, the sequences below one acked
// may be other writers' messages: the exact checker placed a node for each
// hole, so an ack (or a sync) at 10^18 took memory without bound (24 GB,
// then killed). Past maxHoles it leaves the chat to porcupine, which
// decides or says it is undecided within its bound: never a pass it did
// not earn, and never a hang. Below the bound the exact checker still
// places them (a hole a writer of the history must fill fails there).
func TestHolesBeyondTheBoundAreLeftToPorcupine(t *testing.T) {
	header := `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"}}`
	ack := header + `
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1000000000000000000,"message_id":"m1","dedup":false}
`
	res := must(t, mustExact(t, ack), NameLinearizability, Unknown)
	mustContain(t, res.Detail, "porcupine stopped at its memory bound")

	sync := header + `
{"type":"invoke","process":3,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
{"type":"ok","process":3,"f":"sync","time":3,"seqs":[1000000000000000000],"message_ids":["m1"]}
`
	res = must(t, mustExact(t, sync), NameLinearizability, Fail)
	mustContain(t, res.Detail, "none of the operations that could come next fits")

	// Within the bound: the exact checker decides, the holes another
	// writer's.
	small := header + `
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1000,"message_id":"m1","dedup":false}
`
	res = must(t, mustExact(t, small), NameLinearizability, Pass)
	mustContain(t, res.Detail, "decided exactly")
}
