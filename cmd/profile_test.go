package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CHATSEQ_HEAPPROFILE_AT must be a duration: anything else is bad input,
// named, before the command runs.
func TestHeapProfileRefusesABadTime(t *testing.T) {
	t.Setenv("CHATSEQ_HEAPPROFILE", filepath.Join(t.TempDir(), "heap.pb.gz"))
	for _, at := range []string{"", "soon"} {
		t.Setenv("CHATSEQ_HEAPPROFILE_AT", at)
		var out, errOut strings.Builder
		if code := runProcess([]string{"version"}, &out, &errOut); code != ExitBadInput || !strings.Contains(errOut.String(), "CHATSEQ_HEAPPROFILE_AT") {
			t.Errorf("CHATSEQ_HEAPPROFILE_AT=%q: exit %d, %q; want %d naming the variable", at, code, errOut.String(), ExitBadInput)
		}
	}
}

// The mid-run heap profile is written once its time has come, while the
// command still runs.
func TestHeapProfileIsWrittenAtItsTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pb.gz")
	t.Setenv("CHATSEQ_HEAPPROFILE", path)
	t.Setenv("CHATSEQ_HEAPPROFILE_AT", "1ms")
	stop, err := startProfile()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no heap profile at %s 30 s after its time (1ms)", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
