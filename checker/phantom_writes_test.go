package checker

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

func checkText(t *testing.T, text string) Report {
	t.Helper()
	h, err := history.Read(strings.NewReader(text), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return Check(h, Options{})
}

// Under sole_writer a message no ack created holds what its key's
// persists sent when they all sent one content and one sender: one of
// them made it. A red-team's service answered every send of some keys
// 500 and stored them altered (content, or another member as sender);
// every invariant passed. Two sends of other contents leave it open, and
// without sole_writer another writer may have used the key first.
func TestAMessageNoAckCreatedHoldsWhatItsKeySent(t *testing.T) {
	head := func(sole bool) string {
		if sole {
			return `{"format":"chatseq-history","version":1,"sole_writer":true}` + "\n"
		}
		return `{"format":"chatseq-history","version":1}` + "\n"
	}
	sends := func(second string) string {
		return `{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","sender":"u1","payload_hash":"h1","time":1}
{"type":"info","process":0,"f":"persist","error":"server_error","time":2}
{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","sender":"u1","payload_hash":"` + second + `","time":3}
{"type":"info","process":0,"f":"persist","error":"server_error","time":4}
`
	}
	stored := func(sender, hash string) string {
		return `{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1","sender":"` + sender + `","payload_hash":"` + hash + `"}
`
	}
	res := mustFail(t, checkText(t, head(true)+sends("h1")+stored("u1", "forged")), NameNoPhantomMessages, 2, 7)
	mustContain(t, res.Detail, `stores other content than every persist of its key sent`)
	res = mustFail(t, checkText(t, head(true)+sends("h1")+stored("u2", "h1")), NameNoPhantomMessages, 2, 7)
	mustContain(t, res.Detail, `names sender "u2", and every persist of its key but those that failed, were answered as a replay or came after an ok answer was sent by "u1"`)
	must(t, checkText(t, head(true)+sends("h1")+stored("u1", "h1")), NameNoPhantomMessages, Pass)
	must(t, checkText(t, head(true)+sends("h2")+stored("u1", "h2")), NameNoPhantomMessages, Pass)
	mustNA(t, checkText(t, head(false)+sends("h1")+stored("u1", "forged")), NameNoPhantomMessages)
	// Sends that named no sender say nothing of the stored one (the
	// history oracle's seed 15916694).
	must(t, checkText(t, head(true)+strings.ReplaceAll(sends("h1"), `"sender":"u1",`, "")+stored("u2", "h1")), NameNoPhantomMessages, Pass)
}

// Under sole_writer a message without a key (the table gives `""`) at a
// sequence no ack holds is one a persist of unknown outcome made, one a
// key: beyond them, it is a phantom or a failed persist's write. Such
// messages were n/a or unknown, a failed persist's write among them (a
// red-team's): a persist of unknown outcome makes one possible, an ack
// at its sequence explains it.
func TestMessagesWithoutAKeyBeyondWhatCouldHaveMadeThemFail(t *testing.T) {
	const head = `{"format":"chatseq-history","version":1,"sole_writer":true}
{"type":"invoke","process":0,"f":"persist","chat":"c1","key":"k1","time":1}
`
	const table = `{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":""}
`
	res := mustFail(t, checkText(t, head+`{"type":"fail","process":0,"f":"persist","error":"x","time":2}
`+table), NameNoPhantomMessages, 5)
	mustContain(t, res.Detail, `holds 1 final message above initial_counter without a key at sequences no ack holds (the first: seq 1, "m1", line 5), but only 0 keys could`)
	// In a chat no persist sent to.
	mustFail(t, checkText(t, `{"format":"chatseq-history","version":1,"sole_writer":true}
`+table), NameNoPhantomMessages, 3)
	// Not judged without a key to attribute, where it may be one's.
	mustNA(t, checkText(t, head+`{"type":"info","process":0,"f":"persist","error":"timeout","time":2}
`+table), NameNoPhantomMessages)
	mustNA(t, checkText(t, head+`{"type":"ok","process":0,"f":"persist","seq":1,"message_id":"m1","time":2}
`+table), NameNoPhantomMessages)
}

// A persist that failed wrote nothing ("a fail took no effect"), so what
// it sent is not among what the message's maker may have sent: a message
// no ack created, of a key sent once with an unknown outcome and once
// answered fail with other content, holds the first's content and
// sender, in the final table, a sync's answer and a push. Counted among
// the makers, the failed send's content made the key's persists differ,
// and a message holding it passed all three (an outside tester's).
func TestAFailedPersistIsNoMakerOfAMessage(t *testing.T) {
	const head = `{"format":"chatseq-history","version":1,"sole_writer":true}
{"type":"join","chat":"c1","user":"u1","time":1}
{"type":"connect","device":"d1","user":"u1","time":2}
{"type":"invoke","process":1,"f":"persist","chat":"c1","key":"k1","sender":"u1","payload_hash":"hA","time":3}
{"type":"info","process":1,"f":"persist","error":"timeout","time":4}
`
	failed := func(sender string) string {
		return `{"type":"invoke","process":2,"f":"persist","chat":"c1","key":"k1","sender":"` + sender + `","payload_hash":"hB","time":5}
{"type":"fail","process":2,"f":"persist","error":"counter_missing","time":6}
`
	}
	const replay = `{"type":"invoke","process":3,"f":"persist","chat":"c1","key":"k1","sender":"u1","payload_hash":"hA","time":7}
{"type":"ok","process":3,"f":"persist","seq":1,"message_id":"m1","dedup":true,"time":8}
`
	stored := func(sender, hash string) string {
		return `{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1","sender":"` + sender + `","payload_hash":"` + hash + `"}
`
	}
	const synced = `{"type":"invoke","process":4,"f":"sync","chat":"c1","after":0,"limit":10,"time":9}
{"type":"ok","process":4,"f":"sync","seqs":[1],"message_ids":["m1"],"payload_hashes":["hB"],"time":10}
`
	const pushed = `{"type":"push","device":"d1","chat":"c1","seqs":[1],"message_ids":["m1"],"payload_hashes":["hB"],"time":11}
`
	for _, tc := range []struct {
		name, text string
		invariant  string
		fails      bool
	}{
		{"stored as the failed send's content", head + failed("u1") + stored("u1", "hB"), NameNoPhantomMessages, true},
		{"stored as the failed send's sender", head + failed("u2") + stored("u2", "hA"), NameNoPhantomMessages, true},
		{"stored as the unknown send's", head + failed("u2") + stored("u1", "hA"), NameNoPhantomMessages, false},
		{"a sync showing the failed send's content", head + failed("u1") + replay + synced, NameSyncCompleteness, true},
		{"a push of the failed send's content", head + failed("u1") + replay + pushed, NameIdenticalOrder, true},
		{"a push of the unknown send's content", head + failed("u1") + replay + strings.ReplaceAll(pushed, `"hB"`, `"hA"`), NameIdenticalOrder, false},
	} {
		res, _ := checkText(t, tc.text).Result(tc.invariant)
		if (res.Status == Fail) != tc.fails {
			t.Errorf("%s: %s %s (%s)", tc.name, tc.invariant, res.Status, res.Detail)
		}
	}
}

// Under sole_writer a message whose key's first send timed out and whose
// retry, with other content or as another sender, was answered as a
// replay (`dedup`) holds the first send's content and sender: the replay
// answered with a message an earlier persist made, not one of its own
// (sequence_monotonic and the linearizability model read it so).
// Counted among the makers, the retry's content made the key's persists
// differ, and a message stored, synced or pushed as the retry sent it
// passed every invariant (session hostile36's).
func TestAReplayIsNoMakerOfAMessage(t *testing.T) {
	const head = `{"format":"chatseq-history","version":1,"sole_writer":true}
{"type":"join","chat":"c1","user":"u1","time":1}
{"type":"join","chat":"c1","user":"u2","time":1}
{"type":"connect","device":"d1","user":"u1","time":2}
{"type":"invoke","process":1,"f":"persist","chat":"c1","key":"k1","sender":"u1","payload_hash":"hA","time":3}
{"type":"info","process":1,"f":"persist","error":"timeout","time":4}
`
	retry := func(sender, hash string) string {
		return `{"type":"invoke","process":2,"f":"persist","chat":"c1","key":"k1","sender":"` + sender + `","payload_hash":"` + hash + `","time":5}
{"type":"ok","process":2,"f":"persist","seq":1,"message_id":"m1","dedup":true,"time":6}
`
	}
	stored := func(sender, hash string) string {
		return `{"type":"table_read","table":"messages","lines":1}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1","sender":"` + sender + `","payload_hash":"` + hash + `"}
`
	}
	synced := func(hash string) string {
		return `{"type":"invoke","process":4,"f":"sync","chat":"c1","after":0,"limit":10,"time":9}
{"type":"ok","process":4,"f":"sync","seqs":[1],"message_ids":["m1"],"payload_hashes":["` + hash + `"],"time":10}
`
	}
	pushed := func(hash string) string {
		return `{"type":"push","device":"d1","chat":"c1","seqs":[1],"message_ids":["m1"],"payload_hashes":["` + hash + `"],"time":11}
`
	}
	for _, tc := range []struct {
		name, text string
		invariant  string
		fails      bool
	}{
		{"stored as the replayed retry's content", head + retry("u1", "hB") + stored("u1", "hB"), NameNoPhantomMessages, true},
		{"stored as the replayed retry's sender", head + retry("u2", "hA") + stored("u2", "hA"), NameNoPhantomMessages, true},
		{"stored as the first send's", head + retry("u2", "hB") + stored("u1", "hA"), NameNoPhantomMessages, false},
		{"a sync showing the replayed retry's content", head + retry("u1", "hB") + synced("hB"), NameSyncCompleteness, true},
		{"a sync showing the first send's content", head + retry("u1", "hB") + synced("hA"), NameSyncCompleteness, false},
		{"a push of the replayed retry's content", head + retry("u1", "hB") + pushed("hB"), NameIdenticalOrder, true},
		{"a push of the first send's content", head + retry("u1", "hB") + pushed("hA"), NameIdenticalOrder, false},
	} {
		rep := checkText(t, tc.text)
		res, _ := rep.Result(tc.invariant)
		if (res.Status == Fail) != tc.fails {
			t.Errorf("%s: %s %s (%s)", tc.name, tc.invariant, res.Status, res.Detail)
		}
		if !tc.fails && rep.Valid != nil && !*rep.Valid {
			for _, r := range rep.Invariants {
				if r.Status == Fail {
					t.Errorf("%s: %s fails (%s)", tc.name, r.Name, r.Detail)
				}
			}
		}
	}
}

// A send of a key invoked after an ok answer of the key (a replay here)
// had completed made no message either: the message existed already. A
// third send of other content after the replay left the stored content
// uncompared (session hostile36's).
func TestALaterSendIsNoMakerOfAMessage(t *testing.T) {
	text := func(stored string) string {
		return `{"format":"chatseq-history","version":1,"sole_writer":true}
{"type":"invoke","process":1,"f":"persist","chat":"c","key":"k","sender":"u","payload_hash":"p1","time":1}
{"type":"info","process":1,"f":"persist","error":"timeout","time":2}
{"type":"invoke","process":2,"f":"persist","chat":"c","key":"k","sender":"u","payload_hash":"p1","time":3}
{"type":"ok","process":2,"f":"persist","seq":1,"message_id":"m1","dedup":true,"time":4}
{"type":"invoke","process":3,"f":"persist","chat":"c","key":"k","sender":"u","payload_hash":"p3","time":5}
{"type":"info","process":3,"f":"persist","error":"timeout","time":6}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k","payload_hash":"` + stored + `","sender":"u"}
{"type":"table_read","table":"messages","lines":1}
`
	}
	mustContain(t, mustFail(t, checkText(t, text("p3")), NameNoPhantomMessages, 2, 8).Detail, "stores other content")
	must(t, checkText(t, text("p1")), NameNoPhantomMessages, Pass)
}
