package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 26's cases 4 to 7, each a complete history that passed (exit 0)
// and must fail (exit 1) naming the invariant it breaks; and issue 27's
// service that loses every acknowledged message. Each is given as
// `chatseq check` reads it from a file.
func TestCheckFinalStatePromises(t *testing.T) {
	const (
		persistK0 = `{"type":"invoke","process":0,"f":"persist","time":1,"chat":"c1","key":"k0","sender":"u0"}`
		persistK1 = `{"type":"invoke","process":1,"f":"persist","time":3,"chat":"c1","key":"k1","sender":"u1"}`
		okK1      = `{"type":"ok","process":1,"f":"persist","time":4,"seq":1,"message_id":"m1","dedup":false}`
	)
	for _, tt := range []struct {
		name, invariant string
		lines           []string
		flags           []string
	}{
		{"case 4: a new message below the initial counter", "sequence_monotonic", []string{
			`{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed"},"initial_counter":5}`,
			persistK1, `{"type":"ok","process":1,"f":"persist","time":4,"seq":3,"message_id":"m3","dedup":false}`,
		}, nil},
		{"case 5: a definite failure whose message exists", "fail_has_no_effect", []string{
			`{"format":"chatseq-history","version":1}`,
			persistK0, `{"type":"fail","process":0,"f":"persist","time":2,"error":"crash_after_allocate"}`,
			`{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k0"}`,
		}, nil},
		{"case 6: an ack stored under another key", "ack_implies_persistence", []string{
			`{"format":"chatseq-history","version":1}`,
			persistK1, okK1,
			`{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k2"}`,
		}, nil},
		{"case 7: a message no client sent, the header says sole writer", "no_phantom_messages", []string{
			`{"format":"chatseq-history","version":1,"sole_writer":true}`,
			persistK1, okK1,
			`{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}`,
			`{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"m2","key":"nobody-sent-this"}`,
		}, nil},
		{"case 7: a message no client sent, check --sole-writer", "no_phantom_messages", []string{
			`{"format":"chatseq-history","version":1}`,
			persistK1, okK1,
			`{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}`,
			`{"type":"final","table":"messages","chat":"c1","seq":2,"message_id":"m2","key":"nobody-sent-this"}`,
		}, []string{"--sole-writer"}},
		{"issue 27: every acknowledged message lost, the table read empty", "ack_implies_persistence", []string{
			`{"format":"chatseq-history","version":1,"end_line":true}`,
			persistK1, okK1,
			`{"type":"table_read","table":"messages","lines":0}`,
			`{"type":"end"}`,
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "h.jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, append([]string{"check", path, "--format", "json"}, tt.flags...)...)
			if code != ExitViolation {
				t.Fatalf("exit %d, want %d\n%s%s", code, ExitViolation, out, errOut)
			}
			var rep struct {
				Invariants []struct{ Name, Status string }
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			for _, inv := range rep.Invariants {
				if inv.Name == tt.invariant && inv.Status == "fail" {
					return
				}
			}
			t.Fatalf("%s does not fail:\n%s", tt.invariant, out)
		})
	}
}

// --sole-writer=false takes a header's claim back: the phantom is then a
// warning, and the history passes.
func TestCheckSoleWriterFalse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	body := `{"format":"chatseq-history","version":1,"sole_writer":true}
{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"greeting"}
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "check", path); code != ExitViolation || !strings.Contains(out, "no_phantom_messages") {
		t.Fatalf("with the header's claim: exit %d\n%s", code, out)
	}
	code, out, _ := run(t, "check", path, "--sole-writer=false")
	if code != ExitOK || !strings.Contains(out, "a key no persist of their chat sent") {
		t.Fatalf("--sole-writer=false: exit %d\n%s", code, out)
	}
}
