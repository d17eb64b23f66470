package httptarget_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
)

// A service whose cursor pages (after > 0) show each message with another
// content, sender or key than it was sent with, while its first page and
// so the final state read back are honest, passed: a sync's history line
// recorded only sequences and message ids. It records what each message
// carried, and sync_completeness compares it with what was sent.
func TestCursorPagesThatAlterMessagesFail(t *testing.T) {
	for _, c := range []struct {
		name, field, to, want string
	}{
		{"content", `"content":"(?:[^"\\]|\\.)*"`, `"content":"altered"`, "another content"},
		{"sender", `"sender_id":"[^"]*"`, `"sender_id":"someone-else"`, "another sender"},
		{"key", `"client_message_id":"[^"]*"`, `"client_message_id":"another-key"`, "another key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			field := regexp.MustCompile(c.field)
			rep := runBehindRewrite(t, func(r *http.Request, body []byte) []byte {
				if a := r.URL.Query().Get("after"); a == "" || a == "0" {
					return body
				}
				return field.ReplaceAll(body, []byte(c.to))
			}, func(*bench.Config) {})
			r, _ := rep.Result(checker.NameSyncCompleteness)
			if r.Status != checker.Fail {
				t.Fatalf("sync_completeness %s (%s), want fail", r.Status, r.Detail)
			}
			if !regexp.MustCompile(c.want).MatchString(r.Detail) {
				t.Fatalf("sync_completeness: %s, want %q", r.Detail, c.want)
			}
			if a, _ := rep.Result(checker.NameAckImpliesPersistence); a.Status != checker.Pass {
				t.Fatalf("ack_implies_persistence %s (%s): the state read back is honest", a.Status, a.Detail)
			}
		})
	}
}
