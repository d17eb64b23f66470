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
	mustContain(t, res.Detail, `names sender "u2", and every persist of its key was sent by "u1"`)
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
