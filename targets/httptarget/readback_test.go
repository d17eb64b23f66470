package httptarget

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatseq/chatseq/store"
)

// pagedService serves chat-i's messages 1..sizes[i] a page at a time
// (the sync API's after and limit). The first request waits (up to a
// minute) until a second one is in flight, so that chats read side by
// side show without a timing margin, and finish out of their order. A
// chat named in failing answers 500. It counts the requests in flight at
// once at most.
func pagedService(t *testing.T, sizes []int, failing string) (*client, *atomic.Int32) {
	var inFlight, most atomic.Int32
	var first atomic.Bool
	second := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n >= 2 {
			once.Do(func() { close(second) })
		}
		if first.CompareAndSwap(false, true) {
			select {
			case <-second:
			case <-time.After(time.Minute):
			}
		}
		chat := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/chats/"), "/messages")
		if chat == failing {
			http.Error(w, `{"error":{"code":"boom"}}`, http.StatusInternalServerError)
			return
		}
		i, _ := strconv.Atoi(strings.TrimPrefix(chat, "chat-"))
		after, _ := strconv.Atoi(r.URL.Query().Get("after"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		var b strings.Builder
		b.WriteString(`{"messages":[`)
		last := min(after+limit, sizes[i])
		for s := after + 1; s <= last; s++ {
			if s > after+1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"sequence":%d,"message_id":"m-%d-%d","client_message_id":"k-%d-%d","sender_id":"u"}`, s, i, s, i, s)
		}
		b.WriteString(`]`)
		if last-after == limit { // a full page says where to ask again from
			fmt.Fprintf(&b, `,"next_after":%d`, last)
		}
		b.WriteString(`}`)
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	base, _ := url.Parse(srv.URL)
	return newClient(base, DefaultAPI(), defaultSettings(), 8, nil), &most
}

func chatNames(n int) []string {
	chats := make([]string, n)
	for i := range chats {
		chats[i] = fmt.Sprintf("chat-%d", i)
	}
	return chats
}

// The final state read back side by side is handed over in chats'
// order, each chat's in its pages' order, every message once and as the
// service gave it, with no more than readBackWorkers chats read at once.
func TestReadBackHandsChatsOverInOrder(t *testing.T) {
	sizes := []int{2500, 0, 1, 1000, 1001, 3, 2200, 7, 999, 40}
	c, most := pagedService(t, sizes, "")
	var got []store.Message
	if err := c.readBack(context.Background(), chatNames(len(sizes)), func(m store.Message) { got = append(got, m) }); err != nil {
		t.Fatal(err)
	}
	k := 0
	for i, n := range sizes {
		for s := 1; s <= n; s++ {
			// Checked once every page is in: a page's body is read into
			// a buffer an earlier page was read into, and what was handed
			// over must not share it.
			if k >= len(got) || got[k].Chat != fmt.Sprintf("chat-%d", i) || got[k].Seq != uint64(s) || got[k].MessageID != fmt.Sprintf("m-%d-%d", i, s) {
				t.Fatalf("message %d: got %+v, want chat-%d seq %d", k, got[min(k, len(got)-1)], i, s)
			}
			k++
		}
	}
	if k != len(got) {
		t.Fatalf("%d messages handed over, want %d", len(got), k)
	}
	if m := most.Load(); m > readBackWorkers || m < 2 {
		t.Errorf("%d chats read at once, want 2 to %d", m, readBackWorkers)
	}
}

// A chat that cannot be read is the error, named. What was handed over
// before it is whole chats, in order, from the first (chats being read
// when it failed stop at their next page), and nothing from it on.
func TestReadBackNamesTheChatThatFailed(t *testing.T) {
	sizes := []int{10, 10, 10, 10, 10, 10}
	c, _ := pagedService(t, sizes, "chat-3")
	perChat := map[string]int{}
	var chats []string
	err := c.readBack(context.Background(), chatNames(len(sizes)), func(m store.Message) {
		if perChat[m.Chat]++; perChat[m.Chat] == 1 {
			chats = append(chats, m.Chat)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "reading chat-3 back after 0") {
		t.Fatalf("err = %v, want chat-3 named", err)
	}
	for k, chat := range chats {
		if chat != fmt.Sprintf("chat-%d", k) || k >= 3 || perChat[chat] != 10 {
			t.Fatalf("handed over %v (%v), want whole chats from chat-0, before chat-3", chats, perChat)
		}
	}
}
