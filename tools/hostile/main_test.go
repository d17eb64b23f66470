package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Each mode answers a send as its name says, and a sync with an empty
// page unless -syncs; an unknown mode is refused naming the modes.
func TestModesAnswerAsNamed(t *testing.T) {
	for _, c := range []struct {
		mode, want string
		status     int
	}{
		{"not-json", `{"sequence": 1,`, 201},
		{"negative", `"sequence":-3`, 201},
		{"zero", `"sequence":0`, 201},
		{"overflow", `"sequence":18446744073709551616`, 201},
		{"redirect", "", 302},
	} {
		h, err := handler(c.mode, false)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		client := srv.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := client.Post(srv.URL+"/v1/chats/c/messages", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %q, want %d with %q", c.mode, resp.StatusCode, body, c.status, c.want)
		}
		resp, err = client.Get(srv.URL + "/v1/chats/c/messages?after=0&limit=10")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != `{"messages":[]}` {
			t.Errorf("%s: a sync answered %q, want an empty page", c.mode, body)
		}
		srv.Close()
	}
	if _, err := handler("gentle", false); err == nil || !strings.Contains(err.Error(), "endless") {
		t.Errorf("an unknown mode: %v, want the modes named", err)
	}
}

// The long answers are as long as they claim: huge announces 2 GiB,
// endless and chunked send past 16 MiB (the most chatseq reads).
func TestLongModesSendPastChatseqsBound(t *testing.T) {
	for _, mode := range []string{"huge", "chunked", "endless"} {
		h, _ := handler(mode, true)
		srv := httptest.NewServer(h)
		resp, err := srv.Client().Get(srv.URL + "/v1/chats/c/messages?after=0&limit=10")
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.CopyN(io.Discard, resp.Body, 17<<20)
		if n != 17<<20 || mode == "huge" && resp.ContentLength != twoGiB {
			t.Errorf("%s: %d bytes read, length %d", mode, n, resp.ContentLength)
		}
		resp.Body.Close()
		srv.Close()
	}
}
