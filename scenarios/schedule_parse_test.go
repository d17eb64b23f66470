package scenarios

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/target"
)

func TestParseScheduleForms(t *testing.T) {
	want := []target.TimedFault{
		{Kind: target.KafkaOutage, At: 500 * time.Millisecond, For: 200 * time.Millisecond},
		{Kind: target.StoreLatency, At: time.Second, For: time.Second, Latency: 2 * time.Millisecond},
	}
	for _, text := range []string{
		"[{fault: kafka_outage, at: 500ms, for: 200ms}, {fault: store_latency, at: 1s, for: 1s, latency: 2ms}]",
		"schedule:\n  - {fault: kafka_outage, at: 500ms, for: 200ms}\n  - fault: store_latency\n    at: 1s\n    for: 1s\n    latency: 2ms\n",
	} {
		got, err := ParseSchedule([]byte(text), "s")
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%q: %+v, want %+v", text, got, want)
		}
	}
	one, err := ParseSchedule([]byte("{fault: delete_counter, at: 1s, chat: 3}"), "s")
	if err != nil || len(one) != 1 || one[0] != (target.TimedFault{Kind: target.DeleteCounter, At: time.Second, Chat: 3}) {
		t.Fatalf("one fault: %+v, %v", one, err)
	}
}

// FuzzParseSchedule: any input is a schedule every fault of which bench
// accepts, or Errors naming the source; never a panic.
//
//	go test -run '^$' -fuzz '^FuzzParseSchedule$' -fuzztime 30s ./scenarios/
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{
		"[{fault: kafka_outage, at: 500ms, for: 200ms}]",
		"schedule: [{fault: store_latency, at: 0s, for: 1s, latency: 1ms}]",
		"{fault: delete_counter, at: 1s, chat: 3}",
		"schedule:\n  - {fault: txn_canceled_other, at: 1s, for: 1s}\nschedule: []\n",
		"", "[]", "- a\n---\n- b", "{fault: &x kafka_outage, at: *x}", "[{fault: store_stall, at: -1s, for: 9223372036854775807ns}]",
		"[{fault: store_stall,at: 0,for: 9223372036854775807ns}]",
		"[{fault: store_stall,at: 1s,for: 9223372036854775807ns}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		faults, err := ParseSchedule(data, "fuzz")
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %v is not Errors", err)
			}
			for _, e := range errs {
				if e.File != "fuzz" || e.Msg == "" {
					t.Fatalf("error %+v does not name the source", e)
				}
			}
			return
		}
		// How long the run lasts and whether it has receivers are the
		// run's, not the schedule's: give the run what the schedule asks
		// for, so that what is judged here is the faults themselves.
		// A fault striking the receivers needs some, and one that names a
		// chat needs that many chats: a run of both can have too many
		// devices, which bench refuses as such.
		cfg := bench.DefaultConfig()
		cfg.Chats = 1
		for _, f := range faults {
			cfg.Chats = max(cfg.Chats, f.Chat+1)
			if slices.Contains(target.ReceiverKinds(), f.Kind) {
				cfg.Receivers = 1
			}
		}
		cfg.Duration = runCovering(faults)
		cfg.Timed = faults
		err = cfg.Validate()
		if tooManyDevices := cfg.Receivers*cfg.Chats > bench.MaxDevices; tooManyDevices {
			if err == nil || !strings.Contains(err.Error(), "devices, more than") {
				t.Fatalf("%q with a receiver on each of %d chats: %v, want too many devices refused", data, cfg.Chats, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("accepted %q, but bench refuses it: %v", data, err)
		}
	})
}

// runCovering is a run's duration long enough for every fault of the
// schedule to start and end within it (a window beyond the clock's range
// stays refused: no run can hold it).
func runCovering(faults []target.TimedFault) time.Duration {
	d := time.Hour
	for _, f := range faults {
		if f.For > 0 && f.At > math.MaxInt64-f.For {
			continue
		}
		for _, need := range []time.Duration{f.At + f.For, f.Latency} {
			switch {
			case need < d:
			case need < math.MaxInt64-time.Second:
				d = need + time.Second
			default:
				// A window ending at the clock's last nanoseconds: the
				// longest run holds it (the fuzzer's at 0s for
				// 9223372036854775807ns was refused for the hour).
				d = math.MaxInt64
			}
		}
	}
	return d
}

// variant_on switches a broken variant of the core on for a window; one
// that cannot be switched while a run goes, or no variant, is refused
// with its line.
func TestParseScheduleVariantWindow(t *testing.T) {
	got, err := ParseSchedule([]byte("{fault: variant_on, at: 30s, for: 10m, variant: racy-counter}"), "s")
	want := target.TimedFault{Kind: target.VariantOn, At: 30 * time.Second, For: 10 * time.Minute, Variant: "racy-counter"}
	if err != nil || len(got) != 1 || got[0] != want {
		t.Fatalf("%+v, %v", got, err)
	}
	for text, msg := range map[string]string{
		"{fault: variant_on, at: 1s, for: 1s, variant: sync-watermark}": "cannot be switched on while a run goes",
		"{fault: variant_on, at: 1s, for: 1s, variant: correct}":        "not a broken variant",
		"{fault: variant_on, at: 1s, for: 1s, variant: nope}":           "not a broken variant",
		"{fault: variant_on, at: 1s, for: 1s}":                          "needs variant:",
		"{fault: kafka_outage, at: 1s, for: 1s, variant: racy-counter}": "does not apply to kafka_outage",
	} {
		_, err := ParseSchedule([]byte(text), "s")
		var errs Errors
		if !errors.As(err, &errs) || len(errs) == 0 || errs[0].Line != 1 || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error at line 1 saying %q", text, err, msg)
		}
	}
	// An unknown name is answered with the names a window can take, not
	// one it would then refuse.
	_, err = ParseSchedule([]byte("{fault: variant_on, at: 1s, for: 1s, variant: nope}"), "s")
	if err == nil || !strings.Contains(err.Error(), "those that can: racy-counter, ack-before-persist, unconditional-idempotency, retry-reallocates)") || strings.Contains(err.Error(), "sync-watermark") {
		t.Errorf("an unknown variant: %v, want the switchable variants listed, sync-watermark not among them", err)
	}
}

// The receivers' faults parse to their kinds, each with its window.
func TestParseScheduleReceiverFaults(t *testing.T) {
	got, err := ParseSchedule([]byte("[{fault: drop_connections, at: 1s, for: 200ms}, {fault: drop_connections, at: 2s, for: 1ms}, {fault: slow_receivers, at: 3s, for: 1s}]"), "s")
	want := []target.TimedFault{
		{Kind: target.DropConnections, At: time.Second, For: 200 * time.Millisecond},
		{Kind: target.DropConnections, At: 2 * time.Second, For: time.Millisecond},
		{Kind: target.SlowReceivers, At: 3 * time.Second, For: time.Second},
	}
	if err != nil || len(got) != len(want) {
		t.Fatalf("%+v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("fault %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	for text, msg := range map[string]string{
		"{fault: slow_receivers, at: 1s, for: 0s}":          "longer than 0s",
		"{fault: drop_connections, at: 1s}":                 "needs for:",
		"{fault: drop_connections, at: 1s, latency: 1ms}":   "does not apply to drop_connections",
		"{fault: slow_receivers, at: 1s, for: 1s, chat: 0}": "does not apply to slow_receivers",
	} {
		_, err := ParseSchedule([]byte(text), "s")
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error saying %q", text, err, msg)
		}
	}
}

// --schedule takes a file or an inline schedule: a file is read, inline
// text parsed, and a word that is neither (a mistyped file name) is
// answered as a missing file, not as a schedule that is not a list.
func TestParseScheduleArgTellsAMissingFileFromInlineText(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yml")
	if err := os.WriteFile(file, []byte("- {fault: kafka_outage, at: 1s, for: 500ms}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{file, "{fault: kafka_outage, at: 1s, for: 500ms}"} {
		if got, err := ParseScheduleArg(arg); err != nil || len(got) != 1 || got[0].Kind != target.KafkaOutage {
			t.Errorf("%s: %+v, %v", arg, got, err)
		}
	}
	for arg, want := range map[string]string{
		filepath.Join(dir, "sched.yml"): "no such file, and not an inline schedule",
		dir:                             "a directory, and not an inline schedule",
		"kafka_outage":                  "no such file, and not an inline schedule",
	} {
		if _, err := ParseScheduleArg(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
}

// A whole scenario file given to --schedule says so and how to run it,
// rather than listing its keys as unknown keys of one timed fault.
func TestAScenarioGivenAsAScheduleSaysSo(t *testing.T) {
	_, err := ParseSchedule([]byte("name: ff\ntarget: memory\nschedule:\n  - {fault: variant_on, at: 1s, for: 1s, variant: racy-counter}\nexpect: pass\n"), "ff.yaml")
	if err == nil || !strings.Contains(err.Error(), "ff.yaml:1: a whole scenario (it has name:, target:, schedule:, expect:), not a schedule: run it with `chatseq run ff.yaml`") {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), "unknown key") {
		t.Fatalf("listed the scenario's keys as unknown: %v", err)
	}
}
