package checker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
)

// gappyChats is a gaps: forbidden history of n chats, each acked at
// sequences 1 and top: top-2 holes a chat, which other writers must have
// filled (no sole_writer).
func gappyChats(t *testing.T, n int, top uint64) *history.History {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"format":"chatseq-history","version":1,"contract":{"gaps":"forbidden"}}` + "\n")
	tm := 1
	for c := range n {
		for i, seq := range []uint64{1, top} {
			fmt.Fprintf(&b, `{"type":"invoke","process":1,"f":"persist","chat":"c%d","key":"k%d","time":%d}`+"\n", c, i, tm)
			fmt.Fprintf(&b, `{"type":"ok","process":1,"f":"persist","seq":%d,"message_id":"m%d-%d","time":%d}`+"\n", seq, c, i, tm+1)
			tm += 2
		}
	}
	h, err := history.Read(strings.NewReader(b.String()), "gappy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The holes the exact checker places are bounded over a whole check, not
// a chat at a time: each chat of a 16 KB history placed up to a million,
// and 50 such chats took 13 s and 890 MB, 200 took 53 s and 2.1 GB (a red
// team's). A chat the check's budget cannot cover goes to porcupine; the
// holes are counted without the sequences operations name.
func TestHolesAreBoundedOverTheCheck(t *testing.T) {
	const top = 300_001 // 299,999 holes a chat
	h := gappyChats(t, 3, top)
	x := indexOf(h)
	con := history.Contract{Gaps: history.GapsForbidden}
	x.KindsOf(false)
	holes := linearize.NewHoleBudget(2*(top-2) + 10)
	var statuses []linearize.Status
	for c := range int32(3) {
		m, _ := x.ChatModel(c, con, false)
		if out := linearize.Exact(m, nil); out.Status != linearize.Pass {
			t.Fatalf("chat %d unbounded: %s %s", c, out.Status, out.Detail)
		}
		statuses = append(statuses, linearize.ExactWithin(m, nil, holes).Status)
	}
	want := []linearize.Status{linearize.Pass, linearize.Pass, linearize.Unknown}
	for i := range want {
		if statuses[i] != want[i] {
			t.Fatalf("chats decided %v within a budget of two chats' holes, want %v", statuses, want)
		}
	}
}
