package scenarios

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chatseq/chatseq/checker"
)

// Summary is every outcome of one `chatseq run`.
type Summary struct {
	Outcomes []*Outcome
	OutDir   string
	Elapsed  time.Duration
}

// severity orders verdicts for the run's overall result: a broken
// expectation is the news, then a run that could not be carried out, then
// an undecided check, then a threshold.
var severity = map[Verdict]int{Pass: 0, ThresholdFail: 1, Undecided: 2, RunError: 3, Fail: 4}

// Worst is the most severe verdict of the run (Pass if there were none).
func (s *Summary) Worst() Verdict {
	worst := Pass
	for _, o := range s.Outcomes {
		if severity[o.Verdict] > severity[worst] {
			worst = o.Verdict
		}
	}
	return worst
}

func (s *Summary) count(v Verdict) int {
	n := 0
	for _, o := range s.Outcomes {
		if o.Verdict == v {
			n++
		}
	}
	return n
}

// Repro is the command line that runs this scenario again with the same
// seed (and whatever else was overridden).
func (o *Outcome) Repro() string {
	ov := o.Overrides
	seed := o.Config.Seed
	ov.Seed = &seed
	return Command(o.Scenario.File, ov)
}

// Command renders `chatseq run FILE` with overrides as flags, quoted for
// a POSIX shell.
func Command(file string, ov Overrides) string {
	parts := []string{"chatseq", "run", shellQuote(file)}
	for _, a := range ov.Args() {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes s for a POSIX shell, leaving plain words as they are.
func ShellQuote(s string) string { return shellQuote(s) }

func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WriteText writes the summary table, then each failure with its
// problems and the command that reproduces it.
func WriteText(w io.Writer, s *Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\texpect\tverdict\tops\tpersisted\tgap rate\tallocate p99\tend-to-end p99\ttime")
	for _, o := range s.Outcomes {
		f := o.Figures
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%.1fs\n", o.Scenario.Name, o.Scenario.Expect,
			strings.ToUpper(string(o.Verdict)), f.Operations, f.Persisted, f.GapRateText(), orDash(f.AllocateP99), orDash(f.EndToEndP99), o.Elapsed.Seconds())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s in %.1fs", s.tally(), s.Elapsed.Seconds())
	if s.OutDir != "" {
		fmt.Fprintf(w, "; histories in %s", s.OutDir)
	}
	fmt.Fprintln(w)
	for _, o := range s.Outcomes {
		if o.Verdict == Pass {
			continue
		}
		fmt.Fprintf(w, "\n%s %s (%s)\n", strings.ToUpper(string(o.Verdict)), o.Scenario.Name, o.Scenario.File)
		for _, p := range o.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
		if o.Verdict != RunError {
			fmt.Fprintf(w, "  history: %s (%d lines)\n", o.History, o.Lines)
		}
		fmt.Fprintf(w, "  reproduce: %s\n", o.Repro())
		if sh := o.Shrunk; sh != nil {
			writeShrunk(w, o, sh)
		}
	}
	return nil
}

func writeShrunk(w io.Writer, o *Outcome, sh *ShrinkResult) {
	if sh.History == "" {
		fmt.Fprintf(w, "  shrink: no smaller failing run found in %d runs (%s)\n", sh.Runs, sh.Note)
		return
	}
	fmt.Fprintf(w, "  shrunk in %d runs to %s, %s, %s: %s (%d lines; still failing: %s)\n",
		sh.Runs, plural(sh.Writers, "writer"), plural(sh.Ops, "operation"), plural(sh.Chats, "chat"), sh.History, sh.Lines, strings.Join(sh.Failing, ", "))
	fmt.Fprintf(w, "  reproduce the shrunk run: %s\n", Command(o.Scenario.File, sh.Overrides))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (s *Summary) tally() string {
	n := len(s.Outcomes)
	passed := s.count(Pass)
	if passed == n {
		return fmt.Sprintf("%d of %d scenarios passed", passed, n)
	}
	var parts []string
	for _, v := range []Verdict{Fail, RunError, Undecided, ThresholdFail} {
		if c := s.count(v); c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c, verdictNoun(v)))
		}
	}
	return fmt.Sprintf("%d of %d scenarios passed (%s)", passed, n, strings.Join(parts, ", "))
}

func verdictNoun(v Verdict) string {
	switch v {
	case Fail:
		return "failed their invariant expectation"
	case RunError:
		return "could not run"
	case Undecided:
		return "undecided"
	}
	return "failed only thresholds"
}

// jsonOutcome is one scenario in --format json.
type jsonOutcome struct {
	Name        string            `json:"name"`
	File        string            `json:"file"`
	Description string            `json:"description,omitempty"`
	Expect      string            `json:"expect"`
	Violates    []string          `json:"violates"`
	Verdict     Verdict           `json:"verdict"`
	Seed        int64             `json:"seed"`
	Target      string            `json:"target"`
	Writers     int               `json:"writers"`
	Chats       int               `json:"chats"`
	Ops         int               `json:"ops"`
	ElapsedS    float64           `json:"elapsed_s"`
	History     string            `json:"history,omitempty"`
	Lines       int               `json:"history_lines"`
	Figures     Figures           `json:"figures"`
	Thresholds  []ThresholdResult `json:"thresholds"`
	Invariants  []checker.Result  `json:"invariants"`
	Problems    []string          `json:"problems"`
	Repro       string            `json:"repro"`
	Error       string            `json:"error,omitempty"`
	Shrunk      *jsonShrunk       `json:"shrunk,omitempty"`
}

type jsonShrunk struct {
	*ShrinkResult
	Repro string `json:"repro,omitempty"`
}

// WriteJSON writes the summary as one JSON object.
func WriteJSON(w io.Writer, s *Summary) error {
	doc := struct {
		Verdict   Verdict       `json:"verdict"`
		Passed    int           `json:"passed"`
		Total     int           `json:"total"`
		ElapsedS  float64       `json:"elapsed_s"`
		OutDir    string        `json:"out_dir,omitempty"`
		Scenarios []jsonOutcome `json:"scenarios"`
	}{Verdict: s.Worst(), Passed: s.count(Pass), Total: len(s.Outcomes), ElapsedS: s.Elapsed.Seconds(), OutDir: s.OutDir, Scenarios: []jsonOutcome{}}
	for _, o := range s.Outcomes {
		sc := o.Scenario
		j := jsonOutcome{
			Name: sc.Name, File: sc.File, Description: sc.Description, Expect: sc.Expect.String(),
			Violates: nonNil(sc.Expect.Violates), Verdict: o.Verdict, Seed: o.Config.Seed, Target: o.Config.Target,
			Writers: o.Config.Writers, Chats: o.Config.Chats, Ops: o.Config.Ops,
			ElapsedS: o.Elapsed.Seconds(), Lines: o.Lines, Figures: o.Figures,
			Thresholds: o.Thresholds, Invariants: o.Check.Invariants, Problems: nonNil(o.Problems), Repro: o.Repro(),
		}
		if j.Thresholds == nil {
			j.Thresholds = []ThresholdResult{}
		}
		if j.Invariants == nil {
			j.Invariants = []checker.Result{}
		}
		if o.Err != nil {
			j.Error = o.Err.Error()
		} else {
			j.History = o.History
		}
		if o.Shrunk != nil {
			j.Shrunk = &jsonShrunk{ShrinkResult: o.Shrunk}
			if o.Shrunk.History != "" {
				j.Shrunk.Repro = Command(sc.File, o.Shrunk.Overrides)
			}
		}
		doc.Scenarios = append(doc.Scenarios, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
