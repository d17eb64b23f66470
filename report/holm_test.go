package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func ptrs(ps ...float64) []*float64 {
	out := make([]*float64, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// Holm's step-down against values worked by hand: sorted 0.005, 0.01,
// 0.03, 0.04 of four are ×4, ×3, ×2, ×1, each at least the one before.
func TestHolmAgainstKnownValues(t *testing.T) {
	got := holm(ptrs(0.01, 0.04, 0.03, 0.005))
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("holm = %v, want %v", got, want)
		}
	}
	if got := holm(ptrs(0.9, 0.6)); got[0] != 1 || got[1] != 1 {
		t.Fatalf("holm caps at 1: %v", got)
	}
}

// The family of a compare of two runs of one command: some twenty rows,
// one of which comes out at p = 0.03 by chance. Uncorrected it is below
// alpha; corrected over the family it is not. A true change, p = 1e-6,
// still is.
func TestHolmKeepsAChanceRowOfTwentyAndAFarChange(t *testing.T) {
	noise := []float64{0.03, 0.41, 0.77, 0.12, 0.95, 0.33, 0.58, 0.21, 0.66, 0.88, 0.49, 0.16, 0.72, 0.39, 0.91, 0.27, 0.54, 0.83, 0.62}
	adjusted := holm(ptrs(noise...))
	for i, p := range adjusted {
		if p < DefaultAlpha {
			t.Errorf("test %d: p %g, adjusted %g: below alpha", i, noise[i], p)
		}
	}
	withChange := append([]float64{1e-6}, noise...)
	if p := holm(ptrs(withChange...))[0]; p >= DefaultAlpha {
		t.Errorf("a true change's p 1e-6 adjusted over %d tests is %g, not below alpha", len(withChange), p)
	}
}

// Through Compare: persist's three percentiles rise by a shift whose U
// test gives p ≈ 0.034, below alpha, which uncorrected was a regression;
// over the four rows tested it is not. A shift twice as large is.
func TestCompareCorrectsForTheRowsItTests(t *testing.T) {
	flat := counts(21, func(int) int64 { return 100 })
	a := sampled(flat, series(21, func(i int) float64 { return 10 + float64(i) }))
	shifted := func(k float64) Results {
		return sampled(flat, series(21, func(i int) float64 { return 10 + float64(i) + k }))
	}
	c := Compare([]RunSets{Pair(a, shifted(4.5))}, CompareOptions{})
	r := row(c, "p50", "persist")
	if r.P == nil || *r.P >= DefaultAlpha || *r.P < DefaultAlpha/4 {
		t.Fatalf("precondition: the shift's raw p %v should be just below alpha", r.P)
	}
	if c.Tests != 4 || r.PHolm == nil || *r.PHolm < DefaultAlpha || r.Significant || len(regressions(c)) > 0 {
		t.Fatalf("%d tests, p %g, Holm %v, significant %v, regressions %v: want no regression after the correction", c.Tests, *r.P, r.PHolm, r.Significant, regressions(c))
	}
	c = Compare([]RunSets{Pair(a, shifted(9))}, CompareOptions{})
	if got := regressions(c); strings.Join(got, ",") != "persist p50,persist p90,persist p99" {
		t.Fatalf("a shift of nearly half the spread: regressions %v, want persist's three percentiles", got)
	}
	var text bytes.Buffer
	if err := WriteComparisonText(&text, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "at p < 0.05, Holm–Bonferroni-corrected over the 4 rows tested") || !strings.Contains(text.String(), "p (Holm)") {
		t.Fatalf("the text does not say the p is corrected:\n%s", text.String())
	}
}
