package checker_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
// start (the generator's freed memory returned first); cpu-s/op is the
// process's CPU time (user and system) a check, which on a shared machine
// says more than ns/op, mostly waiting for a core there.
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
			cpu0 := processCPU(b)
			n := 0
			b.ResetTimer()
			for b.Loop() {
				n++
				r, _, err := checker.CheckFile(path, checker.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if r.ExitCode() != 0 {
					b.Fatalf("%s: exit %d, want a valid history: %+v", name, r.ExitCode(), r.Invariants)
				}
			}
			b.StopTimer()
			b.ReportMetric((processCPU(b)-cpu0).Seconds()/float64(n), "cpu-s/op")
			b.ReportMetric(float64(checker.PeakRSS())/(1<<20), "peak-RSS-MB")
		})
	}
}

// processCPU is the CPU time, user and system, the process has used.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
