package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clientHistory is what another system records from its clients: no
// allocate traces, no final state, and no sync. It is valid: a timeout
// whose retry was answered as a replay, two chats, a failed send.
const clientHistory = `{"format":"chatseq-history","version":1,"target":"their-service"}
{"type":"invoke","process":1,"f":"persist","time":100,"chat":"room-1","key":"a1","sender":"alice","payload_hash":"h-a1"}
{"type":"invoke","process":2,"f":"persist","time":110,"chat":"room-1","key":"b1","sender":"bob","payload_hash":"h-b1"}
{"type":"ok","process":1,"f":"persist","time":150,"seq":1,"message_id":"m-1","dedup":false}
{"type":"info","process":2,"f":"persist","time":400,"error":"timeout"}
{"type":"invoke","process":2,"f":"persist","time":410,"chat":"room-1","key":"b1","sender":"bob","payload_hash":"h-b1"}
{"type":"ok","process":2,"f":"persist","time":450,"seq":2,"message_id":"m-2","dedup":true}
{"type":"invoke","process":1,"f":"persist","time":500,"chat":"room-2","key":"a2","sender":"alice","payload_hash":"h-a2"}
{"type":"ok","process":1,"f":"persist","time":540,"seq":1,"message_id":"m-3","dedup":false}
{"type":"invoke","process":3,"f":"persist","time":600,"chat":"room-2","key":"c1","sender":"carol"}
{"type":"fail","process":3,"f":"persist","time":610,"error":"not_a_member"}
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 12's done-when: a valid history recorded by another system, with
// no traces and no final state, passes with exit 0; with --require
// sync_completeness and no sync in it, exit 3.
func TestCheckClientOnlyHistory(t *testing.T) {
	path := writeFile(t, "client.jsonl", clientHistory)
	code, out, errOut := run(t, "check", path)
	if code != ExitOK || !strings.Contains(out, "verdict: PASS") {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"sync_completeness                      n/a      no sync in the history",
		"ack_implies_persistence                n/a      3 acks but no final messages lines",
		"allocation_monotonicity                n/a      no allocate traces in the history",
		"linearizability                        PASS",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = run(t, "check", path, "--require", "sync_completeness", "--format", "json")
	var rep struct {
		Valid      *bool `json:"valid"`
		Invariants []struct {
			Name, Status, Detail string
		} `json:"invariants"`
		NotApplicable []struct{ Name, Reason string } `json:"not_applicable"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != ExitUnknown || rep.Valid != nil {
		t.Fatalf("--require sync_completeness: exit %d, valid %v, want 3 and null\n%s", code, rep.Valid, out)
	}
	found := false
	for _, inv := range rep.Invariants {
		if inv.Name == "sync_completeness" {
			found = inv.Status == "unknown" && inv.Detail == "required, but not applicable: no sync in the history"
		}
	}
	for _, na := range rep.NotApplicable {
		found = found && na.Name != "sync_completeness"
	}
	if !found {
		t.Fatalf("sync_completeness is not unknown as required:\n%s", out)
	}

	// Required and judged: as usual. Two requirements, one flag each.
	withSync := clientHistory + `{"type":"invoke","process":4,"f":"sync","time":700,"chat":"room-1","after":0,"limit":10}
{"type":"ok","process":4,"f":"sync","time":720,"seqs":[1,2],"message_ids":["m-1","m-2"]}
`
	path = writeFile(t, "synced.jsonl", withSync)
	if code, out, _ := run(t, "check", path, "--require", "sync_completeness", "--require", "linearizability"); code != ExitOK {
		t.Fatalf("with a sync: exit %d\n%s", code, out)
	}
	if code, out, _ := run(t, "check", path, "--require", "sync_completeness,ack_implies_persistence"); code != ExitUnknown ||
		!strings.Contains(out, "required, but not applicable: 3 acks but no final messages lines") {
		t.Fatalf("ack_implies_persistence required: exit %d\n%s", code, out)
	}
}

// The same client history from a writer that promised the end line and
// was cut short before it: the final-state invariants are unknown, not
// n/a, since the final state may simply not have been written yet; with
// the end line it is complete and passes.
func TestCheckEndLine(t *testing.T) {
	promised := strings.Replace(clientHistory, `"version":1,`, `"version":1,"end_line":true,`, 1)
	path := writeFile(t, "cut.jsonl", promised)
	code, out, errOut := run(t, "check", path)
	if code != ExitUnknown || !strings.Contains(out, "ack_implies_persistence                UNKNOWN  the final state was cut short") ||
		strings.Contains(out, "FAIL") || !strings.Contains(errOut, path+":11: the header promises an end line") {
		t.Fatalf("cut short: exit %d, want 3\n%s%s", code, out, errOut)
	}
	path = writeFile(t, "complete.jsonl", promised+`{"type":"end"}`+"\n")
	if code, out, _ := run(t, "check", path); code != ExitOK {
		t.Fatalf("complete: exit %d\n%s", code, out)
	}
	// A line after the end line is unusable input, named by file and line.
	path = writeFile(t, "after.jsonl", promised+`{"type":"end"}`+"\n"+`{"type":"final","table":"counters","chat":"room-1","value":2}`+"\n")
	if code, _, errOut := run(t, "check", path); code != ExitBadInput ||
		!strings.Contains(errOut, path+`:13: final line after the end line (line 12); the end line must be the last line`) {
		t.Fatalf("after the end: exit %d, stderr %q", code, errOut)
	}
}
