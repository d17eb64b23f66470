package cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// alteringService is chatseq's reference API storing every message sent
// with its content upper-cased: it answers each send as the reference
// does, and its pages give back what it stored.
func alteringService(t *testing.T) *httptest.Server {
	t.Helper()
	api := referenceAPI(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages") {
			var body map[string]any
			raw, _ := io.ReadAll(r.Body)
			if json.Unmarshal(raw, &body) == nil {
				if c, ok := body["content"].(string); ok {
					body["content"] = strings.ToUpper(c)
				}
				raw, _ = json.Marshal(body)
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(raw)), int64(len(raw))
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A service that stores every message with other content than was sent
// fails ack_implies_persistence, with no device to see a message pushed:
// the final state is read back with its content. It passed (an outside
// tester's).
func TestAServiceThatStoresAlteredContentFails(t *testing.T) {
	srv := alteringService(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := run(t, "bench", "--target", "http", "--url", srv.URL, "--ops", "200", "--duration", "0",
		"--writers", "2", "--chats", "2", "--out", out)
	if code != ExitViolation {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitViolation, stdout, stderr)
	}
	if !strings.Contains(stdout, "ack_implies_persistence") || !strings.Contains(stdout, "other content than that persist sent") {
		t.Errorf("the failure does not say the content differs:\n%s", stdout)
	}
}
