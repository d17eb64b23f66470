package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
)

func TestParseThreshold(t *testing.T) {
	cases := []struct {
		expr, metric, op string
		value            float64
	}{
		{"allocate.p99 < 50ms", "allocate.p99", "<", float64(50 * time.Millisecond)},
		{"persist.p99<100ms", "persist.p99", "<", float64(100 * time.Millisecond)},
		{"end_to_end.p99.9 < 1s", "end_to_end.p99.9", "<", float64(time.Second)},
		{"sync.max <= 1.5s", "sync.max", "<=", float64(1500 * time.Millisecond)},
		{"service.mean < 800µs", "service.mean", "<", float64(800 * time.Microsecond)},
		{"gap_rate < 5%", "gap_rate", "<", 0.05},
		{"gap_rate >= 0.035", "gap_rate", ">=", 0.035},
		{"throughput > 1000", "throughput", ">", 1000},
		{"throughput > 1000/s", "throughput", ">", 1000},
		{"errors.counter_missing >= 1", "errors.counter_missing", ">=", 1},
		{"persisted == 0", "persisted", "==", 0},
		{"dedup > 0", "dedup", ">", 0},
		{"allocate.count != 3", "allocate.count", "!=", 3},
		{"  max_seq   ==   11  ", "max_seq", "==", 11},
		// Sequences go up to 2^64-1: a count past 2^63 was refused.
		{"max_seq < 18446744073709551615", "max_seq", "<", 18446744073709551615},
	}
	for _, c := range cases {
		th, err := ParseThreshold(c.expr)
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if th.Metric != c.metric || th.Op != c.op || th.Value != c.value {
			t.Errorf("%q parsed as %q %q %v, want %q %q %v", c.expr, th.Metric, th.Op, th.Value, c.metric, c.op, c.value)
		}
	}
}

func TestParseThresholdErrors(t *testing.T) {
	cases := map[string]string{
		"allocate.p99":             "no comparison",
		"< 5ms":                    "names no metric",
		"allocate.p99 <":           "no value",
		"allocate.p99 < 5":         `latency "5" needs a unit`,
		"allocate.p99 < fast":      "not a duration",
		"allocate.p99 < -5ms":      "not a duration",
		"allocate.p0 < 5ms":        "0 < N ≤ 100",
		"allocate.p101 < 5ms":      "0 < N ≤ 100",
		"allocate.median < 5ms":    "unknown latency statistic",
		"alocate.p99 < 5ms":        "did you mean allocate.p99?",
		"frobs > 3":                "metrics are STEP.pN",
		"gap_rate < 5":             "not a rate",
		"allocate.p99 < Inf":       `"Inf" is not a duration`,                      // not "needs a unit, e.g. Infms"
		"gap_rate < 1":             "ambiguous for a rate: write 100% (all) or 1%", // it held at 4.37%, meant as 1%
		"gap_rate < 120%":          "not a percentage",
		"throughput > lots":        "not a throughput",
		"persisted == 1.5":         "not a count",
		"persisted == -1":          "not a count",
		"errors. > 1":              "needs an error code",
		"0 < persisted < 5":        "more than one comparison",
		"persisted > 1 < 5":        "more than one comparison",
		"allocate.p99 =< 5ms":      `"=<" is not a comparison`,
		"gap_rate =! 5%":           `"=!" is not a comparison`,
		"persisted = 1":            `"=" is not a comparison`,
		"allocate.p99 < 5ms; wait": "not a duration",
		// Hexadecimal, which strconv.ParseFloat takes: p0x1p6 was p64.
		"allocate.p0x1p6 < 5ms": "0 < N ≤ 100",
		"gap_rate < 0x1p-2":     "not a rate",
		"gap_rate < 0x1p2%":     "not a percentage",
		"throughput > 0x10":     "not a throughput",
	}
	for expr, want := range cases {
		_, err := ParseThreshold(expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", expr, err, want)
		}
	}
}

// fakeMetrics are the figures of a run that never ran.
var fakeMetrics = newFakeMetrics()

func newFakeMetrics() *Metrics {
	lat := map[bench.Step]*hdrhistogram.Histogram{}
	for _, s := range bench.Steps() {
		lat[s] = hdrhistogram.New(1, int64(time.Hour), 3)
	}
	for i := 1; i <= 100; i++ { // allocate: 1ms .. 100ms
		_ = lat[bench.StepAllocate].RecordValue(int64(i) * int64(time.Millisecond)) // in range
	}
	res := &bench.Result{
		Config:  bench.Config{Chats: 2},
		Elapsed: 2 * time.Second,
		Counts: bench.Counts{
			Operations: 1000, Persists: 900, Syncs: 100, OK: 950, PersistOK: 850, SyncOK: 100, Dedup: 85,
			Fail: 10, Info: 40, Retries: 40, ErrorCodes: map[string]int64{"counter_missing": 10, "crash_after_allocate": 37, "http_503": 3},
		},
		Latency: lat, Allocations: 100 + 2*10, Persisted: 95, CountersRead: true, MessagesRead: true,
		Lateness: bench.Lateness{Started: 900, Late: 300, Unsent: 1200},
	}
	rep := checker.Report{Stats: checker.Stats{Allocations: 100, MaxAckedSeq: 42}}
	return NewMetrics(res, rep, true, 10)
}

func TestEvaluateThresholds(t *testing.T) {
	m := fakeMetrics
	cases := []struct {
		expr   string
		ok     bool
		actual string
	}{
		{"allocate.p99 < 150ms", true, "99ms"},
		{"allocate.p99 < 50ms", false, "99ms"},
		// Latencies are HdrHistogram's, to three significant digits: the
		// same figures chatseq bench reports.
		{"allocate.p50 < 50.1ms", true, "50ms"},
		{"allocate.max < 100.1ms", true, "100ms"},
		{"allocate.min > 990us", true, "1ms"},
		{"allocate.count == 100", true, "100"},
		{"persist.p99 < 1s", false, "no data"}, // never ran: cannot be vouched for
		{"persist.count == 0", true, "0"},
		{"gap_rate == 5%", true, "5.00%"}, // 100 traced allocations, 95 messages
		{"gap_rate > 6%", false, "5.00%"},
		{"gaps == 5", true, "5"},
		{"throughput == 500", true, "500 ops/s"},
		{"errors.counter_missing >= 1", true, "10"},
		{"errors.not_a_member == 0", true, "0"},
		// A code no operation ended with, a letter (or a case) away from
		// one that many did, is a misspelling, not a count of 0 that
		// holds (an outside tester's); a code of other digits is another.
		{"errors.crash_after_alocate == 0", false, `no operation ended with error code "crash_after_alocate", but 37 with "crash_after_allocate": a misspelt code?`},
		{"errors.Counter_Missing == 0", false, `no operation ended with error code "Counter_Missing", but 10 with "counter_missing": a misspelt code?`},
		{"errors.http_500 == 0", true, "0"},
		{"errors == 50", true, "50"},
		{"persisted == 95", true, "95"},
		{"dedup > 0", true, "85"},
		{"idempotency_hit_rate == 10%", true, "10.00%"},
		{"max_seq == 42", true, "42"},
		{"fail != 10", false, "10"},
		{"unsent_starts == 0", false, "1200"}, // an open loop that fell behind
		{"late_starts < 100", false, "300"},
	}
	for _, c := range cases {
		th, err := ParseThreshold(c.expr)
		if err != nil {
			t.Fatalf("%q: %v", c.expr, err)
		}
		r := th.Evaluate(m)
		if r.OK != c.ok || r.Actual != c.actual {
			t.Errorf("%q: ok %v, actual %q; want %v, %q", c.expr, r.OK, r.Actual, c.ok, c.actual)
		}
	}
}

// A table the final state did not give leaves its figures without data:
// gaps == 0 held of a service without its counter hook (no counter read)
// whose messages table had 301 holes (an outside tester's).
func TestFiguresOfUnreadTablesHaveNoData(t *testing.T) {
	for _, c := range []struct {
		name                       string
		countersRead, messagesRead bool
		traced                     int
		noData                     []string
		known                      []string
	}{
		{"no counter read", false, true, 0, []string{"allocated", "gaps", "gap_rate"}, []string{"persisted"}},
		{"no message read", true, false, 0, []string{"persisted", "gaps", "gap_rate"}, []string{"allocated"}},
		{"traced, no counter read", false, true, 70, nil, []string{"allocated", "gaps", "gap_rate", "persisted"}},
		{"both read", true, true, 0, nil, []string{"allocated", "gaps", "gap_rate", "persisted"}},
	} {
		res := &bench.Result{Config: bench.Config{Chats: 2}, Allocations: 2*10 + 70, Persisted: 45,
			CountersRead: c.countersRead, MessagesRead: c.messagesRead, Counts: bench.Counts{ErrorCodes: map[string]int64{}}}
		m := NewMetrics(res, checker.Report{Stats: checker.Stats{Allocations: c.traced}}, true, 10)
		for _, name := range c.noData {
			th, err := ParseThreshold(name + " >= 0")
			if err != nil {
				t.Fatal(err)
			}
			if r := th.Evaluate(m); r.OK || r.Actual != "no data" {
				t.Errorf("%s: %s >= 0: ok %v, actual %q; want no data", c.name, name, r.OK, r.Actual)
			}
		}
		for _, name := range c.known {
			if _, ok := m.Value(name); !ok {
				t.Errorf("%s: %s has no data", c.name, name)
			}
		}
	}
}

// A count is compared exactly: past 2^53, where a float64 holds only even
// numbers, max_seq == 2^53 held of a run whose highest sequence was
// 2^53+1 (an outside tester's, with initial_counter: 2^53).
func TestCountsCompareExactlyPast2To53(t *testing.T) {
	res := &bench.Result{Counts: bench.Counts{ErrorCodes: map[string]int64{}}}
	m := NewMetrics(res, checker.Report{Stats: checker.Stats{MaxAckedSeq: 1<<53 + 1}}, true, 1<<53)
	for _, c := range []struct {
		expr string
		ok   bool
	}{
		{"max_seq == 9007199254740992", false},
		{"max_seq != 9007199254740993", false},
		{"max_seq > 9007199254740992", true},
		{"max_seq == 9007199254740993", true},
		{"max_seq <= 18446744073709551615", true},
	} {
		th, err := ParseThreshold(c.expr)
		if err != nil {
			t.Fatalf("%q: %v", c.expr, err)
		}
		if r := th.Evaluate(m); r.OK != c.ok || r.Actual != "9007199254740993" {
			t.Errorf("%q: ok %v, actual %q; want %v, 9007199254740993", c.expr, r.OK, r.Actual, c.ok)
		}
	}
}

// Without traces, this run's allocations are the counters less where they
// started, so an initial_counter is not counted as gaps.
func TestGapRateWithoutTraces(t *testing.T) {
	res := &bench.Result{Config: bench.Config{Chats: 2}, Allocations: 2*10 + 50, Persisted: 45, CountersRead: true, MessagesRead: true, Counts: bench.Counts{ErrorCodes: map[string]int64{}}}
	m := NewMetrics(res, checker.Report{}, true, 10)
	if v, ok := m.Value("gap_rate"); !ok || v != 0.1 {
		t.Fatalf("gap_rate %v %v, want 0.1", v, ok)
	}
	empty := NewMetrics(&bench.Result{Counts: bench.Counts{ErrorCodes: map[string]int64{}}}, checker.Report{}, true, 0)
	if _, ok := empty.Value("gap_rate"); ok {
		t.Fatal("a run without allocations has a gap rate")
	}
}

// Whatever a --threshold or a scenario's thresholds: line holds, parsing
// it ends in an error or in a threshold with a metric, one of the
// operators and a number to compare with, never a panic; an error quotes
// the expression.
func FuzzParseThreshold(f *testing.F) {
	for _, seed := range []string{
		"allocate.p99 < 50ms", "gap_rate <= 5%", "throughput >= 1000/s", "errors.counter_missing == 0",
		"persist.p99.9 < 1s", "x = 1", "a < b < c", "== 3", "gap_rate <", "persist.p0 < 1ms", "persist.p1e2 < 1ms",
		"idempotency_hit_rate > 0.5", "throughput > NaN", "throughput > +Inf", "persist.count != 18446744073709551616",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		th, err := ParseThreshold(expr)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", expr)) && !strings.HasPrefix(err.Error(), "errors.") {
				t.Fatalf("%q: the error does not quote the expression: %v", expr, err)
			}
			return
		}
		if th.Metric == "" || !slices.Contains(operators, th.Op) || math.IsNaN(th.Value) || math.IsInf(th.Value, 0) {
			t.Fatalf("%q parsed as %+v", expr, th)
		}
	})
}
