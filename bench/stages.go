package bench

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Stage is one stage of a ramping arrival rate, as k6's
// ramping-arrival-rate executor has them: over Duration the open loop's
// rate (operations/s in total) moves linearly from the stage before's
// Target (0 before the first) to this Target.
type Stage struct {
	Duration time.Duration
	Target   float64
}

func (s Stage) String() string {
	return s.Duration.String() + ":" + strconv.FormatFloat(s.Target, 'g', -1, 64)
}

// StagesString renders stages as --stages takes them.
func StagesString(stages []Stage) string {
	parts := make([]string, len(stages))
	for i, s := range stages {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// ParseStages reads --stages: "duration:rate,...", e.g. "10s:100,30s:2000".
func ParseStages(s string) ([]Stage, error) {
	var stages []Stage
	for i, part := range strings.Split(s, ",") {
		d, r, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("--stages: stage %d %q is not duration:rate (e.g. 30s:2000)", i+1, part)
		}
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil {
			return nil, fmt.Errorf("--stages: stage %d %q: %q is not a duration (e.g. 30s)", i+1, part, d)
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil {
			return nil, fmt.Errorf("--stages: stage %d %q: %q is not a rate in operations/s", i+1, part, r)
		}
		stages = append(stages, Stage{Duration: dur, Target: rate})
	}
	return stages, nil
}

// maxStagesDuration keeps the ramp's arithmetic (its end, its count of
// starts) well inside what a time.Duration and a float64 hold exactly.
const maxStagesDuration = 100 * 365 * 24 * time.Hour

// StagesProblem explains why stages cannot run with writers, or returns
// "": a stage of no time, a rate that is negative, not a number or above
// 10^9 per writer (an interval under a nanosecond), or stages that start
// no operation at all.
func StagesProblem(stages []Stage, writers int) string {
	if len(stages) == 0 {
		return "give at least one stage, duration:rate"
	}
	var total time.Duration
	starts := 0.0
	before := 0.0
	for i, s := range stages {
		switch {
		case s.Duration <= 0:
			return fmt.Sprintf("stage %d (%s) must last more than no time", i+1, s)
		case math.IsNaN(s.Target) || math.IsInf(s.Target, 0):
			return fmt.Sprintf("stage %d (%s): the rate must be a finite number of operations/s", i+1, s)
		case s.Target < 0:
			return fmt.Sprintf("stage %d (%s): the rate must not be negative", i+1, s)
		case writers > 0 && s.Target > float64(writers)*float64(time.Second):
			return fmt.Sprintf("stage %d (%s) with %s leaves under a nanosecond between one writer's operations: the most is %g operations/s", i+1, s, plural(writers, "writer"), float64(writers)*float64(time.Second))
		case s.Duration > maxStagesDuration-total:
			return fmt.Sprintf("the stages last more than %s", maxStagesDuration)
		}
		total += s.Duration
		starts += (before + s.Target) / 2 * s.Duration.Seconds()
		before = s.Target
	}
	if starts < 1 {
		return fmt.Sprintf("start no operation (%.3g in %s): give a higher rate", starts, total)
	}
	return ""
}

// Ramp is the open-loop schedule stages make: the k-th intended start of
// the run (k from 0) is when the rate's integral, the number of starts
// due, reaches k. At a constant rate r that is k/r, the schedule --rate
// keeps (writer w takes starts w, w+writers, …, so its phase is w/r).
type Ramp struct {
	stages []Stage
	begin  []time.Duration // each stage's start on the run's clock
	due    []float64       // the starts due before each stage, and (last) in all
}

// NewRamp makes the schedule of stages that StagesProblem accepts.
func NewRamp(stages []Stage) *Ramp {
	r := &Ramp{stages: stages, begin: make([]time.Duration, len(stages)), due: make([]float64, len(stages)+1)}
	var at time.Duration
	from := 0.0
	for i, s := range stages {
		r.begin[i] = at
		r.due[i+1] = r.due[i] + (from+s.Target)/2*s.Duration.Seconds()
		at += s.Duration
		from = s.Target
	}
	return r
}

// Duration is the run's: the stages' sum.
func (r *Ramp) Duration() time.Duration {
	last := len(r.stages) - 1
	return r.begin[last] + r.stages[last].Duration
}

// fromRate is the rate stage i ramps from.
func (r *Ramp) fromRate(i int) float64 {
	if i == 0 {
		return 0
	}
	return r.stages[i-1].Target
}

// Rate is the intended rate at t on the run's clock (0 after the end).
func (r *Ramp) Rate(t time.Duration) float64 {
	if t < 0 || t >= r.Duration() {
		return 0
	}
	i := sort.Search(len(r.begin), func(i int) bool { return r.begin[i] > t }) - 1
	a, b := r.fromRate(i), r.stages[i].Target
	return a + (b-a)*(t-r.begin[i]).Seconds()/r.stages[i].Duration.Seconds()
}

// Due is the rate's integral up to t: how many starts are due by then
// (fractional; the k-th start is at the t where Due(t) = k).
func (r *Ramp) Due(t time.Duration) float64 {
	if t <= 0 {
		return 0
	}
	if t >= r.Duration() {
		return r.due[len(r.stages)]
	}
	i := sort.Search(len(r.begin), func(i int) bool { return r.begin[i] > t }) - 1
	a, b := r.fromRate(i), r.stages[i].Target
	s, d := (t - r.begin[i]).Seconds(), r.stages[i].Duration.Seconds()
	return r.due[i] + a*s + (b-a)*s*s/(2*d)
}

// Start is the k-th intended start of the run, as an offset from its
// start; false when it falls at or after the run's end.
func (r *Ramp) Start(k int64) (time.Duration, bool) {
	m := float64(k)
	if k < 0 || m >= r.due[len(r.stages)] {
		return 0, false
	}
	// The stage whose starts hold the k-th: the first that ends past it.
	i := sort.Search(len(r.stages), func(i int) bool { return r.due[i+1] > m })
	a, b := r.fromRate(i), r.stages[i].Target
	d := r.stages[i].Duration.Seconds()
	m -= r.due[i]
	// s solves a·s + (b-a)·s²/(2d) = m; this form of the quadratic's root
	// holds for a rising, falling and flat rate alike, and never
	// divides by zero: m > 0 here makes a+sqrt(…) positive.
	s := 0.0
	if m > 0 {
		s = 2 * m / (a + math.Sqrt(max(a*a+2*(b-a)*m/d, 0)))
	}
	at := r.begin[i] + min(time.Duration(s*float64(time.Second)), r.stages[i].Duration)
	if at >= r.Duration() {
		return 0, false
	}
	return at, true
}

// DueFor is how many of writer w's starts (w, w+writers, …) fall before
// t: the k-th start is before t when k < Due(t).
func (r *Ramp) DueFor(w, writers int, t time.Duration) int64 {
	all := int64(math.Ceil(r.Due(t)))
	if all <= int64(w) {
		return 0
	}
	return (all-1-int64(w))/int64(writers) + 1
}
