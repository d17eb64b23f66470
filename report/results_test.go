package report

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// results.json reads back to exactly what was written, and it says what a
// report needs: per-second counts that add up to the run, its timed faults
// and its files.
func TestResultsRoundTrip(t *testing.T) {
	for name, f := range map[string]*fixtureRun{"healthy": healthyRun(t), "faulty": faultyRun(t)} {
		got, err := ReadResults(filepath.Join(f.dir, ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		if want := f.saved.Results; !reflect.DeepEqual(got, want) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(want)
			t.Fatalf("%s: results.json read back differs\nread:    %.600s\nwritten: %.600s", name, a, b)
		}
		if got.Schema != ResultsSchema || got.Version != ResultsVersion {
			t.Errorf("%s: schema %q version %d", name, got.Schema, got.Version)
		}
		var ops, retries, allocations int64
		for _, iv := range got.Intervals {
			ops += iv.Operations
			retries += iv.Retries
			allocations += iv.Allocations
		}
		if ops != got.Operations || retries != got.Retries {
			t.Errorf("%s: intervals add up to %d ops and %d retries, the run has %d and %d", name, ops, retries, got.Operations, got.Retries)
		}
		if allocations != int64(got.Check.Stats.Allocations) {
			t.Errorf("%s: intervals date %d allocations, the history traces %d", name, allocations, got.Check.Stats.Allocations)
		}
		timed := f.res.Config.Timed
		if len(got.Faults) != len(timed) {
			t.Fatalf("%s: %d timed faults saved, the run had %d", name, len(got.Faults), len(timed))
		}
		for i, w := range got.Faults {
			if w.Kind != timed[i].Kind || w.Start != timed[i].At.Seconds() || w.End != (timed[i].At+timed[i].For).Seconds() {
				t.Errorf("%s: fault window %+v, the run had %+v", name, w, timed[i])
			}
		}
	}

	faulty := faultyRun(t).saved.Results
	if faulty.Check.Valid == nil || *faulty.Check.Valid {
		t.Error("the ack-before-persist run should fail its check")
	}
	if d := faulty.Faults[1]; d.ChatIndex == nil || *d.ChatIndex != 1 {
		t.Errorf("delete-counter window %+v, want chat 1", d)
	}
	if len(faulty.Files.Visualizations) == 0 {
		t.Fatal("no porcupine visualization listed for the non-linearizable run")
	}
	for _, v := range faulty.Files.Visualizations {
		st, err := os.Stat(filepath.Join(faultyRun(t).dir, v.File))
		if err != nil || st.Size() != v.Bytes {
			t.Errorf("visualization %+v: %v", v, err)
		}
	}
}

// Another schema or version is refused with a message naming it, not
// misread.
func TestReadResultsRefusesOtherSchemas(t *testing.T) {
	f := faultyRun(t)
	data, err := os.ReadFile(filepath.Join(f.dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string]string{
		"version":  strings.Replace(string(data), `"schema_version": 1`, `"schema_version": 7`, 1),
		"schema":   strings.Replace(string(data), `"schema": "chatseq-results"`, `"schema": "something-else"`, 1),
		"not json": "{\"schema\": ",
		"history":  `{"format":"chatseq-history","version":1}`,
	}
	wants := map[string]string{"version": "schema_version 7", "schema": `"something-else"`, "not json": "not a chatseq results file", "history": `schema is ""`}
	for name, content := range cases {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadResults(path)
		if !errors.Is(err, ErrNotResults) || !strings.Contains(err.Error(), wants[name]) {
			t.Errorf("%s: error %v, want ErrNotResults naming %q", name, err, wants[name])
		}
	}
}

// docs/results.md documents every field results.json has of its own, and
// every summary field it documents is still there: a rename would need
// the schema version raised.
func TestResultsFieldsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := func(key string) bool { return strings.Contains(string(doc), "`"+key+"`") }
	own := map[string]bool{"schema": true, "schema_version": true, "started": true, "config": true, "timed_faults": true, "intervals": true, "files": true,
		"delivery_intervals": true, "connection_drops": true}
	summary := []string{"run", "operations", "throughput_ops_s", "persists", "syncs", "ok", "persist_ok", "sync_ok", "dedup",
		"fail", "info", "retries", "faults_injected", "duplicates_sent", "concurrent_duplicates", "error_codes",
		"allocated_sequences", "persisted_messages", "gap_rate", "idempotency_hit_rate", "events_read", "latency", "check"}
	for _, f := range []*fixtureRun{healthyRun(t), faultyRun(t), receiversRun(t)} {
		data, err := os.ReadFile(filepath.Join(f.dir, ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatal(err)
		}
		for _, key := range summary {
			if _, ok := top[key]; !ok {
				t.Errorf("results.json lost the documented summary field %q", key)
			}
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				if path == "error_codes" || strings.HasSuffix(path, ".error_codes") {
					return // keys are error codes, not fields
				}
				for k, child := range v {
					if !documented(k) {
						t.Errorf("results.json field %s.%s is not in docs/results.md", path, k)
					}
					walk(path+"."+k, child)
				}
			case []any:
				for _, child := range v {
					walk(path+"[]", child)
				}
			}
		}
		for key := range own {
			if !documented(key) {
				t.Errorf("results.json field %q is not in docs/results.md", key)
			}
			walk(key, top[key])
		}
	}
}
