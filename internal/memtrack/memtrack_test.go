package memtrack

import (
	"math"
	"testing"
)

// The limit sits above the heap goal (so it never makes the collector run
// before GOGC would) and never above the process's own ceiling.
func TestLimitIsAboveTheGoalAndBelowTheCeiling(t *testing.T) {
	above := func(goal uint64) int64 { return int64(float64(goal)*(1+headroom) + slack) }
	for _, c := range []struct {
		goal    uint64
		ceiling int64
		want    int64
	}{
		{goal: 100 << 20, ceiling: 0, want: above(100 << 20)},
		{goal: 1 << 30, ceiling: 20 << 30, want: above(1 << 30)},
		{goal: 30 << 30, ceiling: 20 << 30, want: 20 << 30},
		{goal: math.MaxUint64, ceiling: -1, want: math.MaxInt64},
	} {
		got := Limit(c.goal, c.ceiling)
		if got != c.want {
			t.Errorf("Limit(%d, %d) = %d, want %d", c.goal, c.ceiling, got, c.want)
		}
		if c.goal < math.MaxUint64/2 && uint64(got) <= c.goal && got < c.ceiling {
			t.Errorf("Limit(%d, %d) = %d is not above the goal", c.goal, c.ceiling, got)
		}
	}
}
