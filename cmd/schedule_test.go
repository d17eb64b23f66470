package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/report"
	"github.com/chatseq/chatseq/target"
)

// --schedule puts timed faults on bench's clock: a Kafka outage shows in
// results.json as a window, and publishes fail inside it and only there.
// The outage lasts 1.2 s: a 0.6 s one went by without a publish on a
// machine busy with CI's race stage and two other jobs (the writers
// starved), and the test failed.
func TestBenchScheduleInjectsTimedFaults(t *testing.T) {
	sched := filepath.Join(t.TempDir(), "outage.yaml")
	if err := os.WriteFile(sched, []byte("schedule:\n  - {fault: kafka_outage, at: 400ms, for: 1200ms}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, arg := range map[string]string{
		"file":   sched,
		"inline": "[{fault: kafka_outage, at: 400ms, for: 1200ms}]",
	} {
		dir := filepath.Join(t.TempDir(), "run")
		code, out, errOut := run(t, "bench", "--duration", "2500ms", "--writers", "3", "--chats", "4", "--quiet",
			"--publish-fail", "0", "--schedule", arg, "--out", dir)
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", name, code, out, errOut)
		}
		r, err := report.ReadResults(filepath.Join(dir, report.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Faults) != 1 || r.Faults[0].Kind != target.KafkaOutage || r.Faults[0].Start != 0.4 || r.Faults[0].End != 1.6 {
			t.Fatalf("%s: timed faults %+v, want one kafka-outage 0.4s-1.6s", name, r.Faults)
		}
		var inside, outside int64
		for _, iv := range r.Intervals {
			n := iv.ErrorCodes["publish_failed"]
			switch {
			case iv.Start >= 0.45 && iv.Start+iv.Length <= 1.55:
				inside += n
			case iv.Start+iv.Length <= 0.35 || iv.Start >= 1.7:
				outside += n
			}
		}
		if inside == 0 || outside != 0 {
			t.Errorf("%s: publish_failed %d inside the outage, %d well outside it; want some inside, none outside", name, inside, outside)
		}
	}
}

func TestBenchScheduleRefusesBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("- {fault: kafka_outage, at: 1s, for: 1s}\n- {fault: store_stal, at: 1s, for: 1s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--schedule", bad}, bad + ":2: schedule[1].fault"},
		{[]string{"--schedule", "{fault: kafka_outage, at: 1s, fr: 1s}"}, `--schedule:1: unknown key "schedule[0].fr" (did you mean for?)`},
		{[]string{"--schedule", "{fault: store_latency, at: 1s, for: 1s}"}, "store_latency needs latency:"},
		{[]string{"--schedule", "{fault: delete_counter, at: 1s, chat: 64}"}, "delete_counter names chat 64, but --chats 64 gives chats 0..63"},
		{[]string{"--schedule", "{fault: kafka_outage, at: 1s, for: 1s}", "--kafka", "off"}, "Kafka is off"},
		{[]string{"--schedule", "{fault: store_throttle, at: 0s, for: 1s}", "--target", "postgres"}, "store-throttle applies only to ADR-004's core"},
		{[]string{"--schedule", "[]"}, "lists no timed fault"},
		{[]string{"--schedule", "at: [1"}, "--schedule"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, append([]string{"bench"}, c.args...)...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}
