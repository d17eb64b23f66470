package checker

import (
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// onlineOfText runs the online check over a history's text, its header
// handed first, as a run's tap does.
func onlineOfText(t *testing.T, text string) []Violation {
	t.Helper()
	h, err := history.Read(strings.NewReader(text), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	o, _ := onlineOf(h)
	return o.Violations()
}

// onlineFound is the violation of name the online check found, if any.
func onlineFound(vs []Violation, name string) (Violation, bool) {
	i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == name })
	if i < 0 {
		return Violation{}, false
	}
	return vs[i], true
}

// A key whose first ok answer is a replay had its message made by one of
// its persists invoked before the replay's answer that had not failed:
// the online check judges it as the replay comes, as the offline check
// does (a race-detector run of racy-counter failed sequence_monotonic
// offline from such a replay while the online check, which compared
// only persists acked as new, flagged nothing).
func TestOnlineJudgesTheMessageAFirstReplayPlaces(t *testing.T) {
	const head = placedHead + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":4,"message_id":"m4","dedup":false}
`
	for _, tc := range []struct {
		name, lines string
		want        []int // the counterexample, nil: none
	}{
		{"a timed-out persist invoked after seq 4's ack", `{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":3,"message_id":"m3","dedup":true}`, []int{3, 4, 7}},
		{"a persist still outstanding at the replay", `{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":3,"message_id":"m3","dedup":true}
{"type":"info","process":2,"f":"persist","time":6,"error":"timeout"}`, []int{3, 4, 6}},
		{"the first persist failed before the replay: the second made it", `{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"fail","process":2,"f":"persist","time":3,"error":"not_a_member"}
{"type":"invoke","process":4,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"info","process":4,"f":"persist","time":5,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":6,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":7,"seq":3,"message_id":"m3","dedup":true}`, []int{3, 6, 9}},
		// Two-phase allocation lets a persist concurrent with seq 4's
		// hold the lower sequence.
		{"a persist invoked before seq 4's ack", `{"type":"invoke","process":2,"f":"persist","time":0,"chat":"c","key":"b","payload_hash":"h"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":3,"message_id":"m3","dedup":true}
{"type":"info","process":2,"f":"persist","time":6,"error":"timeout"}`, nil},
		// The key's message was acked as new before: that persist's
		// own ack is what is compared.
		{"a replay that is not the key's first answer", `{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"info","process":2,"f":"persist","time":3,"error":"timeout"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":5,"message_id":"m5","dedup":false}
{"type":"invoke","process":3,"f":"persist","time":6,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":7,"seq":5,"message_id":"m5","dedup":true}`, nil},
		// No persist of the key that can have made it: nothing placed.
		{"every persist before the replay failed", `{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"fail","process":2,"f":"persist","time":3,"error":"not_a_member"}
{"type":"invoke","process":3,"f":"persist","time":4,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":5,"seq":3,"message_id":"m3","dedup":true}`, nil},
	} {
		text := head + tc.lines
		if strings.HasPrefix(tc.name, "a persist invoked before") {
			// Its invoke goes before seq 4's ack, at its time.
			text = reorderByTime(t, text)
		}
		r := mustExact(t, text)
		v, found := onlineFound(onlineOfText(t, text), NameSequenceMonotonic)
		if tc.want == nil {
			must(t, r, NameSequenceMonotonic, Pass)
			if found {
				t.Errorf("%s: online found %s", tc.name, v.Detail)
			}
			continue
		}
		mustFail(t, r, NameSequenceMonotonic, tc.want...)
		if !found {
			t.Errorf("%s: offline fails (%s), online found nothing", tc.name, must(t, r, NameSequenceMonotonic, Fail).Detail)
			continue
		}
		if !slices.Equal(v.Lines, tc.want) {
			t.Errorf("%s: online's lines %v, want %v (%s)", tc.name, v.Lines, tc.want, v.Detail)
		}
	}
}

// An invoke at the time of the chat's newest ack is compared with the
// acks done before it, not with none: the online check compared only
// with the newest, and found nothing when that one was done at the same
// time (the random histories' equal times).
func TestOnlineComparesAnInvokeAtAnAcksTimeWithTheAcksBefore(t *testing.T) {
	text := placedHead + `}
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"a","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":2,"message_id":"m2","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"b","payload_hash":"h"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":5,"message_id":"m5","dedup":false}
{"type":"invoke","process":3,"f":"persist","time":3,"chat":"c","key":"c","payload_hash":"h"}
{"type":"ok","process":3,"f":"persist","time":4,"seq":1,"message_id":"m1","dedup":false}`
	mustFail(t, mustExact(t, text), NameSequenceMonotonic, 3, 6, 7)
	v, found := onlineFound(onlineOfText(t, text), NameSequenceMonotonic)
	if !found || !slices.Equal(v.Lines, []int{3, 6, 7}) {
		t.Fatalf("online: found %v, %+v; want lines [3 6 7]", found, v)
	}
}

// Under key_scope chat a key is its chat and text, whoever sent it: two
// senders' persists of one key answered two sequences break
// idempotency_guarantee, online as offline; under client they are two
// keys.
func TestOnlineKeysAsTheHeadersKeyScope(t *testing.T) {
	body := `
{"type":"invoke","process":1,"f":"persist","time":0,"chat":"c","key":"k","sender":"u1","payload_hash":"h"}
{"type":"ok","process":1,"f":"persist","time":1,"seq":1,"message_id":"m1","dedup":false}
{"type":"invoke","process":2,"f":"persist","time":2,"chat":"c","key":"k","sender":"u2","payload_hash":"h"}
{"type":"ok","process":2,"f":"persist","time":3,"seq":2,"message_id":"m2","dedup":false}`
	for _, scope := range []string{history.KeyScopeChat, history.KeyScopeClient} {
		text := placedHead + `,"contract":{"key_scope":"` + scope + `"}}` + body
		offline := must(t, mustExact(t, text), NameIdempotencyGuarantee, map[string]Status{history.KeyScopeChat: Fail, history.KeyScopeClient: Pass}[scope])
		v, found := onlineFound(onlineOfText(t, text), NameIdempotencyGuarantee)
		if found != (offline.Status == Fail) {
			t.Errorf("key_scope %s: offline %s, online found %v (%s)", scope, offline.Status, found, v.Detail)
		}
	}
}
