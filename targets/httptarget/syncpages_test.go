package httptarget_test

import (
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
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
			rep := runBehindRewrite(t, func(r *http.Response, body []byte) []byte {
				if a := r.Request.URL.Query().Get("after"); r.Request.Method != http.MethodGet || r.StatusCode != http.StatusOK || a == "" || a == "0" {
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

// A service that answers a retry of an acknowledged key 409, as if it had
// been reused, under chatseq's API (key_reuse return-original: a retry
// gets its original message) passed: a fail takes no effect. Such a
// refusal of a key known held now fails idempotency_guarantee.
func TestRetriesRefusedAsReusedFail(t *testing.T) {
	rep := runBehindRewrite(t, func(r *http.Response, body []byte) []byte {
		if r.Request.Method != http.MethodPost || r.Header.Get(httpapi.HeaderReplayed) != "true" {
			return body
		}
		r.StatusCode, r.Status = http.StatusConflict, "409 Conflict"
		r.Header.Del(httpapi.HeaderReplayed)
		return []byte(`{"error":{"cause":"idempotency_key_reused"}}`)
	}, func(cfg *bench.Config) { cfg.DuplicateAfterOK = 0.2 })
	r, _ := rep.Result(checker.NameIdempotencyGuarantee)
	if r.Status != checker.Fail || !strings.Contains(r.Detail, "refused as reused") {
		t.Fatalf("idempotency_guarantee %s (%s), want fail", r.Status, r.Detail)
	}
}

// A service that answers every other page 503 (unavailable, come back)
// left the final state unread: the read-back gave up at the first, and
// the verdict was unknown (exit 3). The read-back reads such a page
// again, as the send does; the writers' syncs record what they got.
func TestAReadBackPageAnswered503IsReadAgain(t *testing.T) {
	var pages atomic.Int64
	rep := runBehindRewrite(t, func(r *http.Response, body []byte) []byte {
		if r.Request.Method != http.MethodGet || !strings.HasSuffix(r.Request.URL.Path, "/messages") || pages.Add(1)%2 == 0 {
			return body
		}
		r.StatusCode, r.Status = http.StatusServiceUnavailable, "503 Service Unavailable"
		return []byte(`{"error":{"cause":"unavailable"}}`)
	}, func(*bench.Config) {})
	if a, _ := rep.Result(checker.NameAckImpliesPersistence); a.Status != checker.Pass || rep.ExitCode() != 0 {
		t.Fatalf("ack_implies_persistence %s (%s), exit %d; want the state read back and a pass", a.Status, a.Detail, rep.ExitCode())
	}
}
