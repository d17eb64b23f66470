package scenarios

import (
	"errors"
	"os"
	"testing"
)

// FuzzDecode feeds the decoder arbitrary bytes. It must never panic, must
// answer with a scenario or with Errors that each name the file, and a
// scenario it accepts must be one the runner accepts too: decoding is
// where bad input is caught, with a line number, not halfway into a run.
//
//	go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 30s ./scenarios/
func FuzzDecode(f *testing.F) {
	files, err := Collect([]string{"."})
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		validScenario,
		"",
		"ops: 1\nexpect: pass\n",
		"ops: &a 1\nwriters: *a\nexpect: pass\n",
		"expect: {violates: [gapless]}\ncontract: {gaps: forbidden}\nduration: 1s\n",
		"schedule: [{fault: delete_counter, at: 0s, chat: 99999999999999999999}]\n",
		"thresholds: ['allocate.p99.9.9 < 1ms', 'errors.x >= 18446744073709551616']\n",
		"? [a, b]\n: c\n",
		"ops: 1\nexpect: pass\n---\n---\n",
		"{ops: 1, expect: pass, rate: closed, seed: -9223372036854775808}",
		"!!binary aGVsbG8=",
		"ops: 1e3\nexpect: pass\n",
		"ops: 1\nexpect: pass\nduration: 9223372036854775807ns\n",
		"stages: [{duration: 1s, target: 100}, {duration: 2562047h, target: 1e-300}]\nexpect: pass\n",
		"stages: [{duration: 1ns, target: 8e9}, {duration: 1s, target: 0}]\nwriters: 8\nexpect: pass\n",
		"stages: [{duration: 1s, target: 5}]\nrate: closed\nops: 3\nexpect: pass\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Decode(data, "fuzz.yaml")
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T %v is not a non-empty Errors", err, err)
			}
			for _, e := range es {
				if e.File != "fuzz.yaml" || e.Line < 0 || e.Msg == "" {
					t.Fatalf("malformed error %+v", e)
				}
			}
			return
		}
		cfg := sc.Config()
		cfg.HistoryPath = "h.jsonl"
		if err := cfg.Validate(); err != nil {
			t.Fatalf("decoded a scenario the runner rejects: %v\n%q", err, data)
		}
		for _, th := range sc.Thresholds {
			th.Evaluate(fakeMetrics)
		}
	})
}
