package checker_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/histgen"
)

// BenchmarkCheckProfile checks, from a file as chatseq check does, each
// shape a checker meets in practice (histgen.Profiles, full size: the zipf
// file is 2.3 GB and the heavy-sync one 1.1 GB, written to b.TempDir()
// before the timer starts):
//
//	go test -run - -bench CheckProfile -benchtime 1x ./checker/
//
// peak-RSS-MB is the process's high-water resident set from the check's
// start (the generator's freed memory returned first).
func BenchmarkCheckProfile(b *testing.B) {
	for _, name := range histgen.Profiles {
		b.Run(name, func(b *testing.B) {
			cfg, err := histgen.Profile(name)
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), name+".jsonl")
			f, err := history.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := histgen.Generate(f, cfg); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			checker.ResetPeakRSS()
			b.ResetTimer()
			for b.Loop() {
				r, _, err := checker.CheckFile(path, checker.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if r.ExitCode() != 0 {
					b.Fatalf("%s: exit %d, want a valid history: %+v", name, r.ExitCode(), r.Invariants)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(checker.PeakRSS())/(1<<20), "peak-RSS-MB")
		})
	}
}
