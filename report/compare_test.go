package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// variant copies r so a test can change B without touching A.
func variant(r Results, change func(*Results)) Results {
	r.Latency = slices.Clone(r.Latency)
	change(&r)
	return r
}

func scaleStep(step string, by float64) func(*Results) {
	return func(r *Results) {
		for i := range r.Latency {
			if r.Latency[i].Step == step {
				r.Latency[i].P99 *= by
			}
		}
	}
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

func TestCompareFlagsRegressionsBeyondTheTolerance(t *testing.T) {
	base := healthyRun(t).saved.Results
	opt := CompareOptions{Tolerance: 0.10}
	cases := []struct {
		name   string
		b      Results
		opt    CompareOptions
		regret []string
	}{
		{"same run", base, opt, nil},
		{"p99 up 5%", variant(base, scaleStep("end_to_end", 1.05)), opt, nil},
		{"p99 up 50%", variant(base, scaleStep("end_to_end", 1.5)), opt, []string{"end_to_end p99"}},
		{"p99 down 50%", variant(base, scaleStep("persist", 0.5)), opt, nil},
		{"throughput down 5%", variant(base, func(r *Results) { r.Throughput *= 0.95 }), opt, nil},
		{"throughput down 20%", variant(base, func(r *Results) { r.Throughput *= 0.8 }), opt, []string{"throughput"}},
		{"gap rate up by half and 0.5 points", variant(base, func(r *Results) { r.Check.Stats.GapRate = 1.5*r.Check.Stats.GapRate + 0.005 }), opt, []string{"gap_rate"}},
		{"gap rate up 0.05 points", variant(base, func(r *Results) { r.Check.Stats.GapRate += 0.0005 }), CompareOptions{Tolerance: 0}, nil},
		{"p99 up 50% but only p50 checked", variant(base, scaleStep("end_to_end", 1.5)), CompareOptions{Tolerance: 0.1, Metrics: []string{"p50"}}, nil},
		{"p99 up 50% within 60%", variant(base, scaleStep("end_to_end", 1.5)), CompareOptions{Tolerance: 0.6}, nil},
		{"p99 up 50% on an unchecked step", variant(base, scaleStep("end_to_end", 1.5)), CompareOptions{Tolerance: 0.1, Steps: []string{"persist"}}, nil},
	}
	for _, c := range cases {
		cmp := Compare([][2]Results{{base, c.b}}, c.opt)
		got := regressions(cmp)
		if !slices.Equal(got, c.regret) || cmp.Regressions != len(c.regret) {
			t.Errorf("%s: regressions %v (count %d), want %v", c.name, got, cmp.Regressions, c.regret)
		}
	}
}

// A verdict that gets worse is a regression; the text names it.
func TestCompareFlagsAWorseVerdict(t *testing.T) {
	passing := healthyRun(t).saved.Results
	failing := variant(passing, func(r *Results) {
		v := false
		r.Check.Valid = &v
	})
	cmp := Compare([][2]Results{{passing, failing}}, CompareOptions{Tolerance: 0.1})
	if got := regressions(cmp); !slices.Equal(got, []string{"verdict"}) {
		t.Fatalf("regressions %v, want the verdict", got)
	}
	cmp.A, cmp.B = "base", "new"
	var out bytes.Buffer
	if err := WriteComparisonText(&out, cmp); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"verdict", "PASS", "FAIL", "REGRESSION", "1 regression beyond 10%", "end_to_end p99", "throughput", "gap_rate"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("comparison text lacks %q:\n%s", want, out.String())
		}
	}
	if back := Compare([][2]Results{{failing, passing}}, CompareOptions{Tolerance: 0.1}); back.Regressions != 0 {
		t.Errorf("FAIL to PASS flagged %v", regressions(back))
	}
}
