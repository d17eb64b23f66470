package cmd

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// benchShard runs one shard of a small run and returns its history.
func benchShard(t *testing.T, dir, shard string, extra ...string) string {
	t.Helper()
	hist := filepath.Join(dir, "shard-"+strings.ReplaceAll(shard, "/", "-")+".jsonl")
	args := append([]string{"bench", "--ops", "300", "--duration", "0", "--writers", "3", "--chats", "6",
		"--kafka", "off", "--shard", shard, "--history", hist}, extra...)
	code, out, errOut := run(t, args...)
	if code != ExitOK && code != ExitViolation {
		t.Fatalf("bench --shard %s: exit %d\n%s\n%s", shard, code, out, errOut)
	}
	return hist
}

// Shards drive disjoint chats, so their histories check as one run.
func TestCheckShardHistoriesAsOneRun(t *testing.T) {
	dir := t.TempDir()
	a := benchShard(t, dir, "0/2")
	b := benchShard(t, dir, "1/2")
	code, out, errOut := run(t, "check", a, b, "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		Valid *bool `json:"valid"`
		Stats struct {
			Chats, Operations int
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Valid == nil || !*rep.Valid || rep.Stats.Chats != 6 {
		t.Fatalf("merged check: %+v", rep)
	}
	if !strings.Contains(errOut, "lines 1-") || !strings.Contains(errOut, ": "+b) {
		t.Fatalf("the line map is not printed: %q", errOut)
	}

	// A broken shard breaks the whole run.
	c := benchShard(t, t.TempDir(), "1/2", "--broken", "retry-reallocates", "--duplicate-after-ok", "0.5")
	code, out, _ = run(t, "check", a, c)
	if code != ExitViolation || !strings.Contains(out, "idempotency_guarantee") {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}

	// Two files with one chat are not shards of one run.
	code, _, errOut = run(t, "check", a, a)
	if code != ExitBadInput || !strings.Contains(errOut, "must drive disjoint chats") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// A history whose times span the int64 range fails on its own (a sync at
// the end misses a message acknowledged at the start). Merged after
// another file its times would wrap round, putting the sync first, and
// the failure would pass: the merge is refused instead.
func TestCheckRefusesAMergeWhoseTimesWouldOverflow(t *testing.T) {
	const header = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed"},"seed":7,"initial_counter":0}` + "\n"
	a := writeFile(t, "a.jsonl", header+
		`{"type":"invoke","process":0,"f":"persist","time":100,"chat":"chat-a","key":"k1"}`+"\n"+
		`{"type":"ok","process":0,"f":"persist","time":200,"chat":"chat-a","key":"k1","seq":1,"message_id":"m1"}`+"\n"+
		`{"type":"final","table":"counters","chat":"chat-a","value":1}`+"\n"+
		`{"type":"final","table":"messages","chat":"chat-a","seq":1,"message_id":"m1","key":"k1"}`+"\n")
	b := writeFile(t, "b.jsonl", header+
		`{"type":"invoke","process":0,"f":"persist","time":-9223372036854775808,"chat":"chat-b","key":"k1"}`+"\n"+
		`{"type":"ok","process":0,"f":"persist","time":-9223372036854775000,"chat":"chat-b","key":"k1","seq":1,"message_id":"m2"}`+"\n"+
		`{"type":"invoke","process":1,"f":"sync","time":9223372036854775000,"chat":"chat-b","after":0,"limit":10}`+"\n"+
		`{"type":"ok","process":1,"f":"sync","time":9223372036854775807,"chat":"chat-b","seqs":[],"message_ids":[]}`+"\n"+
		`{"type":"final","table":"counters","chat":"chat-b","value":1}`+"\n"+
		`{"type":"final","table":"messages","chat":"chat-b","seq":1,"message_id":"m2","key":"k1"}`+"\n")
	if code, out, errOut := run(t, "check", b); code != ExitViolation || !strings.Contains(out, "sync_completeness") {
		t.Fatalf("the wide history alone: exit %d, want 1 for sync_completeness\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := run(t, "check", a, b)
	if code != ExitBadInput || !strings.Contains(errOut, b+": its times span") {
		t.Fatalf("merged: exit %d, want 2 naming %s\n%s\n%s", code, b, out, errOut)
	}
}
