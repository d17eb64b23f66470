package cmd

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// hostileService answers every send with send(w), the rest as chatseq's
// API does with nothing stored: chats are created, every page is empty,
// there is no counter hook.
func hostileService(t *testing.T, send http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch {
		case strings.HasSuffix(r.URL.Path, "/counter"):
			http.NotFound(w, r)
		case r.Method == http.MethodPut:
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{}`)
		case r.Method == http.MethodGet:
			_, _ = io.WriteString(w, `{"messages":[]}`)
		default:
			send(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func created(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, body)
	}
}

func benchHTTP(t *testing.T, url string, extra ...string) (int, string, string) {
	t.Helper()
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	args := append([]string{"bench", "--target", "http", "--url", url, "--ops", "40", "--duration", "0",
		"--writers", "2", "--chats", "2", "--max-attempts", "2", "--history", hist}, extra...)
	code, out, errOut := run(t, args...)
	if code == ExitOK || code == ExitViolation {
		// The history alone gives the same verdict.
		if c, o, _ := run(t, "check", hist); c != code {
			t.Errorf("check of the run's history: exit %d, bench's %d\n%s", c, code, o)
		}
	}
	return code, out, errOut
}

// A service whose every 201 breaks the API (no JSON, a sequence that is
// negative, zero, or beyond 2^64-1) used to pass: each send was an
// unknown outcome, nothing was acknowledged, so nothing could be lost.
// Such an answer is a finding about the service: the run fails, naming
// the request and what came back.
func TestBenchFailsAServiceWhoseSuccessesBreakTheAPI(t *testing.T) {
	for _, body := range []string{
		`{"sequence": 1,`,
		`{"sequence":-3,"message_id":"m"}`,
		`{"sequence":0,"message_id":"m"}`,
		`{"sequence":18446744073709551616,"message_id":"m"}`,
	} {
		srv := hostileService(t, created(body))
		code, out, errOut := benchHTTP(t, srv.URL)
		if code != ExitViolation {
			t.Errorf("201 %s: exit %d, want %d\n%s\n%s", body, code, ExitViolation, out, errOut)
			continue
		}
		for _, want := range []string{"api_conformance", "FAIL", "POST /v1/chats/", "answered 201 without a sequence", fmt.Sprintf("%q", body)} {
			if !strings.Contains(out, want) {
				t.Errorf("201 %s: the report does not say %q\n%s", body, want, out)
			}
		}
	}
}

// A send answered 302 is not followed (net/http resent it as a GET and
// recorded that GET's 404 as the send's definite failure): it is a
// bad_response, and the run fails naming the redirect.
func TestBenchFailsAServiceThatRedirectsSends(t *testing.T) {
	srv := hostileService(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	code, out, errOut := benchHTTP(t, srv.URL)
	if code != ExitViolation || !strings.Contains(out, `answered 302 with a redirect to "/elsewhere"`) || strings.Contains(out, "http_404") {
		t.Fatalf("exit %d, want %d naming the redirect and no 404\n%s\n%s", code, ExitViolation, out, errOut)
	}
}
