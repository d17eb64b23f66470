package report

import "sort"

// judge decides each row's significance and regression once every row
// of the comparison is known: a comparison makes about twenty tests (a
// U test per metric and step, a t-test per metric with several runs a
// side), and at alpha each, two runs of one command on a noisy machine
// would show a "significant" change somewhere about every other time.
// Holm–Bonferroni adjusts the family's p values so that the chance of
// any false change in the whole comparison stays at alpha, and a large
// true change, whose p is far below alpha, is still found.
//
// It returns the number of rows tested, the family's size (the
// runs' t-tests, with several runs a side, are a family of their own).
func judge(targets []TargetComparison, alpha float64) int {
	var ps, runPs []*float64
	var pAdj, runAdj []**float64
	for ti := range targets {
		for ri := range targets[ti].Rows {
			r := &targets[ti].Rows[ri]
			if r.P != nil {
				ps, pAdj = append(ps, r.P), append(pAdj, &r.PHolm)
			}
			if r.PRuns != nil {
				runPs, runAdj = append(runPs, r.PRuns), append(runAdj, &r.PRunsHolm)
			}
		}
	}
	for i, p := range holm(ps) {
		*pAdj[i] = &p
	}
	for i, p := range holm(runPs) {
		*runAdj[i] = &p
	}
	for ti := range targets {
		for ri := range targets[ti].Rows {
			r := &targets[ti].Rows[ri]
			r.Significant = r.PHolm != nil && *r.PHolm < alpha && (r.PRunsHolm == nil || *r.PRunsHolm < alpha)
			tested := r.Metric != MetricVerdict
			r.Regression = r.Checked && r.exceeds && (!tested || r.Significant)
		}
	}
	return len(ps)
}

// holm returns the Holm–Bonferroni adjusted p values of ps, in their
// order: the i-th smallest of m (from 0) times m-i, never below the one
// before it in that order, at most 1. Rejecting each whose adjusted p is
// below alpha is Holm's step-down procedure.
func holm(ps []*float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return *ps[order[x]] < *ps[order[y]] })
	adjusted := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(m-rank)**ps[i]))
		adjusted[i] = running
	}
	return adjusted
}
