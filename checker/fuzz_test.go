package checker_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/histgen"
)

// FuzzCheck judges every history the reader accepts, under every contract:
// whatever the lines say, the checker reports (pass, fail, unknown or n/a)
// and never panics. Seeds: the reader's test files and a small generated
// history with crashes, replays and syncs.
func FuzzCheck(f *testing.F) {
	seeds, err := filepath.Glob("../history/testdata/*.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	var gen bytes.Buffer
	cfg := histgen.Default()
	cfg.Persists, cfg.Chats, cfg.Writers, cfg.Readers = 60, 2, 4, 2
	if _, err := histgen.Generate(&gen, cfg); err != nil {
		f.Fatal(err)
	}
	f.Add(gen.Bytes(), uint8(3))
	contracts := []history.Contract{
		{}, {Gaps: history.GapsForbidden}, {KeyReuse: history.KeyReuseReject},
		{Gaps: history.GapsForbidden, KeyReuse: history.KeyReuseReject, Events: history.EventsAtLeastOnce},
	}
	f.Fuzz(func(t *testing.T, data []byte, contract uint8) {
		h, err := history.Read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			return
		}
		con := contracts[int(contract)%len(contracts)]
		for _, porcupine := range []bool{false, true} {
			r := checker.Check(h, checker.Options{Contract: &con, Porcupine: porcupine, LinearizabilityTimeout: 1e9})
			if len(r.Invariants)+len(r.NotApplicable) == 0 {
				t.Fatal("a report with no invariant at all")
			}
		}
	})
}
