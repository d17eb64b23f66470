package checker

import (
	"strings"
	"testing"
)

// A key holds one message however it is read: a sync that shows a key on
// another message than its ok answer gives it, or two syncs (or one) that
// show it on two messages, fail idempotency_guarantee; shown on its own
// message it passes. Red-team false PASSes: seqs [1,2] both shown with key
// A, and key A shown at seq 2 though its ack gave seq 1.
func TestSyncsShowAKeyOnOneMessage(t *testing.T) {
	header := `{"format":"chatseq-history","version":1,"sole_writer":true}`
	acked := header + `
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"A"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1"}
{"type":"invoke","process":3,"f":"persist","time":1,"chat":"c","key":"B"}
{"type":"info","process":3,"f":"persist","time":1}
{"type":"invoke","process":2,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
`
	for _, c := range []struct{ name, sync, want string }{
		{"each on its own", `{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1,2],"message_ids":["m1","m2"],"keys":["A","B"]}`, ""},
		{"against the ack", `{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1,2],"message_ids":["m1","m2"],"keys":["A","A"]}`, "the sync at line 7 shows seq 2 with a key that the ok answer at line 3 gives seq 1"},
		{"twice in one answer", `{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1,2],"message_ids":["m1","m2"],"keys":["B","B"]}`, "the sync at line 7 shows seq 2 with a key that a sync at line 7 gives seq 1"},
	} {
		r := mustExact(t, acked+c.sync+"\n")
		if c.want == "" {
			must(t, r, NameIdempotencyGuarantee, Pass)
			continue
		}
		mustContain(t, must(t, r, NameIdempotencyGuarantee, Fail).Detail, c.want)
	}
	// Under key_scope client two senders' key A are two keys; a shown key
	// without its sender names none.
	client := `{"format":"chatseq-history","version":1,"contract":{"key_scope":"client"}}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"A","sender":"u1"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1"}
{"type":"invoke","process":3,"f":"persist","time":1,"chat":"c","key":"A","sender":"u2"}
{"type":"info","process":3,"f":"persist","time":1}
{"type":"invoke","process":2,"f":"sync","time":2,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":3,"seqs":[1,2],"message_ids":["m1","m2"],"keys":["A","A"],"senders":["u1","u2"]}
`
	must(t, mustExact(t, client), NameIdempotencyGuarantee, Pass)
	// The same under key_scope chat is one key on two messages, and the
	// failure names the two senders: a service keying by sender, driven
	// under chat (bench --key-across-senders sends such keys).
	chat := strings.Replace(client, `"key_scope":"client"`, `"key_scope":"chat"`, 1)
	res := must(t, mustExact(t, chat), NameIdempotencyGuarantee, Fail)
	mustContain(t, res.Detail, `gives seq 1: a key holds one message however it is read (sent by "u1" and "u2": under key_scope chat`)
}

// A fail takes no effect: a sync that shows, above initial_counter, a key
// whose persists all ended fail fails fail_has_no_effect, with or without
// final tables; a key a persist of unknown outcome also used passes (it
// may have written it). Red-team false PASS: the only persist of key F
// ended fail, and a sync showed seq 1 with key F.
func TestASyncShowingAFailedKeyFails(t *testing.T) {
	h := func(second string) string {
		return `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"F"}
{"type":"fail","process":1,"f":"persist","time":1,"error":"x"}
` + second + `{"type":"invoke","process":2,"f":"sync","time":4,"chat":"c","after":0,"limit":0}
{"type":"ok","process":2,"f":"sync","time":5,"seqs":[1],"message_ids":["m1"],"keys":["F"]}
`
	}
	res := must(t, mustExact(t, h("")), NameFailHasNoEffect, Fail)
	mustContain(t, res.Detail, `key "F": every persist of the key ended fail (e.g. x at line 3), yet the sync at line 5 shows it on seq 1`)
	unsure := `{"type":"invoke","process":1,"f":"persist","time":2,"chat":"c","key":"F"}
{"type":"info","process":1,"f":"persist","time":3}
`
	read := `{"type":"table_read","table":"messages","lines":0}` + "\n"
	must(t, mustExact(t, h(unsure)+read), NameFailHasNoEffect, Pass)
	must(t, mustExact(t, h("")+read), NameFailHasNoEffect, Fail)
}
