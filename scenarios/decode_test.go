package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// decodeErrors decodes src and returns its errors, failing the test if it
// decoded.
func decodeErrors(t *testing.T, src string) Errors {
	t.Helper()
	sc, err := Decode([]byte(src), "x.yaml")
	if err == nil {
		t.Fatalf("decoded without error: %+v\n%s", sc, src)
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error is %T, not Errors: %v", err, err)
	}
	return es
}

// wantError asserts one of es is at line and contains every fragment.
func wantError(t *testing.T, es Errors, line int, fragments ...string) {
	t.Helper()
	for _, e := range es {
		if e.Line != line || e.File != "x.yaml" {
			continue
		}
		ok := true
		for _, f := range fragments {
			ok = ok && strings.Contains(e.Msg, f)
		}
		if ok {
			prefix := "x.yaml:" + strconv.Itoa(line) + ": "
			if !strings.HasPrefix(e.Error(), prefix) {
				t.Fatalf("%q does not start with %q", e.Error(), prefix)
			}
			return
		}
	}
	t.Fatalf("no error at line %d containing %q; got:\n%v", line, fragments, es)
}

const validScenario = `name: full
description: every key
store: memory
strategy: occ
contract: {gaps: forbidden, key_reuse: return-original, events: at-least-once}
kafka: embedded
writers: 3
chats: 5
distribution: zipf
zipf_s: 1.5
rate: 200
duration: 1500ms
ops: 300
seed: -7
duplicate_after_ok: 5%
concurrent_duplicate: 0.1
reuse_key: 0.02
max_attempts: 7
republish_on_replay: false
sync_ratio: 0.25
sync_limit: 10
faults:
  stale_read: 0.01
  crash_after_allocate: 0.02
  crash_in_persist: 0.03
  crash_after_persist: 0.04
  publish_fail: 0.05
schedule:
  - {fault: kafka_outage, at: 100ms, for: 200ms}
  - {fault: store_latency, at: 0s, for: 1s, latency: 2ms}
  - {fault: store_stall, at: 1s, for: 50ms}
  - {fault: delete_counter, at: 1200ms, chat: 4}
initial_counter: 10
broken: retry-reallocates
thresholds:
  - allocate.p99 < 50ms
  - gap_rate < 5%
expect:
  violates: [idempotency_guarantee, gapless]
allow_unknown: [linearizability]
require: [sync_completeness, allocation_monotonicity]
retries: 2
`

func TestDecodeEveryKey(t *testing.T) {
	sc, err := Decode([]byte(validScenario), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Scenario{
		File: "x.yaml", Name: "full", Description: "every key", Target: "memory", Strategy: sequencer.Optimistic,
		Contract: history.Contract{Gaps: "forbidden", KeyReuse: "return-original", Events: "at-least-once"},
		Writers:  3, Chats: 5, Distribution: bench.Zipf, ZipfS: 1.5, Rate: 200, Duration: 1500 * time.Millisecond,
		Ops: 300, Seed: -7, DuplicateAfterOK: 0.05, ConcurrentDuplicate: 0.1, ReuseKey: 0.02, MaxAttempts: 7,
		RepublishOnReplay: false, SyncRatio: 0.25, SyncLimit: 10,
		Faults:         bench.FaultRates{StaleRead: 0.01, CrashAfterAllocate: 0.02, CrashInPersist: 0.03, CrashAfterPersist: 0.04, PublishFail: 0.05},
		InitialCounter: 10, Variant: sequencer.RetryReallocates,
		AllowUnknown: []string{"linearizability"},
		Require:      []string{"sync_completeness", "allocation_monotonicity"},
	}
	got := *sc
	if got.Name != want.Name || got.Description != want.Description || got.Target != want.Target ||
		got.Strategy != want.Strategy || got.Contract != want.Contract || got.Writers != want.Writers ||
		got.Chats != want.Chats || got.Distribution != want.Distribution || got.ZipfS != want.ZipfS ||
		got.Rate != want.Rate || got.Duration != want.Duration || got.Ops != want.Ops || got.Seed != want.Seed ||
		got.DuplicateAfterOK != want.DuplicateAfterOK || got.ConcurrentDuplicate != want.ConcurrentDuplicate ||
		got.ReuseKey != want.ReuseKey || got.MaxAttempts != want.MaxAttempts || got.RepublishOnReplay ||
		got.SyncRatio != want.SyncRatio || got.SyncLimit != want.SyncLimit || got.Faults != want.Faults ||
		got.InitialCounter != want.InitialCounter || got.Variant != want.Variant || got.KafkaOff || got.Retries != 2 {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
	}
	wantSchedule := []target.TimedFault{
		{Kind: target.KafkaOutage, At: 100 * time.Millisecond, For: 200 * time.Millisecond},
		{Kind: target.StoreLatency, At: 0, For: time.Second, Latency: 2 * time.Millisecond},
		{Kind: target.StoreStall, At: time.Second, For: 50 * time.Millisecond},
		{Kind: target.DeleteCounter, At: 1200 * time.Millisecond, Chat: 4},
	}
	if len(got.Schedule) != len(wantSchedule) {
		t.Fatalf("schedule %+v", got.Schedule)
	}
	for i := range wantSchedule {
		if got.Schedule[i] != wantSchedule[i] {
			t.Fatalf("schedule[%d] = %+v, want %+v", i, got.Schedule[i], wantSchedule[i])
		}
	}
	if !slices.Equal(got.AllowUnknown, want.AllowUnknown) || !slices.Equal(got.Require, want.Require) {
		t.Fatalf("allow_unknown %v, require %v", got.AllowUnknown, got.Require)
	}
	if strings.Join(got.Expect.Violates, ",") != "idempotency_guarantee,gapless" || got.Expect.Line != 38 {
		t.Fatalf("expect %+v", got.Expect)
	}
	if len(got.Thresholds) != 2 || got.Thresholds[0].Line != 36 || got.Thresholds[1].Value != 0.05 {
		t.Fatalf("thresholds %+v", got.Thresholds)
	}
	cfg := got.Config()
	cfg.HistoryPath = "h.jsonl"
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the decoded scenario's bench config is invalid: %v", err)
	}
}

func TestDecodeDefaults(t *testing.T) {
	sc, err := Decode([]byte("ops: 10\nexpect: pass\n"), "dir/my-scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "my-scenario" || sc.Target != "memory" || sc.Writers != 1 || sc.Chats != 1 ||
		sc.Seed != 1 || sc.MaxAttempts != 20 || !sc.RepublishOnReplay || sc.Faults != (bench.FaultRates{}) ||
		sc.Expect.Negative() || sc.Strategy != sequencer.TwoPhase {
		t.Fatalf("defaults: %+v", sc)
	}
}

func TestUnknownKeysNameFileLineAndSuggest(t *testing.T) {
	es := decodeErrors(t, `name: x
writer: 4
ops: 10
faults:
  crash_after_alocate: 0.1
schedule:
  - {fault: kafka_outage, at: 0s, for: 1s, latncy: 2ms}
expect: pass
`)
	wantError(t, es, 2, `unknown key "writer"`, "did you mean writers?")
	wantError(t, es, 5, `unknown key "faults.crash_after_alocate"`, "did you mean crash_after_allocate?")
	wantError(t, es, 7, `"schedule[0].latncy"`, "did you mean latency?")
}

func TestBadValuesNameTheLine(t *testing.T) {
	es := decodeErrors(t, `name: bad values
duration: 2 seconds
writers: many
chats: 0
sync_ratio: 1.5
strategy: two_phase
broken: racy-countr
distribution: zipf
zipf_s: 1
rate: -3
max_attempts: 2.5
republish_on_replay: yes
thresholds:
  - allocate.p99 < 50
  - alocate.p99 < 50ms
  - gap_rate < 500%
  - persisted = 1
  - allocate.p999 < 1s
  - throughput > fast
  - persisted == -1
expect: fail
`)
	wantError(t, es, 1, "name:", "must be 1-100 letters")
	wantError(t, es, 2, "duration", `"2 seconds" is not a duration`)
	wantError(t, es, 3, "writers", `"many" is not a whole number`)
	wantError(t, es, 4, "chats", "out of range")
	wantError(t, es, 5, "sync_ratio", "not a probability")
	wantError(t, es, 6, "strategy", "did you mean two-phase?")
	wantError(t, es, 7, "broken", "did you mean racy-counter?")
	wantError(t, es, 9, "zipf_s", "greater than 1")
	wantError(t, es, 10, "rate", "must be positive")
	wantError(t, es, 11, "max_attempts", "not a whole number")
	wantError(t, es, 12, "republish_on_replay", "not true or false")
	wantError(t, es, 14, `latency "50" needs a unit`)
	wantError(t, es, 15, `unknown metric "alocate.p99"`, "did you mean allocate.p99?")
	wantError(t, es, 16, "not a percentage")
	wantError(t, es, 17, `"=" is not a comparison`)
	wantError(t, es, 18, "percentile p999", "p99.9")
	wantError(t, es, 19, "not a throughput")
	wantError(t, es, 20, "not a count")
	wantError(t, es, 21, "expect", "not an expectation")
	for i := 1; i < len(es); i++ {
		if es[i-1].Line > es[i].Line {
			t.Fatalf("errors are not in line order: %v", es)
		}
	}
}

// initial_counter is every chat's counter before the run; a value that is
// not a whole number >= 0 must be refused at its line, never read as 0.
func TestBadInitialCounterNamesTheLine(t *testing.T) {
	for _, v := range []string{`-5`, `abc`, `"abc"`, `1.5`, `1e3`, `[1]`, `{n: 1}`, `0x10`, `""`, `~`} {
		es := decodeErrors(t, "name: ic\nops: 10\ninitial_counter: "+v+"\n")
		wantError(t, es, 3, "initial_counter")
	}
	sc, err := Decode([]byte("name: ic\nops: 10\nexpect: pass\ninitial_counter: 10\n"), "x.yaml")
	if err != nil || sc.InitialCounter != 10 {
		t.Fatalf("initial_counter: 10 decoded as %+v, %v", sc, err)
	}
}

// A broken variant whose step the strategy does not have would run a
// correct core; a strategy on a target without strategies would be a label.
func TestStrategyMismatchesNameTheLine(t *testing.T) {
	for _, v := range []string{"racy-counter", "ack-before-persist"} {
		es := decodeErrors(t, "name: b\nops: 10\nstrategy: occ\nbroken: "+v+"\nexpect: pass\n")
		wantError(t, es, 4, "broken: "+v, "strategy occ", "use strategy two-phase")
	}
	es := decodeErrors(t, "name: b\nops: 10\ntarget: ledger\nstrategy: occ\nexpect: pass\n")
	wantError(t, es, 4, "strategy: occ applies only to ADR-004's core", "target ledger")
	if _, err := Decode([]byte("name: b\nops: 10\nstrategy: occ\nbroken: unconditional-idempotency\nexpect: pass\n"), "x.yaml"); err != nil {
		t.Fatalf("unconditional-idempotency under occ: %v", err)
	}
}

// Store errors are DynamoDB's, injected only by ADR-004's core: asked of
// another target they are refused by line; on the core they decode.
func TestStoreErrorsDecodeForTheCoreOnly(t *testing.T) {
	src := "name: s\nduration: 1s\nexpect: pass\n%s\nfaults:\n  crash_before_allocate: 0.01\n  store_throttle: 0.02\n  store_internal_error: 3%%\n  txn_canceled_other: 0.04\n" +
		"schedule:\n  - {fault: store_throttle, at: 100ms, for: 50ms}\n  - {fault: store_internal_error, at: 200ms, for: 50ms}\n  - {fault: txn_canceled_other, at: 300ms, for: 50ms}\n"
	sc, err := Decode([]byte(fmt.Sprintf(src, "target: memory")), "x.yaml")
	if err != nil {
		t.Fatalf("store errors on memory: %v", err)
	}
	if f := sc.Faults; f.CrashBeforeAllocate != 0.01 || f.StoreThrottle != 0.02 || f.StoreInternalError != 0.03 || f.TxnCanceledOther != 0.04 {
		t.Fatalf("faults decoded as %+v", f)
	}
	if len(sc.Schedule) != 3 || sc.Schedule[0].Kind != target.StoreThrottle || sc.Schedule[1].Kind != target.StoreInternalError ||
		sc.Schedule[2].Kind != target.TxnCanceledOther || sc.Schedule[2].For != 50*time.Millisecond {
		t.Fatalf("schedule decoded as %+v", sc.Schedule)
	}
	es := decodeErrors(t, fmt.Sprintf(src, "target: ledger"))
	wantError(t, es, 7, "faults.store_throttle: store errors apply only to ADR-004's core", "target ledger")
	wantError(t, es, 8, "faults.store_internal_error")
	wantError(t, es, 9, "faults.txn_canceled_other")
	wantError(t, es, 11, "schedule: store-throttle applies only to ADR-004's core")
	wantError(t, es, 13, "schedule: txn-canceled-other")
	// The crash before step 3 every target injects.
	if _, err := Decode([]byte("name: s\nduration: 1s\nexpect: pass\ntarget: postgres\nfaults:\n  crash_before_allocate: 0.01\n"), "x.yaml"); err != nil {
		t.Fatalf("crash_before_allocate on postgres: %v", err)
	}
}

// A rate whose first interval reaches past the duration would send at most
// each writer's first operation.
func TestRateTooLowForTheDurationNamesTheLine(t *testing.T) {
	es := decodeErrors(t, "name: r\nwriters: 4\nduration: 3s\nrate: 1\nexpect: pass\n")
	wantError(t, es, 4, "rate: 1 with 4 writers", "4s apart", "give more than 1.33 operations/s")
	if _, err := Decode([]byte("name: r\nwriters: 4\nduration: 3s\nrate: 2\nexpect: pass\n"), "x.yaml"); err != nil {
		t.Fatalf("rate 2 over 4 writers for 3s: %v", err)
	}
}

func TestDurationsNeedUnits(t *testing.T) {
	es := decodeErrors(t, "ops: 1\nduration: 5\nexpect: pass\n")
	wantError(t, es, 2, `"5" needs a unit`, "5ms or 5s")
	es = decodeErrors(t, "ops: 1\nduration: -1s\nexpect: pass\n")
	wantError(t, es, 2, "negative")
	es = decodeErrors(t, "ops: 1\nschedule:\n  - {fault: kafka_outage, at: soon, for: 0s}\nexpect: pass\n")
	wantError(t, es, 3, "schedule[0].at", `"soon" is not a duration`)
	wantError(t, es, 3, "schedule[0].for", "longer than 0s")
}

// A timed fault that would hold the run past its end is refused at its
// line, named as the file names it.
func TestScheduleFaultsThatOutlastTheRun(t *testing.T) {
	es := decodeErrors(t, `duration: 300ms
schedule:
  - {fault: store_stall, at: 0s, for: 1h}
  - {fault: store_latency, at: 0s, for: 1s, latency: 2562047h}
  - {fault: store_stall, at: 100ms, for: 200ms}
expect: pass
`)
	wantError(t, es, 3, "schedule: store_stall from 0s to 1h0m0s outlasts the 300ms run")
	wantError(t, es, 4, "schedule: store_latency at 0s delays each store call by 2562047h0m0s, longer than the 300ms run")
	if len(es) != 2 {
		t.Errorf("%d errors, want 2 (a stall that ends with the run fits): %v", len(es), es)
	}
}

func TestCrossKeyProblems(t *testing.T) {
	es := decodeErrors(t, `name: cross
chats: 2
kafka: off
contract:
  events: at-least-once
zipf_s: 2
schedule:
  - {fault: delete_counter, at: 0s, chat: 2}
  - {fault: kafka_outage, at: 0s, for: 1s}
  - {fault: store_latency, at: 0s, for: 1s}
  - {fault: store_stall, at: 0s, for: 1s, chat: 1}
  - {at: 0s}
thresholds:
  - publish.p99 < 1s
expect:
  violates: [gapless, sequence_uniquenes]
`)
	wantError(t, es, 1, "give ops: (operations in total) or duration:")
	wantError(t, es, 5, "contract.events: at-least-once needs Kafka")
	wantError(t, es, 6, "zipf_s applies only with distribution: zipf")
	wantError(t, es, 8, "delete_counter names chat 2", "chats 0..1")
	wantError(t, es, 9, "kafka_outage with kafka: off")
	wantError(t, es, 10, "store_latency needs latency:")
	wantError(t, es, 11, "schedule[3].chat does not apply to store_stall")
	wantError(t, es, 12, "schedule[4]: fault: missing")
	wantError(t, es, 14, "with kafka: off nothing is published")
	wantError(t, es, 16, `unknown invariant "sequence_uniquenes"`, "did you mean sequence_uniqueness?")
	wantError(t, es, 15, "gapless is judged only under contract: {gaps: forbidden}")
}

func TestStructuralProblems(t *testing.T) {
	cases := []struct {
		src  string
		line int
		want string
	}{
		{"", 1, "empty scenario file"},
		{"- a\n- b\n", 1, "a scenario is a mapping"},
		{"ops: 1\nexpect: pass\n---\nops: 2\n", 3, "a second YAML document"},
		{"ops: 1\nops: 2\nexpect: pass\n", 2, "ops is given twice (first at line 1)"},
		{"ops: 1\nexpect: pass\nname: [a, b]\n", 3, "name: want a string, got a list"},
		{"ops: &n 1\nwriters: *n\nexpect: pass\n", 2, "anchors and aliases"},
		{"ops: 1\nexpect: pass\nwriters:\n", 3, "writers: missing value"},
		{"ops: 1\nexpect: pass\nfaults: 0.1\n", 3, "faults: want a mapping"},
		{"ops: 1\nexpect: {violates: []}\n", 2, "name at least one invariant"},
		{"ops: 1\nexpect: {fails: [gapless]}\n", 2, `unknown key "expect.fails"`},
		{"ops: 1\nwriters: 1\n", 1, "expect: missing"},
		{"ops: 1\n  writers: 2\nexpect: pass\n", 2, "not valid YAML"},
		{"ops: 1\nstore: memory\ntarget: memory\nexpect: pass\n", 3, "give store or target, not both"},
		{"ops: 1\ntarget: cassandra\nexpect: pass\n", 2, `unknown target "cassandra"`},
		{"ops: 1\nexpect:\n  violates: [gapless]\nallow_unknown: [gapless]\ncontract: {gaps: forbidden}\n", 4, "also expected to fail"},
		{"ops: 1\nexpect: pass\nrequire: [sync_complete]\n", 3, `require: unknown invariant "sync_complete" (did you mean sync_completeness?)`},
		{"ops: 1\nexpect: pass\nrequire:\n  - linearizability\n  - 7\n", 5, `unknown invariant "7"`},
		{"ops: 1\nexpect: pass\nrequire: {sync_completeness: true}\n", 3, "require: want a list"},
		{"ops: 1\nexpect: pass\nrequire: [gapless, gapless]\n", 3, "require: gapless is listed twice"},
		{"ops: 1\nexpect: pass\nrequire: [sync_completeness]\nallow_unknown: [sync_completeness]\n", 3, "require: sync_completeness is also in allow_unknown"},
	}
	for _, c := range cases {
		es := decodeErrors(t, c.src)
		wantError(t, es, c.line, c.want)
	}
}

func TestDecodeFileErrors(t *testing.T) {
	_, err := DecodeFile("/no/such/scenario.yaml")
	if err == nil || !strings.Contains(err.Error(), "/no/such/scenario.yaml") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestClosest(t *testing.T) {
	known := []string{"writers", "chats", "duration", "crash_after_allocate"}
	for in, want := range map[string]string{
		"writer": "writers", "Writers": "writers", "chat": "chats", "durration": "duration",
		"crash-after-allocate": "crash_after_allocate", "zzz": "", "x": "",
	} {
		if got := closest(in, known); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

// stages: ramps the open loop's rate (k6's ramping-arrival-rate): the run
// lasts their sum; each bad stage, and a rate or contradicting duration
// beside them, is an error at its line.
func TestDecodeStages(t *testing.T) {
	sc, err := Decode([]byte("name: r\nwriters: 2\nstages:\n  - {duration: 10s, target: 100}\n  - {duration: 30s, target: 2000}\nexpect: pass\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := bench.StagesString(sc.Stages); got != "10s:100,30s:2000" || sc.Duration != 40*time.Second {
		t.Fatalf("stages %s, duration %s: want 10s:100,30s:2000 over 40s", got, sc.Duration)
	}
	if cfg := sc.Config(); len(cfg.Stages) != 2 || cfg.Duration != 40*time.Second {
		t.Fatalf("the run's config: %+v over %s", cfg.Stages, cfg.Duration)
	}
	es := decodeErrors(t, `name: r
stages:
  - {duration: 0s, target: 100}
  - {duration: 1s, target: -5}
  - {target: 5}
  - {duration: 1s, target: 5, rate: 3}
expect: pass
`)
	wantError(t, es, 3, "stages[0].duration: a stage must last longer than 0s")
	wantError(t, es, 4, "stages[1].target: -5 must not be negative")
	wantError(t, es, 5, "stages[2]: duration: missing")
	wantError(t, es, 6, `unknown key "stages[3].rate"`)
	es = decodeErrors(t, "name: r\nrate: 100\nduration: 5s\nstages: [{duration: 1s, target: 100}]\nexpect: pass\n")
	wantError(t, es, 2, "rate: give rate or stages, not both")
	wantError(t, es, 3, "duration: 5s, but the stages last 1s")
	es = decodeErrors(t, "name: r\nstages: []\nexpect: pass\n")
	wantError(t, es, 2, "stages: give at least one stage")
	es = decodeErrors(t, "name: r\nstages: [{duration: 1s, target: 0}]\nexpect: pass\n")
	wantError(t, es, 2, "stages: start no operation")
	if _, err := Decode([]byte("name: r\nduration: 1s\nstages: [{duration: 1s, target: 50}]\nexpect: pass\n"), "x.yaml"); err != nil {
		t.Errorf("a duration equal to the stages' sum: %v", err)
	}
}

// serve: is true or false, and serves a design of the scenario's own: not
// target http (a service of the user's) nor the DynamoDB stores.
func TestServeNamesTheLine(t *testing.T) {
	es := decodeErrors(t, "ops: 10\nserve: maybe\nexpect: pass\n")
	wantError(t, es, 2, "serve", "not true or false")
	es = decodeErrors(t, "ops: 10\ntarget: http\nserve: true\nexpect: pass\n")
	wantError(t, es, 3, "serve: true serves the scenario's own design", "target: http drives a service of yours")
	es = decodeErrors(t, "ops: 10\nstore: dynamodb-local\nserve: true\nexpect: pass\n")
	wantError(t, es, 3, "serve: true serves memory, postgres")
	sc, err := Decode([]byte("ops: 10\ntarget: postgres\nvariant: sequence-in-tx\nserve: true\nexpect: pass\n"), "x.yaml")
	if err != nil || !sc.Serve || sc.Target != "postgres" || sc.Variant != "sequence-in-tx" {
		t.Fatalf("decoded %+v, %v; want postgres's sequence-in-tx served", sc, err)
	}
}

// A variant_on window that cannot do what it says is an error at its
// line, as bench --schedule refuses it (target.TimedFault.VariantProblem):
// a variant the strategy lacks would run the correct core, and the
// variant broken already runs changes nothing.
func TestDecodeRefusesAVariantWindowThatChangesNothing(t *testing.T) {
	es := decodeErrors(t, `name: w
writers: 4
duration: 3s
strategy: occ
schedule:
  - {fault: variant_on, at: 1s, for: 1s, variant: ack-before-persist}
expect: pass
`)
	wantError(t, es, 6, "schedule: variant_on at 1s with strategy occ: ack-before-persist")
	es = decodeErrors(t, `name: w
writers: 4
duration: 3s
broken: racy-counter
schedule:
  - {fault: variant_on, at: 1s, for: 1s, variant: racy-counter}
expect:
  violates: [sequence_uniqueness]
`)
	wantError(t, es, 6, "changes nothing: the core runs racy-counter throughout")
}

// A variant_on window that overlaps an earlier one is refused at its
// line (target.VariantOverlap).
func TestDecodeRefusesOverlappingVariantWindows(t *testing.T) {
	es := decodeErrors(t, `name: w
writers: 4
duration: 5s
schedule:
  - {fault: variant_on, at: 1s, for: 2s, variant: racy-counter}
  - {fault: variant_on, at: 2s, for: 2s, variant: unconditional-idempotency}
expect: pass
`)
	wantError(t, es, 6, "schedule: variant_on unconditional-idempotency from 2s for 2s overlaps racy-counter from 1s for 2s")
}

// A YAML syntax error names the line it is on: yaml.v3 counts its
// parser's lines from 0, so an unclosed '{' or '[' was named a line
// early, and a NUL byte at no line. Found by an outside walk-through.
func TestAYAMLSyntaxErrorNamesItsLine(t *testing.T) {
	head := "description: t\nwriters: 2\nchats: 2\nduration: 300ms\nkafka: off\nexpect: pass\n"
	for _, c := range []struct {
		name, data string
		line       int
	}{
		{"an unclosed flow mapping", head + "faults: {stale_read: 0.1\n", 7},
		{"an unclosed flow sequence", head + "schedule: [ {fault: store_stall, at: 0s, for: 1ms}\n", 7},
		{"a NUL byte", "description: t\nwriters: 2\nexpect: pass\x00\n", 3},
		{"a tab indenting (a scanner's error)", head + "faults:\n\tstale_read: 0.1\n", 8},
	} {
		_, err := Decode([]byte(c.data), "s.yaml")
		var errs Errors
		if !errors.As(err, &errs) || len(errs) == 0 || errs[0].Line != c.line {
			t.Errorf("%s: %v; want an error at line %d", c.name, err, c.line)
		}
	}
}
