package scenarios

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/internal/textwidth"
	"github.com/chatseq/chatseq/report"
)

// Summary is every outcome of one `chatseq run`.
type Summary struct {
	Outcomes []*Outcome
	OutDir   string
	Elapsed  time.Duration
}

// HistoriesRemoved records that the results directory was deleted (a
// temporary one, after every scenario passed): no report, JUnit file or
// JSON then names a history that is gone.
func (s *Summary) HistoriesRemoved() {
	s.OutDir = ""
	for _, o := range s.Outcomes {
		o.Dir, o.History, o.Lines = "", "", 0
		for i := range o.Attempts {
			o.Attempts[i].Dir, o.Attempts[i].History = "", ""
		}
	}
}

// WorthKeeping reports whether the results directory holds something to
// look at: a scenario that did not pass, or one that passed on a retry,
// whose earlier tries' files (try-N) show what failed. A temporary
// directory is removed only when it is not.
func (s *Summary) WorthKeeping() bool {
	return s.Worst() != Pass || s.passedOnRetry() > 0
}

// severity orders verdicts for the run's overall result: a broken
// expectation is the news, then an interrupted run (a shorter one than
// asked for), then a run that could not be carried out, then an
// undecided check, then a threshold.
var severity = map[Verdict]int{Pass: 0, ThresholdFail: 1, Undecided: 2, RunError: 3, Interrupted: 4, Fail: 5}

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
// a POSIX shell, credentials masked (redact.Flag): it is printed and kept
// in JUnit files.
func Command(file string, ov Overrides) string {
	parts := []string{"chatseq", "run", shellQuote(file)}
	flag := ""
	for _, a := range ov.Args() {
		if name, ok := strings.CutPrefix(a, "--"); ok && flag == "" {
			if name, v, ok := strings.Cut(name, "="); ok { // --insecure=true: one word
				a = "--" + name + "=" + redact.Flag(name, v)
			} else {
				flag = name
			}
		} else {
			a, flag = redact.Flag(flag, a), ""
		}
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
// problems and the command that reproduces it, fitted to the terminal's
// width when w is one (report.TerminalWidth).
func WriteText(w io.Writer, s *Summary) error { return writeText(w, s, report.TerminalWidth(w)) }

func writeText(w io.Writer, s *Summary, width int) error {
	const indent = "  "
	header := []string{"scenario", "expect", "verdict", "ops", "persisted", "gap rate", "allocate p99", "end-to-end p99", "time", ""}
	rows := make([][]string, len(s.Outcomes))
	for i, o := range s.Outcomes {
		f := o.Figures
		verdict := strings.ToUpper(string(o.Verdict))
		if o.Tries() > 1 {
			verdict += fmt.Sprintf(" (try %d)", o.Tries())
		}
		rows[i] = []string{o.Scenario.Name, o.Scenario.Expect.String(), verdict, fmt.Sprint(f.Operations), fmt.Sprint(f.Persisted),
			f.GapRateText(), orDash(f.AllocateP99), orDash(f.EndToEndP99), fmt.Sprintf("%.1fs", o.TotalElapsed().Seconds()), ""}
	}
	if err := report.FitTable(w, header, rows, width); err != nil {
		return err
	}
	tally := fmt.Sprintf("%s in %.1fs", s.tally(), s.Elapsed.Seconds())
	if s.OutDir != "" {
		tally += "; histories in " + s.OutDir
	}
	fmt.Fprintln(w)
	report.WrapLine(w, tally, width, indent)
	for _, o := range s.Outcomes {
		if o.StoppedEarly != "" {
			report.WrapLine(w, fmt.Sprintf("%s stopped early (fail_fast): %s", o.Scenario.Name, o.StoppedEarly), width, indent)
		}
	}
	for _, o := range s.Outcomes {
		if o.Verdict == Pass {
			if len(o.Attempts) > 0 {
				fmt.Fprintln(w)
				report.WrapLine(w, fmt.Sprintf("PASS %s (%s) on try %d of %d: the earlier tries failed only thresholds", o.Scenario.Name, o.Scenario.File, o.Tries(), o.Tries()), width, indent)
				writeAttempts(w, o, width)
				counts := fmt.Sprintf("%stry %d of %d, which counts: PASS in %.1fs", indent, o.Tries(), o.Tries(), o.Elapsed.Seconds())
				if o.Dir != "" {
					counts += "; its files in " + o.Dir
				}
				report.WrapLine(w, counts, width, indent+indent)
			}
			continue
		}
		fmt.Fprintln(w)
		report.WrapLine(w, fmt.Sprintf("%s %s (%s)", strings.ToUpper(string(o.Verdict)), o.Scenario.Name, o.Scenario.File), width, indent)
		problemIndent := indent
		if len(o.Attempts) > 0 {
			writeAttempts(w, o, width)
			report.WrapLine(w, fmt.Sprintf("%stry %d of %d, which counts: %s in %.1fs", indent, o.Tries(), o.Tries(), strings.ToUpper(string(o.Verdict)), o.Elapsed.Seconds()), width, indent+indent)
			problemIndent = indent + indent
		}
		for _, p := range o.Problems {
			report.WrapLine(w, problemIndent+p, width, problemIndent+indent)
		}
		if o.Verdict != RunError {
			report.WrapLine(w, fmt.Sprintf("%shistory: %s (%d lines)", indent, o.History, o.Lines), width, indent+indent)
		}
		writeCommand(w, indent+"reproduce: ", o.Repro(), width)
		if sh := o.Shrunk; sh != nil {
			writeShrunk(w, o, sh, width)
		}
	}
	return nil
}

// writeAttempts writes each earlier try of a retried scenario and why it
// did not pass.
func writeAttempts(w io.Writer, o *Outcome, width int) {
	const indent = "  "
	for _, a := range o.Attempts {
		report.WrapLine(w, fmt.Sprintf("%stry %d of %d: %s in %.1fs, run again (--retries): only thresholds failed", indent, a.Number, o.Tries(), strings.ToUpper(string(a.Verdict)), a.ElapsedS), width, indent+indent)
		for _, p := range a.Problems {
			report.WrapLine(w, indent+indent+p, width, indent+indent+indent)
		}
		if a.Dir != "" {
			report.WrapLine(w, fmt.Sprintf("%skept: %s (history, results.json, report.html; chatseq report reads it)", indent+indent, a.Dir), width, indent+indent+indent)
		}
	}
}

func writeShrunk(w io.Writer, o *Outcome, sh *ShrinkResult, width int) {
	const indent = "    "
	if sh.History == "" {
		report.WrapLine(w, fmt.Sprintf("  shrink: no smaller failing run found in %d runs (%s)", sh.Runs, sh.Note), width, indent)
		return
	}
	report.WrapLine(w, fmt.Sprintf("  shrunk in %d runs to %s, %s, %s: %s (%d lines; still failing: %s)",
		sh.Runs, plural(sh.Writers, "writer"), plural(sh.Ops, "operation"), plural(sh.Chats, "chat"), sh.History, sh.Lines, strings.Join(sh.Failing, ", ")), width, indent)
	writeCommand(w, "  reproduce the shrunk run: ", Command(o.Scenario.File, sh.Overrides), width)
}

// writeCommand writes label and a shell command, the command wrapped
// between shell words with " \" continuations, so that what is copied off
// the terminal is still the one command: under its first word, or, when a
// word of it would not fit there, on lines of their own below the label.
func writeCommand(w io.Writer, label, cmd string, width int) {
	if width <= 0 || textwidth.Columns(label+cmd) <= width {
		fmt.Fprintln(w, label+cmd)
		return
	}
	const cont, under = " \\", "    "
	pad := strings.Repeat(" ", textwidth.Columns(label))
	lines := textwidth.WrapCommand(cmd, width-len(pad), "")
	if textwidth.Columns(pad)+textwidth.LongestShellWord(cmd)+len(cont) > width {
		fmt.Fprintln(w, strings.TrimRight(label, " "))
		label, pad = under, under
		lines = textwidth.WrapCommand(cmd, width-len(under), "")
	}
	fmt.Fprintln(w, label+lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintln(w, pad+l)
	}
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
	retried := ""
	if r := s.passedOnRetry(); r > 0 {
		retried = fmt.Sprintf(", %d of them on a retry", r)
	}
	if passed == n {
		return fmt.Sprintf("%d of %d scenarios passed%s", passed, n, retried)
	}
	var parts []string
	for _, v := range []Verdict{Fail, Interrupted, RunError, Undecided, ThresholdFail} {
		if c := s.count(v); c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c, verdictNoun(v)))
		}
	}
	return fmt.Sprintf("%d of %d scenarios passed%s (%s)", passed, n, retried, strings.Join(parts, ", "))
}

// passedOnRetry counts the scenarios that passed on a later try.
func (s *Summary) passedOnRetry() int {
	n := 0
	for _, o := range s.Outcomes {
		if o.Verdict == Pass && len(o.Attempts) > 0 {
			n++
		}
	}
	return n
}

func verdictNoun(v Verdict) string {
	switch v {
	case Fail:
		return "failed their invariant expectation"
	case RunError:
		return "could not run"
	case Undecided:
		return "undecided"
	case Interrupted:
		return "interrupted"
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
	// Tries is how many times the scenario ran (--retries); the fields
	// above are the last try's, EarlierTries every try before it.
	Tries        int       `json:"tries"`
	EarlierTries []Attempt `json:"earlier_tries"`
	// StoppedEarly: fail_fast stopped the writers at the online check's
	// first violation, which it names.
	StoppedEarly string `json:"stopped_early,omitempty"`
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
		Retried   int           `json:"passed_on_retry"`
		Scenarios []jsonOutcome `json:"scenarios"`
	}{Verdict: s.Worst(), Passed: s.count(Pass), Total: len(s.Outcomes), ElapsedS: s.Elapsed.Seconds(), OutDir: s.OutDir, Retried: s.passedOnRetry(), Scenarios: []jsonOutcome{}}
	for _, o := range s.Outcomes {
		sc := o.Scenario
		j := jsonOutcome{
			Name: sc.Name, File: sc.File, Description: sc.Description, Expect: sc.Expect.String(),
			Violates: nonNil(sc.Expect.Violates), Verdict: o.Verdict, Seed: o.Config.Seed, Target: o.Config.Target,
			Writers: o.Config.Writers, Chats: o.Config.Chats, Ops: o.Config.Ops,
			ElapsedS: o.Elapsed.Seconds(), Lines: o.Lines, Figures: o.Figures,
			Thresholds: o.Thresholds, Invariants: o.Check.Invariants, Problems: nonNil(o.Problems), Repro: o.Repro(),
			Tries: o.Tries(), EarlierTries: o.Attempts, StoppedEarly: o.StoppedEarly,
		}
		if j.EarlierTries == nil {
			j.EarlierTries = []Attempt{}
		}
		if j.Thresholds == nil {
			j.Thresholds = []ThresholdResult{}
		}
		if j.Invariants == nil {
			j.Invariants = []checker.Result{}
		}
		if o.Err != nil {
			j.Error = redact.Text(o.Err.Error())
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
