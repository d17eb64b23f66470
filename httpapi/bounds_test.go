package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/httpapi"
)

// A large sync page is written in pieces: a page of a hundred 1 MB
// messages costs the server about a piece's encoding, not the page's
// (encoded whole, eight pages of a thousand took serve to 3.5 GB). A
// small page goes out whole, with its length (one write rather than one
// a message). Both read as the API's SyncResponse.
func TestASyncPageIsWrittenInBoundedPieces(t *testing.T) {
	srv, _ := newServer(t)
	call := apiCaller(t, http.DefaultClient, srv.URL)
	status := apiStatus(t, http.DefaultClient, srv.URL)
	if s := status("PUT", "/v1/chats/c1", "", `{"members":["u"]}`); s != http.StatusCreated {
		t.Fatalf("create: %d", s)
	}
	const messages, size = 100, 1_000_000
	content := strings.Repeat("x", size)
	for i := range messages {
		if s := status("POST", "/v1/chats/c1/messages", "k"+strconv.Itoa(i), `{"sender_id":"u","content":"`+content+`"}`); s != http.StatusCreated {
			t.Fatalf("send %d: %d", i, s)
		}
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp := call("GET", "/v1/chats/c1/messages?limit=1000", "", "")
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	if resp.ContentLength != -1 {
		t.Errorf("a page of %d MB came with a length, %d: it was encoded whole", n>>20, resp.ContentLength)
	}
	if err != nil || n < messages*size {
		t.Fatalf("the page: %d bytes (%v), want more than %d", n, err, messages*size)
	}
	// The client and the server share this process; the client copies the
	// body through a buffer of its own.
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 20<<20 {
		t.Errorf("a sync of %d messages of %d bytes allocated %d MB, want about one message's worth", messages, size, allocated>>20)
	}

	resp = call("GET", "/v1/chats/c1/messages?after=1&limit=2", "", "")
	defer resp.Body.Close()
	var page httpapi.SyncResponse
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	if len(page.Messages) != 2 || page.Messages[0].Sequence != 2 || page.Messages[1].ClientMessageID != "k2" ||
		page.Messages[1].Content != content || page.NextAfter == nil || *page.NextAfter != 3 {
		t.Fatalf("a page of two: %d messages, next_after %v", len(page.Messages), page.NextAfter)
	}

	resp = call("GET", "/v1/chats/c1/messages?after=99&limit=5", "", "")
	defer resp.Body.Close()
	if resp.ContentLength <= 0 || resp.ContentLength > 2<<20 {
		t.Errorf("a page of one 1 MB message came with length %d, want it written whole", resp.ContentLength)
	}
}
