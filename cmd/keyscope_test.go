package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two senders use key "k" in one chat for two messages: a violation when
// keys are scoped per chat (the default, and the header's contract), none
// when they are scoped per client (--key-scope client, or the header).
func TestCheckKeyScope(t *testing.T) {
	lines := func(contract string) string {
		return `{"format":"chatseq-history","version":1` + contract + `}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k","sender":"u1","payload_hash":"h1"}
{"type":"ok","process":1,"f":"persist","time":2,"chat":"c","key":"k","seq":1,"message_id":"m1"}
{"type":"invoke","process":2,"f":"persist","time":3,"chat":"c","key":"k","sender":"u2","payload_hash":"h2"}
{"type":"ok","process":2,"f":"persist","time":4,"chat":"c","key":"k","seq":2,"message_id":"m2"}
{"type":"final","table":"counters","chat":"c","value":2}
{"type":"final","table":"messages","chat":"c","seq":1,"message_id":"m1","key":"k","sender":"u1"}
{"type":"final","table":"messages","chat":"c","seq":2,"message_id":"m2","key":"k","sender":"u2"}
{"type":"final","table":"idempotency","chat":"c","key":"k","seq":1,"message_id":"m1","sender":"u1"}
{"type":"final","table":"idempotency","chat":"c","key":"k","seq":2,"message_id":"m2","sender":"u2"}
`
	}
	dir := t.TempDir()
	write := func(name, contract string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(lines(contract)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	plain := write("plain.jsonl", "")
	client := write("client.jsonl", `,"contract":{"key_scope":"client"}`)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", plain}, 1, `"key_scope": "chat"`},
		{[]string{"check", plain, "--key-scope", "chat"}, 1, `"key_scope": "chat"`},
		{[]string{"check", plain, "--key-scope", "client"}, 0, `"key_scope": "client"`},
		{[]string{"check", client}, 0, `"key_scope": "client"`},
		{[]string{"check", client, "--key-scope", "chat"}, 1, `"key_scope": "chat"`},
		{[]string{"check", plain, "--key-scope", "sender"}, 0, `"key_scope": "sender"`},
	} {
		code, out, errOut := run(t, append(c.args, "--format", "json")...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want %d; output lacks %q?\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
	code, _, errOut := run(t, "check", write("bad.jsonl", `,"contract":{"key_scope":"user"}`))
	if code != ExitBadInput || !strings.Contains(errOut, `"contract.key_scope" must be "chat", "client" or "sender", got "user"`) {
		t.Errorf("bad key_scope in the header: exit %d, %s", code, errOut)
	}
}
