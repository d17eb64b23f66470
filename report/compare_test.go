package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// sampled is a run whose intervals hold the given per-interval samples:
// throughput (operations per 0.1 s interval ×10) and persist's p50, p90
// and p99 all equal to latency[i] milliseconds, each of persistsPerInterval
// operations.
func sampled(ops []int64, latency []float64) Results {
	r := Results{IntervalS: 0.1}
	r.Run.Target, r.Run.Loop = "memory", "open at 1000 ops/s"
	r.Latency = []Percentiles{{Step: "persist", Count: 1}}
	valid := true
	r.Check.Valid = &valid
	for i := range ops {
		r.Intervals = append(r.Intervals, IntervalCounts{
			Start: float64(i) / 10, Length: 0.1, Operations: ops[i],
			Latency: map[string]IntervalLatency{"persist": {Count: persistsPerInterval, P50: latency[i], P90: latency[i], P99: latency[i], Max: latency[i]}},
		})
	}
	return r
}

// persistsPerInterval is enough operations for every percentile compared.
var persistsPerInterval int64 = 1000

func series(n int, f func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func counts(n int, f func(i int) int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func row(c Comparison, metric, step string) ComparisonRow {
	for _, t := range c.Targets {
		for _, r := range t.Rows {
			if r.Metric == metric && r.Step == step {
				return r
			}
		}
	}
	return ComparisonRow{}
}

func regressions(c Comparison) []string {
	var out []string
	for _, t := range c.Targets {
		for _, r := range t.Rows {
			if r.Regression {
				out = append(out, strings.TrimSpace(r.Step+" "+r.Metric))
			}
		}
	}
	return out
}

// The U test's p against exact values: two samples of five with no
// overlap give 2/C(10,5) = 2/252 (two-sided, exact); one sample against
// itself gives 1.
func TestCompareMannWhitneyPAgainstKnownValues(t *testing.T) {
	a := sampled(counts(6, func(i int) int64 { return 100 }), []float64{1, 2, 3, 4, 5, 99})
	b := sampled(counts(6, func(i int) int64 { return 100 }), []float64{6, 7, 8, 9, 10, 99})
	// The sixth interval is the run's tail (another length): not a sample.
	a.Intervals[5].Length, b.Intervals[5].Length = 0.13, 0.13
	r := row(Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1}), "p50", "persist")
	if r.P == nil || math.Abs(*r.P-2.0/252) > 1e-9 || r.SamplesA != 5 || r.SamplesB != 5 {
		t.Fatalf("p %v with %d/%d samples, want 2/252 = %.6f with 5/5", r.P, r.SamplesA, r.SamplesB, 2.0/252)
	}
	if *r.A != 3 || *r.B != 8 || math.Abs(*r.Ratio-8.0/3) > 1e-12 || !r.Regression {
		t.Fatalf("medians %v %v ratio %v regression %v, want 3, 8, ×2.67, a regression", *r.A, *r.B, *r.Ratio, r.Regression)
	}
	// 1,2,3 against 4,5,6: the smallest p three samples can give is 0.1,
	// never significant at 0.05, and the row says why.
	few := row(Compare([]RunSets{Pair(sampled([]int64{1, 1, 1}, []float64{1, 2, 3}), sampled([]int64{1, 1, 1}, []float64{4, 5, 6}))}, CompareOptions{}), "p50", "persist")
	if few.P == nil || math.Abs(*few.P-0.1) > 1e-9 || few.Regression || !strings.Contains(few.Note, "samples") {
		t.Fatalf("three samples each: %+v, want p 0.1, no regression, a note on the sample count", few)
	}
}

// A change regresses only when it is significant, beyond the tolerance
// and, for latency, at least the minimum change; noise around the same
// median never does.
func TestCompareFlagsOnlySignificantChangesBeyondTheTolerance(t *testing.T) {
	const n = 30
	noisy := func(i int) float64 { return 2 + 0.5*math.Sin(float64(i)*1.7) } // 1.5..2.5 ms
	base := sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, noisy))
	cases := []struct {
		name string
		b    Results
		opt  CompareOptions
		want []string
	}{
		{"the same run", base, CompareOptions{Tolerance: 0.1}, nil},
		{"the same values in another order", sampled(counts(n, func(i int) int64 { return 100 + int64((i*3)%7) }), series(n, func(i int) float64 { return noisy(n - 1 - i) })), CompareOptions{Tolerance: 0.1}, nil},
		{"latency ×3", sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, func(i int) float64 { return 3 * noisy(i) })), CompareOptions{Tolerance: 0.1}, []string{"persist p50", "persist p90", "persist p99"}},
		{"latency ×3 within 250%", sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, func(i int) float64 { return 3 * noisy(i) })), CompareOptions{Tolerance: 2.5}, nil},
		{"latency ×3 but below the minimum change", sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, func(i int) float64 { return 3 * noisy(i) })), CompareOptions{Tolerance: 0.1, MinLatencyChange: 10}, nil},
		{"latency ×3, only p99 checked", sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, func(i int) float64 { return 3 * noisy(i) })), CompareOptions{Tolerance: 0.1, Metrics: []string{"p99"}}, []string{"persist p99"}},
		{"throughput halved", sampled(counts(n, func(i int) int64 { return 50 + int64(i%4) }), series(n, noisy)), CompareOptions{Tolerance: 0.1}, []string{"throughput"}},
		{"throughput down 5%", sampled(counts(n, func(i int) int64 { return 95 + int64(i%7) }), series(n, noisy)), CompareOptions{Tolerance: 0.1}, nil},
		{"throughput doubled", sampled(counts(n, func(i int) int64 { return 200 + int64(i%7) }), series(n, noisy)), CompareOptions{Tolerance: 0.1}, nil},
	}
	for _, c := range cases {
		cmp := Compare([]RunSets{Pair(base, c.b)}, c.opt)
		if got := regressions(cmp); !slices.Equal(got, c.want) || cmp.Regressions != len(c.want) {
			t.Errorf("%s: regressions %v, want %v", c.name, got, c.want)
		}
		if want := VerdictNoRegression; len(c.want) > 0 {
			want = VerdictRegression
			if cmp.Verdict != want {
				t.Errorf("%s: verdict %q, want %q", c.name, cmp.Verdict, want)
			}
		}
	}
}

// Intervals of 40 operations: a p99 is their largest, a p90 their
// fourth; only the p50 is a distribution's, and only it can regress.
func TestCompareTestsOnlyPercentilesTheIntervalsCanEstimate(t *testing.T) {
	defer func() { persistsPerInterval = 1000 }()
	persistsPerInterval = 40
	const n = 30
	a := sampled(counts(n, func(int) int64 { return 40 }), series(n, func(i int) float64 { return 2 + float64(i%5)/10 }))
	b := sampled(counts(n, func(int) int64 { return 40 }), series(n, func(i int) float64 { return 6 + float64(i%5)/10 }))
	cmp := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1})
	if got := regressions(cmp); !slices.Equal(got, []string{"persist p50"}) {
		t.Fatalf("regressions %v, want only persist p50", got)
	}
	if r := row(cmp, "p99", "persist"); r.P != nil || !strings.Contains(r.Note, "40 operations an interval: too few to estimate a p99 (500 needed)") {
		t.Fatalf("p99 row %+v, want no p and a note on the interval's size", r)
	}
}

// A worse verdict is a regression; the text gives the verdict first and
// ratios, never a percentage of a tiny baseline; JSON holds numbers.
func TestCompareTextAndJSON(t *testing.T) {
	a := sampled(counts(20, func(i int) int64 { return 100 }), series(20, func(i int) float64 { return 0.000001 * float64(1+i%3) }))
	b := sampled(counts(20, func(i int) int64 { return 100 }), series(20, func(i int) float64 { return 250 + float64(i%3) }))
	invalid := false
	b.Check.Valid = &invalid
	cmp := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1, MinLatencyChange: 1})
	cmp.A, cmp.B = []string{"base"}, []string{"head"}
	var out bytes.Buffer
	if err := WriteComparisonText(&out, cmp); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.HasPrefix(text, "verdict: REGRESSION: 4 of ") {
		t.Errorf("the text does not begin with the verdict:\n%s", text)
	}
	for _, want := range []string{"×125500000", "PASS", "FAIL", "REGRESSION", "persist p99", "B head against baseline A base"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "%+") || strings.Contains(text, "+12") {
		t.Errorf("text prints a percentage change:\n%s", text)
	}
	out.Reset()
	if err := WriteComparisonJSON(&out, cmp); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict string `json:"verdict"`
		Targets []struct {
			Rows []map[string]any `json:"rows"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Verdict != VerdictRegression {
		t.Fatalf("JSON %v, verdict %q:\n%s", err, doc.Verdict, out.String())
	}
	for _, r := range doc.Targets[0].Rows {
		if r["metric"] == "p99" {
			for _, k := range []string{"a", "b", "ratio", "p"} {
				if _, ok := r[k].(float64); !ok {
					t.Errorf("p99 row's %s is %T, want a number", k, r[k])
				}
			}
		}
	}
	if back := Compare([]RunSets{Pair(b, a)}, CompareOptions{Tolerance: 0.1}); slices.Contains(regressions(back), "verdict") {
		t.Errorf("FAIL to PASS flagged")
	}
}

// Settings that change the load or the faults are refused; the target and
// the run's length are named only.
func TestCompareListsSettingsThatDiffer(t *testing.T) {
	a := sampled(counts(5, func(int) int64 { return 1 }), series(5, func(int) float64 { return 1 }))
	b := a
	b.Run.Loop, b.Run.Target = "closed", "postgres"
	b.Config.FaultRates.CrashAfterAllocate = 0.01
	b.Faults = []FaultWindow{{Kind: "kafka-outage", Start: 1, End: 2}}
	diffs := SettingsDiffer(a, b)
	var refused, named []string
	for _, d := range diffs {
		if d.Refused {
			refused = append(refused, d.Setting)
		} else {
			named = append(named, d.Setting)
		}
	}
	if !slices.Equal(refused, []string{"loop", "fault rates", "timed faults"}) || !slices.Equal(named, []string{"target"}) {
		t.Fatalf("refused %v, named %v; want loop, fault rates, timed faults refused and the target named", refused, named)
	}
	if len(SettingsDiffer(a, a)) != 0 {
		t.Fatal("a run differs from itself")
	}
}

// runsOf makes n runs, run i's intervals scaled by scale[i]: the machine's
// load, which moves a whole run's figures together.
func runsOf(scale []float64, n int) []Results {
	out := make([]Results, len(scale))
	for i, s := range scale {
		out[i] = sampled(counts(n, func(j int) int64 { return int64(s * float64(1000+j%7)) }), series(n, func(j int) float64 { return 2 + 0.1*float64(j%5) }))
	}
	return out
}

// Several runs a side: the runs, not their intervals, are the independent
// samples. Two sets of runs of one command on a machine whose load moves
// a run's throughput by half are no regression, though a single run of
// each side compared alone is; a real fall, well beyond the runs' spread,
// is.
func TestCompareSeveralRunsWeighsTheirSpread(t *testing.T) {
	const n = 20
	a := runsOf([]float64{1.0, 0.6, 0.85}, n)
	same := runsOf([]float64{0.7, 0.95, 0.55}, n)
	slower := runsOf([]float64{0.05, 0.06, 0.04}, n)
	opt := CompareOptions{Tolerance: 0.1}

	if single := Compare([]RunSets{Pair(a[0], same[2])}, opt); !slices.Equal(regressions(single), []string{"throughput"}) {
		t.Fatalf("one run a side, ×0.55: regressions %v, want throughput (what several runs a side are for)", regressions(single))
	}
	cmp := Compare([]RunSets{{A: a, B: same}}, opt)
	r := row(cmp, MetricThroughput, "")
	if cmp.Verdict != VerdictNoRegression || r.Regression || r.PRuns == nil || *r.PRuns < 0.05 || r.P == nil || *r.P >= 0.05 {
		t.Fatalf("three runs of one command a side: verdict %q, throughput p %s, p runs %s; want no regression, the pooled intervals' p below 0.05 and the runs' not", cmp.Verdict, pText(r.P), pText(r.PRuns))
	}
	if r.SamplesA != 3*n || r.SamplesB != 3*n || cmp.Targets[0].RunsA != 3 || cmp.Targets[0].RunsB != 3 {
		t.Fatalf("samples %d/%d, runs %d/%d; want %d/%d pooled from 3/3", r.SamplesA, r.SamplesB, cmp.Targets[0].RunsA, cmp.Targets[0].RunsB, 3*n, 3*n)
	}

	cmp = Compare([]RunSets{{A: a, B: slower}}, opt)
	r = row(cmp, MetricThroughput, "")
	if !slices.Equal(regressions(cmp), []string{"throughput"}) || r.PRuns == nil || *r.PRuns >= 0.001 {
		t.Fatalf("throughput ×0.05: regressions %v, p runs %s; want throughput, p runs below 0.001", regressions(cmp), pText(r.PRuns))
	}

	// Runs in which a side's worst verdict is the side's, with how many.
	invalid := false
	failing := slices.Clone(same)
	failing[1].Check.Valid = &invalid
	v := row(Compare([]RunSets{{A: a, B: failing}}, opt), MetricVerdict, "")
	if !v.Regression || v.VerdictB != "FAIL" || v.Note != "B: FAIL in 1 of 3 runs" {
		t.Fatalf("one failing run of three: %+v, want a regression, FAIL, noted as 1 of 3", v)
	}
}

// The runs' p is Student's two-sample t-test on the logarithms of the
// runs' medians: medians e, e², e³ against e⁴, e⁵, e⁶ give t = 3/√(2/3)
// on 4 degrees of freedom, p = 0.0213116. One run a side gives none;
// runs alike within each side give 1 when the sides agree, else 0.
func TestCompareRunsPAgainstKnownValues(t *testing.T) {
	at := func(xs ...float64) [][]float64 {
		out := make([][]float64, len(xs))
		for i, x := range xs {
			out[i] = []float64{x, x, x}
		}
		return out
	}
	e := math.E
	if p := runsP(at(e, e*e, e*e*e), at(math.Pow(e, 4), math.Pow(e, 5), math.Pow(e, 6))); p == nil || math.Abs(*p-0.0213116) > 1e-6 {
		t.Fatalf("p %s, want 0.0213116", pText(p))
	}
	if p := runsP(at(1), at(2)); p != nil {
		t.Fatalf("one run a side: p %v, want none", *p)
	}
	if p := runsP(at(5, 5), at(5, 5, 5)); p == nil || *p != 1 {
		t.Fatalf("every run alike: p %s, want 1", pText(p))
	}
	if p := runsP(at(5, 5), at(6, 6)); p == nil || *p != 0 {
		t.Fatalf("runs alike within each side, the sides apart: p %s, want 0", pText(p))
	}
	if p := runsP(at(0, 1, 2), at(0, 1, 2)); p == nil || *p != 1 {
		t.Fatalf("a zero median (plain values): p %s, want 1", pText(p))
	}
}

func pText(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// Runs too short for any test to find a change (two intervals a side: the
// U test's smallest p is 1/3) are not "no regression": the verdict is
// unknown and names the rows and why; a worse verdict still regresses,
// and a comparison of the verdict alone is decided.
func TestCompareThatTestedNoRowIsUnknown(t *testing.T) {
	a := sampled([]int64{100, 100}, []float64{1, 1})
	b := sampled([]int64{10, 10}, []float64{50, 50}) // ten times slower: no test can tell with two samples
	cmp := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1})
	if cmp.Verdict != VerdictUnknown || cmp.Regressions != 0 {
		t.Fatalf("verdict %q with %d regressions, want unknown", cmp.Verdict, cmp.Regressions)
	}
	if r := row(cmp, MetricThroughput, ""); r.Tested || r.P == nil || !strings.Contains(r.Note, "samples") {
		t.Fatalf("throughput row %+v, want a p that cannot reach alpha and a note", r)
	}
	if !strings.Contains(cmp.Undecided, "none of the 5 checked rows of figures could be tested") || !strings.Contains(cmp.Undecided, "throughput") {
		t.Errorf("undecided: %q", cmp.Undecided)
	}
	var out bytes.Buffer
	if err := WriteComparisonText(&out, cmp); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "verdict: UNKNOWN: cannot tell whether B regressed: none of the 5 checked rows") || strings.Contains(out.String(), "no regression") {
		t.Errorf("text:\n%s", out.String())
	}
	out.Reset()
	if err := WriteComparisonJSON(&out, cmp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"verdict": "unknown"`) || !strings.Contains(out.String(), `"undecided": "none of`) {
		t.Errorf("json:\n%s", out.String())
	}

	if only := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1, Metrics: []string{MetricVerdict}}); only.Verdict != VerdictNoRegression {
		t.Errorf("the verdict row alone: %q, want no regression", only.Verdict)
	}
	invalid := false
	b.Check.Valid = &invalid
	if worse := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1}); worse.Verdict != VerdictRegression {
		t.Errorf("a worse verdict with untested figures: %q, want a regression", worse.Verdict)
	}
	// Enough intervals to test: decided.
	long := sampled(counts(20, func(int) int64 { return 100 }), series(20, func(int) float64 { return 1 }))
	if same := Compare([]RunSets{Pair(long, long)}, CompareOptions{Tolerance: 0.1}); same.Verdict != VerdictNoRegression {
		t.Errorf("twenty intervals a side: %q (%s), want no regression", same.Verdict, same.Undecided)
	}
}

// A comparison that could test some rows but not others (a p99 whose
// intervals hold too few operations, a step only one side has) does not
// say "no regression" as if it had tested them all: the verdict speaks for
// the rows tested and names the others and why, in the text and the JSON;
// with RequireTested an untested row makes it unknown. A regression stays
// a regression, the untested rows named beside it.
func TestComparePartlyTestedNamesTheUntestedRows(t *testing.T) {
	defer func() { persistsPerInterval = 1000 }()
	persistsPerInterval = 100 // enough for a p50 and a p90, not a p99
	const n = 30
	noisy := func(i int) float64 { return 2 + 0.5*math.Sin(float64(i)*1.7) }
	// Runs that allocate, with a gap now and then: the gap rate is tested.
	sampled := func(ops []int64, latency []float64) Results {
		r := sampled(ops, latency)
		for i := range r.Intervals {
			r.Intervals[i].Allocations, r.Intervals[i].Gaps = 100, int64(i%3)
		}
		return r
	}
	a := sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, noisy))
	b := sampled(counts(n, func(i int) int64 { return 100 + int64((i*3)%7) }), series(n, func(i int) float64 { return noisy(n - 1 - i) }))
	// A step B has no operations of: nothing to compare it with.
	a.Latency = append(a.Latency, Percentiles{Step: "sync", Count: 5})
	for i := range a.Intervals {
		a.Intervals[i].Latency["sync"] = IntervalLatency{Count: 100, P50: 1, P90: 1, P99: 1, Max: 1}
	}
	cmp := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1})
	cmp.A, cmp.B = []string{"base"}, []string{"head"}
	if cmp.Verdict != VerdictNoRegression || cmp.CheckedRows != 8 || cmp.TestedRows != 4 || len(cmp.Untested) != 4 {
		t.Fatalf("verdict %q, %d of %d rows tested, untested %+v", cmp.Verdict, cmp.TestedRows, cmp.CheckedRows, cmp.Untested)
	}
	var names []string
	for _, u := range cmp.Untested {
		names = append(names, u.Row)
	}
	if want := []string{"persist p99", "sync p50", "sync p90", "sync p99"}; !slices.Equal(names, want) {
		t.Fatalf("untested %v, want %v", names, want)
	}
	if cmp.Untested[0].Why != "100 operations an interval: too few to estimate a p99 (500 needed)" || cmp.Untested[1].Why != "no sync operations in B: nothing to compare" {
		t.Fatalf("why: %+v", cmp.Untested)
	}
	var out bytes.Buffer
	if err := WriteComparisonText(&out, cmp); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	lines := strings.SplitN(text, "\n", 3)
	if !strings.HasPrefix(lines[0], "verdict: no regression in the 4 rows of figures tested and the verdict; 4 of 8 checked rows of figures untested (") {
		t.Errorf("verdict line:\n%s", text)
	}
	if want := "untested, so not judged: persist p99: 100 operations an interval: too few to estimate a p99 (500 needed); sync p50, sync p90, sync p99: no sync operations in B: nothing to compare (--require-tested makes an untested row UNKNOWN, exit 3)"; lines[1] != want {
		t.Errorf("second line %q, want %q", lines[1], want)
	}
	if !strings.Contains(text, "sync p90") || !strings.Contains(text, "(no sync operations in B: nothing to compare)") {
		t.Errorf("the table does not show the one-sided step:\n%s", text)
	}
	out.Reset()
	if err := WriteComparisonJSON(&out, cmp); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict  string `json:"verdict"`
		Checked  int    `json:"checked_rows"`
		Tested   int    `json:"tested_rows"`
		Untested []struct {
			Row, Why string
		} `json:"untested"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Verdict != VerdictNoRegression || doc.Checked != 8 || doc.Tested != 4 || len(doc.Untested) != 4 || doc.Untested[0].Row != "persist p99" {
		t.Fatalf("json %v:\n%s", err, out.String())
	}

	strict := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1, RequireTested: true})
	if strict.Verdict != VerdictUnknown || !strings.HasPrefix(strict.Undecided, "4 of the 8 checked rows of figures could not be tested (persist p99: ") ||
		!strings.Contains(strict.Undecided, "--require-tested asks for every one (none of the 4 tested regressed)") {
		t.Errorf("require tested: %q: %s", strict.Verdict, strict.Undecided)
	}
	// Narrowed to the rows that can be tested, it is decided.
	if narrow := Compare([]RunSets{Pair(a, b)}, CompareOptions{Tolerance: 0.1, RequireTested: true, Metrics: []string{"p50", "p90", MetricThroughput, MetricGapRate, MetricVerdict}, Steps: []string{"persist"}}); narrow.Verdict != VerdictNoRegression || len(narrow.Untested) != 0 {
		t.Errorf("narrowed: %q, untested %+v", narrow.Verdict, narrow.Untested)
	}
	// Every row tested: the verdict is as before, nothing untested.
	persistsPerInterval = 1000
	full := Compare([]RunSets{Pair(sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, noisy)), sampled(counts(n, func(i int) int64 { return 100 + int64((i*3)%7) }), series(n, noisy)))}, CompareOptions{Tolerance: 0.1, RequireTested: true})
	out.Reset()
	if err := WriteComparisonText(&out, full); err != nil {
		t.Fatal(err)
	}
	if full.Verdict != VerdictNoRegression || len(full.Untested) != 0 || !strings.HasPrefix(out.String(), "verdict: no regression in 6 checked rows (") || strings.Contains(out.String(), "untested") {
		t.Errorf("every row tested: %q\n%s", full.Verdict, out.String())
	}
	// A regression with untested rows: a regression, the others named.
	persistsPerInterval = 100
	slow := sampled(counts(n, func(i int) int64 { return 100 + int64(i%7) }), series(n, func(i int) float64 { return 3 * noisy(i) }))
	worse := Compare([]RunSets{Pair(a, slow)}, CompareOptions{Tolerance: 0.1})
	out.Reset()
	if err := WriteComparisonText(&out, worse); err != nil {
		t.Fatal(err)
	}
	if worse.Verdict != VerdictRegression || !strings.Contains(out.String(), "\nuntested, so not judged: 4 of 8 checked rows of figures: persist p99: ") {
		t.Errorf("a regression beside untested rows: %q\n%s", worse.Verdict, out.String())
	}
}
