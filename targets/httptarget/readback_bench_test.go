package httptarget

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/targets/core"
)

// BenchmarkReadBack is a run's final state read back over http, both
// sides in this process: chatseq serve's server over the embedded store,
// 64 chats of 4,000 messages each, read through the sync API as Walk reads
// them. After a 20-minute soak this is most of the time between the
// writers' end and the verdict. cpu-ns/message is both sides' CPU (they
// share the machine in a soak too):
//
//	go test ./targets/httptarget -run '^$' -bench ReadBack -benchtime 5x
func BenchmarkReadBack(b *testing.B) {
	const chats, perChat = 64, 4000
	ctx := context.Background()
	tgt, err := core.Factory(nil)(ctx, bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		b.Fatal(err)
	}
	defer tgt.Close()
	names := make([]string, chats)
	for i := range names {
		names[i] = fmt.Sprintf("b1-chat-%04d", i)
		if err := tgt.CreateChat(ctx, names[i], []string{"user-1"}); err != nil {
			b.Fatal(err)
		}
		for m := range perChat {
			req := sequencer.Request{Chat: names[i], Key: fmt.Sprintf("w1-m%d", m), Sender: "user-1", Content: fmt.Sprintf("message %d from user-1", m)}
			if _, err := tgt.Persist(ctx, req, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	srv := httptest.NewServer(httpapi.NewServer(tgt).Handler())
	defer srv.Close()
	base, _ := url.Parse(srv.URL)
	c := newClient(base, DefaultAPI(), defaultSettings(), readBackWorkers, nil)
	defer c.Close()
	for _, chat := range names {
		c.readers.Store(chat, "user-1") // as CreateChat through the client does
	}
	read := 0
	stop := reportCPU(b)
	for b.Loop() {
		if err := c.readBack(ctx, names, func(store.Message) { read++ }); err != nil {
			b.Fatal(err)
		}
	}
	stop()
	if read != b.N*chats*perChat {
		b.Fatalf("read %d messages, want %d", read, b.N*chats*perChat)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(read), "ns/message")
}
