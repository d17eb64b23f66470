package checker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
)

// BenchmarkOneKeySentOftenBesideALineWithoutASender checks a history whose
// one key was sent 100,000 times, every send timing out, beside a final
// message of its text without a sender (key_scope client): each persist
// asked whether its key was ever answered or rejected, and a scan of the
// key's sends each time made the check quadratic (over 120 s; 0.3 s since
// store.Index.keyProofs):
//
//	go test -run - -bench OneKeySentOften ./checker/
func BenchmarkOneKeySentOftenBesideALineWithoutASender(b *testing.B) {
	const sends = 100_000
	var h strings.Builder
	h.WriteString(`{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_scope":"client"}}` + "\n")
	for i := range sends {
		fmt.Fprintf(&h, `{"type":"invoke","process":1,"f":"persist","time":%d,"chat":"c1","key":"k1","sender":"s1","payload_hash":"h"}`+"\n", 2*i+1)
		fmt.Fprintf(&h, `{"type":"info","process":1,"f":"persist","time":%d,"error":"timeout"}`+"\n", 2*i+2)
	}
	fmt.Fprintf(&h, `{"type":"invoke","process":2,"f":"persist","time":%d,"chat":"c1","key":"k1","sender":"s2","payload_hash":"h"}`+"\n", 2*sends+1)
	fmt.Fprintf(&h, `{"type":"info","process":2,"f":"persist","time":%d,"error":"timeout"}`+"\n", 2*sends+2)
	h.WriteString(`{"type":"table_read","table":"messages","lines":1}` + "\n")
	h.WriteString(`{"type":"final","table":"messages","chat":"c1","seq":1,"message_id":"m1","key":"k1"}` + "\n")
	path := filepath.Join(b.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(h.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r, _, err := checker.CheckFile(path, checker.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if r.ExitCode() != 0 {
			b.Fatalf("exit %d, want a valid history: %+v", r.ExitCode(), r.Invariants)
		}
	}
}
