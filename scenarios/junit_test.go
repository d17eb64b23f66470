package scenarios

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
)

func junitSummary() *Summary {
	seed := int64(42)
	mk := func(file, name string, v Verdict, problems ...string) *Outcome {
		return &Outcome{
			Scenario: &Scenario{File: file, Name: name}, Config: bench.Config{Seed: seed},
			Verdict: v, Problems: problems, Elapsed: 1500 * time.Millisecond,
			History: "/tmp/out/" + name + ".jsonl", Lines: 12,
		}
	}
	failing := mk("scenarios/broken/racy.yaml", "racy", Fail, `sequence_uniqueness failed: seq 1 acked for "a" & "b" <twice>`, "linearizability failed\x00: control bytes")
	failing.Shrunk = &ShrinkResult{Writers: 2, Ops: 2, Chats: 1, Lines: 11, History: "/tmp/out/racy.shrunk.jsonl",
		Overrides: Overrides{Seed: &seed, Writers: 2, Ops: 2, Chats: 1}}
	slow := mk("scenarios/load/slow.yaml", "slow", ThresholdFail, `threshold "allocate.p99 < 50ms" (line 9) does not hold: measured 80ms`)
	slow.Thresholds = []ThresholdResult{{Expr: "allocate.p99 < 50ms", Line: 9, Actual: "80ms"}}
	broken := mk("scenarios/load/ddb.yaml", "ddb", RunError, "the run could not be carried out: no DynamoDB")
	broken.Err = errors.New("no DynamoDB")
	return &Summary{Elapsed: 6 * time.Second, Outcomes: []*Outcome{
		mk("scenarios/adr004/d1.yaml", "d1", Pass), failing, slow, broken,
	}}
}

// The report is well-formed XML that decodes back to what was written, in
// the shape CI servers read.
func TestJUnitRoundTrip(t *testing.T) {
	sum := junitSummary()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, sum, time.Date(2026, 1, 30, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	// Well-formed: a strict decoder reads every token.
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, buf.String())
		}
	}
	var got JUnitSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := JUnit(sum, time.Date(2026, 1, 30, 12, 0, 0, 0, time.UTC))
	want.XMLName = got.XMLName
	// Characters XML cannot hold come back replaced, not as they went in.
	want.Suites[1].Cases[0].Failure.Text = strings.ReplaceAll(want.Suites[1].Cases[0].Failure.Text, "\x00", "\uFFFD")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
	}

	if got.Tests != 4 || got.Failures != 2 || got.Errors != 1 || got.Skipped != 0 || got.Time != "6.000" {
		t.Fatalf("totals %+v", got)
	}
	if len(got.Suites) != 3 || got.Suites[0].Name != "scenarios/adr004" || got.Suites[2].Name != "scenarios/load" || got.Suites[2].Tests != 2 {
		t.Fatalf("suites by directory: %+v", got.Suites)
	}
	pass := got.Suites[0].Cases[0]
	if pass.Failure != nil || pass.Error != nil || pass.Classname != "scenarios.adr004" || pass.Time != "1.500" {
		t.Fatalf("passing case %+v", pass)
	}
	racy := got.Suites[1].Cases[0]
	if racy.Failure == nil || racy.Failure.Type != "fail" || !strings.HasPrefix(racy.Failure.Message, "sequence_uniqueness failed") ||
		!strings.Contains(racy.Failure.Text, "reproduce: chatseq run scenarios/broken/racy.yaml --seed 42") ||
		!strings.Contains(racy.Failure.Text, "reproduce the shrunk run: chatseq run scenarios/broken/racy.yaml --seed 42 --writers 2 --ops 2 --chats 1") {
		t.Fatalf("failing case %+v", racy.Failure)
	}
	slow := got.Suites[2].Cases[0]
	if slow.Failure == nil || slow.Failure.Type != "threshold" || !strings.Contains(slow.SystemOut, "threshold allocate.p99 < 50ms: 80ms (FAILED)") {
		t.Fatalf("threshold case %+v", slow)
	}
	ddb := got.Suites[2].Cases[1]
	if ddb.Error == nil || ddb.Failure != nil || !strings.Contains(ddb.Error.Text, "no DynamoDB") {
		t.Fatalf("error case %+v", ddb)
	}
}

// A scenario's suite and classname do not depend on how its path was
// typed: relative, with "./", or absolute.
func TestJUnitClassnameIsStable(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"adr004/d1.yaml", "./adr004/d1.yaml", filepath.Join(cwd, "adr004", "d1.yaml")} {
		sum := &Summary{Outcomes: []*Outcome{{Scenario: &Scenario{File: file, Name: "d1"}, Verdict: Pass}}}
		got := JUnit(sum, time.Time{})
		if s := got.Suites[0]; s.Name != "adr004" || s.Cases[0].Classname != "adr004" {
			t.Errorf("%s: suite %q, classname %q; want adr004 for both", file, s.Name, s.Cases[0].Classname)
		}
	}
}
