package history

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

type collectSink struct {
	events []Event
	finals []Final
}

func (c *collectSink) Event(e *Event) { c.events = append(c.events, *e) }
func (c *collectSink) Final(f *Final) { c.finals = append(c.finals, *f) }

// ScanFile hands a sink exactly the events and finals ReadFile keeps, in
// the same order, with the same header and warnings.
func TestScanFileHandsOverWhatReadFileKeeps(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, path := range files {
		want, err := ReadFile(path)
		if err != nil {
			continue // the malformed ones: ScanFile must fail on them too
		}
		tried++
		var got collectSink
		h, err := ScanFile(path, &got)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(h.Header, want.Header) || !reflect.DeepEqual(h.Warnings, want.Warnings) {
			t.Fatalf("%s: header or warnings differ", path)
		}
		if len(h.Events) != 0 || len(h.Finals) != 0 {
			t.Fatalf("%s: ScanFile kept lines", path)
		}
		if !reflect.DeepEqual(got.events, want.Events) || !reflect.DeepEqual(got.finals, want.Finals) {
			t.Fatalf("%s: the sink saw other lines than ReadFile keeps", path)
		}
	}
	if tried < 2 {
		t.Fatalf("only %d readable test files", tried)
	}
	for _, path := range files {
		if _, err := ReadFile(path); err == nil {
			continue
		}
		if _, err := ScanFile(path, &collectSink{}); err == nil {
			t.Fatalf("%s: ReadFile refuses it and ScanFile does not", path)
		}
	}
	if _, err := ScanFile(filepath.Join(t.TempDir(), "absent"), &collectSink{}); !os.IsNotExist(err) {
		t.Fatalf("a missing file: %v", err)
	}
}
