package bench

import (
	"math"
	"strings"
	"testing"
	"time"
)

// allStarts lists every intended start of the ramp, as offsets from the
// run's start.
func allStarts(t *testing.T, r *Ramp) []time.Duration {
	t.Helper()
	var out []time.Duration
	for k := int64(0); ; k++ {
		at, ok := r.Start(k)
		if !ok {
			return out
		}
		out = append(out, at)
		if k > 10_000_000 {
			t.Fatal("the ramp never ends")
		}
	}
}

// The schedule k6's ramping-arrival-rate describes: per stage, as many
// starts as the rate's integral over it (the trapezoid of its two rates
// times its length), in order, the k-th where the integral reaches k.
func TestRampStartsFollowTheIntegralOfTheRate(t *testing.T) {
	stages := []Stage{{10 * time.Second, 100}, {30 * time.Second, 2000}, {5 * time.Second, 2000}, {20 * time.Second, 0}}
	if p := StagesProblem(stages, 8); p != "" {
		t.Fatal(p)
	}
	r := NewRamp(stages)
	if r.Duration() != 65*time.Second {
		t.Fatalf("duration %s, want the stages' sum 1m5s", r.Duration())
	}
	starts := allStarts(t, r)
	// 0→100 over 10s: 500; 100→2000 over 30s: 31500; 2000 for 5s: 10000;
	// 2000→0 over 20s: 20000.
	wantPerStage := []int{500, 31500, 10000, 20000}
	if len(starts) != 62000 {
		t.Fatalf("%d starts, want 62000 (the integral of the rate)", len(starts))
	}
	var begin time.Duration
	k := 0
	for i, s := range stages {
		end := begin + s.Duration
		n := 0
		for k < len(starts) && starts[k] < end {
			if starts[k] < begin {
				t.Fatalf("start %d at %s falls before stage %d begins at %s", k, starts[k], i+1, begin)
			}
			n++
			k++
		}
		if math.Abs(float64(n-wantPerStage[i])) > 1 {
			t.Errorf("stage %d (%s): %d starts, want %d", i+1, s, n, wantPerStage[i])
		}
		begin = end
	}
	for k := 1; k < len(starts); k++ {
		if starts[k] < starts[k-1] {
			t.Fatalf("start %d at %s is before start %d at %s", k, starts[k], k-1, starts[k-1])
		}
	}
	for _, k := range []int{0, 1, 499, 500, 12345, 31999, 32000, 41999, 42000, 61999} {
		if due := r.Due(starts[k]); math.Abs(due-float64(k)) > 1e-3 {
			t.Errorf("start %d at %s: the rate's integral there is %.6f, want %d", k, starts[k], due, k)
		}
	}
	// From 0 the first stage's k-th start solves 100/10·t²/2 = k.
	if got, want := starts[200].Seconds(), math.Sqrt(2*200*10/100.0); math.Abs(got-want) > 1e-6 {
		t.Errorf("start 200 at %gs, want %gs", got, want)
	}
	// At the flat stage the starts are 1/rate apart, as --rate's are.
	if gap := starts[35001] - starts[35000]; gap != 500*time.Microsecond {
		t.Errorf("at 2000 ops/s starts are %s apart, want 500µs", gap)
	}
}

// A constant ramp is --rate's schedule: writer w's op-th start at
// (w + op·writers)/rate, its phase w/rate.
func TestRampAtOneRateIsTheSteadySchedule(t *testing.T) {
	const rate, writers = 400.0, 4
	r := NewRamp([]Stage{{time.Nanosecond, rate}, {2 * time.Second, rate}})
	cfg := Config{Rate: rate, Writers: writers}
	for w := range writers {
		steady := steadyPace{first: int64(cfg.writerPhase(w)), interval: cfg.Interval()}
		ramped := rampedPace{ramp: r, w: w, n: writers}
		for op := 10; op < 150; op++ {
			a, _, _ := steady.intended(op)
			b, threshold, ok := ramped.intended(op)
			if !ok || time.Duration(a-b).Abs() > 2*time.Microsecond {
				t.Fatalf("writer %d op %d: ramp %s, steady %s", w, op, time.Duration(b), time.Duration(a))
			}
			if threshold != 10*time.Millisecond {
				t.Fatalf("writer %d op %d: late past %s, want one interval, 10ms", w, op, threshold)
			}
		}
	}
}

// Each writer takes every writers-th start: their shares of the starts
// due by any time add up to all of them, which is what unsent counts
// against.
func TestRampDueForSharesTheStartsAmongWriters(t *testing.T) {
	r := NewRamp([]Stage{{3 * time.Second, 50}, {2 * time.Second, 10}})
	const writers = 3
	starts := allStarts(t, r)
	for _, at := range []time.Duration{0, time.Millisecond, 700 * time.Millisecond, 3 * time.Second, 4500 * time.Millisecond, 5 * time.Second, time.Minute} {
		sum := int64(0)
		for w := range writers {
			sum += r.DueFor(w, writers, at)
		}
		before := int64(0)
		for _, s := range starts {
			if s < at {
				before++
			}
		}
		if sum != before {
			t.Errorf("by %s the writers' shares add up to %d, but %d starts fall before it", at, sum, before)
		}
	}
}

func TestStagesProblemsAndParsing(t *testing.T) {
	for _, c := range []struct {
		stages string
		want   string
	}{
		{"0s:100", "must last more than no time"},
		{"1s:100,-2s:5", "stage 2 (-2s:5) must last more than no time"},
		{"1s:-1", "must not be negative"},
		{"1s:NaN", "finite"},
		{"1s:+Inf", "finite"},
		{"1s:0,1s:0", "start no operation"},
		{"1s:1e10", "under a nanosecond"},
	} {
		stages, err := ParseStages(c.stages)
		if err != nil {
			t.Fatalf("%s: %v", c.stages, err)
		}
		if p := StagesProblem(stages, 8); !strings.Contains(p, c.want) {
			t.Errorf("%s: %q, want %q", c.stages, p, c.want)
		}
	}
	for _, bad := range []string{"", "10s", "10:100", "10s:fast", "10s:100,"} {
		if _, err := ParseStages(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	stages, err := ParseStages(" 10s:100 , 1m30s:2000")
	if err != nil || StagesString(stages) != "10s:100,1m30s:2000" {
		t.Fatalf("%v %v", stages, err)
	}
}

// Config.Validate refuses stages beside a rate, or a duration they
// contradict.
func TestConfigRefusesStagesWithRateOrAnotherDuration(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HistoryPath = "h.jsonl"
	cfg.Stages = []Stage{{time.Second, 100}}
	cfg.Duration = time.Second
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	withRate := cfg
	withRate.Rate = 100
	if err := withRate.Validate(); err == nil || !strings.Contains(err.Error(), "give --rate or --stages, not both") {
		t.Errorf("stages and a rate: %v", err)
	}
	longer := cfg
	longer.Duration = 5 * time.Second
	if err := longer.Validate(); err == nil || !strings.Contains(err.Error(), "last 1s, but the run's duration is 5s") {
		t.Errorf("stages and another duration: %v", err)
	}
}
