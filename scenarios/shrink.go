package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/chatseq/chatseq/checker"
)

// ShrinkOptions bound a shrink.
type ShrinkOptions struct {
	MaxRuns int           // runs in all; 0: 60
	Budget  time.Duration // wall time; 0: two minutes
	// Tries is how often a candidate is run before it is judged not to
	// fail: the seed fixes every client decision, but which of two
	// concurrent writes wins is the scheduler's, so a race may need a
	// second chance. 0: 3.
	Tries int
}

func (s ShrinkOptions) withDefaults() ShrinkOptions {
	if s.MaxRuns <= 0 {
		s.MaxRuns = 60
	}
	if s.Budget <= 0 {
		s.Budget = 2 * time.Minute
	}
	if s.Tries <= 0 {
		s.Tries = 3
	}
	return s
}

// ShrinkResult is the smallest failing run a shrink found.
type ShrinkResult struct {
	Writers    int      `json:"writers"`
	Ops        int      `json:"ops"`
	Chats      int      `json:"chats"`
	Operations int64    `json:"operations"` // attempts in its history
	Lines      int      `json:"history_lines"`
	History    string   `json:"history"` // empty if no smaller run failed
	Failing    []string `json:"failing"` // invariants failing in it
	Runs       int      `json:"runs"`
	Note       string   `json:"note,omitempty"`
	// Overrides reproduce the shrunk run with `chatseq run`.
	Overrides Overrides `json:"-"`
}

// size is one point of the search.
type size struct{ writers, ops, chats int }

// Shrink searches for a smaller run of o's scenario that still fails one
// of the invariants o failed against its expectation: fewer operations,
// writers and chats, with the same seed. Every client decision comes from
// (seed, writer, operation index), so a smaller run replays a prefix of
// the same plan for the writers it keeps. The search is greedy: each
// dimension in turn tries 1, then growing fractions of its current value,
// and keeps the first that still fails, until a round changes nothing or
// the budget is spent. The smallest failing history is kept as
// <name>.shrunk.jsonl in opts.OutDir.
func Shrink(ctx context.Context, o *Outcome, opts Options, so ShrinkOptions) *ShrinkResult {
	so = so.withDefaults()
	r := &ShrinkResult{}
	if o.Verdict != Fail || len(o.Failing) == 0 {
		r.Note = "only a run whose invariants failed unexpectedly can be shrunk"
		return r
	}
	work := filepath.Join(opts.OutDir, o.Scenario.Name+".shrink")
	if err := os.MkdirAll(work, 0o755); err != nil {
		r.Note = err.Error()
		return r
	}
	defer os.RemoveAll(work)

	opts.Live = nil // a shrink's many runs are told in its result, not live
	s := &shrinker{ctx: ctx, o: o, opts: opts, so: so, work: work, began: time.Now(), result: r}
	cur := size{o.Config.Writers, o.Config.Ops, o.Config.Chats}
	if cur.ops == 0 {
		// A timed scenario: cap it at the operations it issued, so the
		// search has a count to shrink; the duration stays as a bound.
		cur.ops = max(o.logicalOps, 1)
	}
	minChats := 1
	for _, f := range o.Scenario.Schedule {
		minChats = max(minChats, f.Chat+1) // a deleted chat must stay
	}
	for changed := true; changed && !s.exhausted(); {
		changed = false
		for _, dim := range []struct {
			get func(size) int
			set func(*size, int)
			min int
		}{
			{func(z size) int { return z.ops }, func(z *size, v int) { z.ops = v }, 1},
			{func(z size) int { return z.writers }, func(z *size, v int) { z.writers = v }, 1},
			{func(z size) int { return z.chats }, func(z *size, v int) { z.chats = v }, minChats},
		} {
			for progressed := true; progressed && !s.exhausted(); {
				progressed = false
				for _, v := range candidates(dim.get(cur), dim.min) {
					next := cur
					dim.set(&next, v)
					if s.fails(next) {
						cur, changed, progressed = next, true, true
						break
					}
					if s.exhausted() {
						break
					}
				}
			}
		}
	}
	if s.exhausted() && r.Note == "" {
		r.Note = fmt.Sprintf("stopped at the budget (%d runs, %s)", so.MaxRuns, so.Budget)
	}
	if r.History == "" && r.Note == "" {
		r.Note = "no smaller run failed"
	}
	return r
}

// candidates are the values below v to try, smallest first.
func candidates(v, lo int) []int {
	var out []int
	for _, c := range []int{lo, v / 8, v / 4, v / 2, 3 * v / 4, v - 1} {
		if c >= lo && c < v && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

type shrinker struct {
	ctx    context.Context
	o      *Outcome
	opts   Options
	so     ShrinkOptions
	work   string
	began  time.Time
	result *ShrinkResult
}

func (s *shrinker) exhausted() bool {
	return s.ctx.Err() != nil || s.result.Runs >= s.so.MaxRuns || time.Since(s.began) >= s.so.Budget
}

// fails runs z up to Tries times and reports whether it failed; the first
// failing history becomes the result.
func (s *shrinker) fails(z size) bool {
	for try := 0; try < s.so.Tries && !s.exhausted(); try++ {
		s.result.Runs++
		ov := s.o.Overrides
		seed := s.o.Config.Seed
		ov.Seed, ov.Writers, ov.Ops, ov.Chats = &seed, z.writers, z.ops, z.chats
		cfg := configFor(s.o.Scenario, ov)
		path := filepath.Join(s.work, fmt.Sprintf("run-%d.jsonl", s.result.Runs))
		res, rep, _, _, err := execute(s.ctx, s.o.Scenario, cfg, path, "", s.opts)
		if err != nil {
			os.Remove(path)
			continue
		}
		failing := stillFailing(rep, s.o.Failing)
		if len(failing) == 0 {
			os.Remove(path)
			continue
		}
		dst := filepath.Join(s.opts.OutDir, s.o.Scenario.Name+".shrunk.jsonl")
		if err := os.Rename(path, dst); err != nil {
			s.result.Note = err.Error()
			return false
		}
		r := s.result
		r.Writers, r.Ops, r.Chats = z.writers, z.ops, z.chats
		r.Operations, r.History, r.Failing, r.Overrides = res.Counts.Operations, dst, failing, ov
		r.Lines, _ = countLines(dst)
		return true
	}
	return false
}

// stillFailing lists which of want fail in rep.
func stillFailing(rep checker.Report, want []string) []string {
	var out []string
	for _, inv := range rep.Invariants {
		if inv.Status == checker.Fail && slices.Contains(want, inv.Name) {
			out = append(out, inv.Name)
		}
	}
	return out
}
