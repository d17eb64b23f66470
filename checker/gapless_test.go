package checker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestGapless(t *testing.T) {
	forbidden := history.Contract{Gaps: history.GapsForbidden}
	b := newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.send(1, "A", "k3", 3)
	d := b.dump(false)
	res := mustFail(t, b.check(t), NameGapless, d.msg["m-k1"], d.msg["m-k3"])
	mustContain(t, res.Detail, "no message at seq 2")

	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.send(2, "A", "k2", 2)
	b.dump(false)
	must(t, b.check(t), NameGapless, Pass)

	// Without the final table: a hole below an ack needs an operation of
	// unknown outcome to fill it.
	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	l := b.send(1, "A", "k3", 3)
	mustFail(t, b.check(t), NameGapless, l.ok)

	b = newHBContract(forbidden)
	b.send(1, "A", "k1", 1)
	b.invoke(2, "A", "k2")
	b.info(2, "A", "k2", "timeout")
	b.send(1, "A", "k3", 3)
	must(t, b.check(t), NameGapless, Pass)
}

// A rejection of a reused key proves the key's message there when it
// completed, so a send of the key invoked after it, of unknown outcome,
// did not make it: taken for a key the history could have created, it
// filled a sole writer's counter one too high (oracle seed 13771105:
// the key from before the run, rejected, then sent again and timed out).
func TestGaplessASendAfterItsKeysRejectionMakesNoMessage(t *testing.T) {
	const head = `{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden","key_reuse":"reject","key_scope":"client"},"initial_counter":4,"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","time":6,"chat":"c1","key":"p4","sender":"s1","payload_hash":"hp4x"}
`
	const tail = `{"type":"invoke","process":1,"f":"persist","time":8,"chat":"c1","key":"p4","sender":"s2","payload_hash":"hp4"}
{"type":"ok","process":1,"f":"persist","time":14,"seq":5,"message_id":"m1","dedup":false}
{"type":"info","process":2,"f":"persist","time":32,"error":"timeout"}
{"type":"table_read","table":"counters","lines":1}
{"type":"final","table":"counters","chat":"c1","value":6}
`
	const rejected = `{"type":"fail","process":1,"f":"persist","time":7,"error":"idempotency_key_reused"}
`
	send := func(at int) string {
		return fmt.Sprintf(`{"type":"invoke","process":2,"f":"persist","time":%d,"chat":"c1","key":"p4","sender":"s1","payload_hash":"hp4"}`+"\n", at)
	}
	check := func(text string) Report {
		h, err := history.Read(strings.NewReader(text), "h.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		return Check(h, Options{})
	}
	// Sent after the rejection completed.
	res := mustFail(t, check(head+rejected+send(8)+tail), NameGapless, 9)
	mustContain(t, res.Detail, "only 1 keys of the history could have made one")
	// Sent while the rejection was under way, it may have made the key's
	// message before the rejection read it.
	must(t, check(head+send(7)+rejected+tail), NameGapless, Pass)
}
