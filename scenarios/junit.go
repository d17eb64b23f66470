package scenarios

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatseq/chatseq/report"
)

// JUnit report types, in the common schema CI servers read (Jenkins,
// GitLab, GitHub Actions reporters): one testsuite per scenario directory,
// one testcase per scenario.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

type JUnitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []JUnitCase `xml:"testcase"`
}

type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	// Earlier attempts of a scenario run again for failing only
	// thresholds (--retries), in Maven Surefire's rerun convention, which
	// Jenkins, GitLab and others read: <rerunFailure> beside the
	// <failure> of a case that failed every attempt, <flakyFailure> in a
	// case that passed on a later one (it counts as passed, marked
	// flaky).
	RerunFailures []JUnitRerun `xml:"rerunFailure,omitempty"`
	FlakyFailures []JUnitRerun `xml:"flakyFailure,omitempty"`
	SystemOut     string       `xml:"system-out,omitempty"`
}

// JUnitRerun is one earlier attempt's failure: its message and type as a
// <failure>'s, and its full text in <stackTrace>, as Surefire writes it.
type JUnitRerun struct {
	Message    string `xml:"message,attr"`
	Type       string `xml:"type,attr"`
	StackTrace string `xml:"stackTrace"`
}

// JUnitProblem is a <failure> or <error>: a one-line message, a type, and
// the full text with the repro command.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit builds the report of a run. started stamps the suites.
func JUnit(s *Summary, started time.Time) JUnitSuites {
	root := JUnitSuites{Name: "chatseq run", Time: seconds(s.Elapsed)}
	index := map[string]int{}
	for _, o := range s.Outcomes {
		dir := suiteDir(o.Scenario.File)
		i, ok := index[dir]
		if !ok {
			i = len(root.Suites)
			index[dir] = i
			root.Suites = append(root.Suites, JUnitSuite{Name: dir, Timestamp: started.UTC().Format("2006-01-02T15:04:05")})
		}
		suite := &root.Suites[i]
		c := junitCase(o, dir)
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
		root.Tests++
		switch {
		case c.Error != nil:
			suite.Errors++
			root.Errors++
		case c.Failure != nil:
			suite.Failures++
			root.Failures++
		}
	}
	for i := range root.Suites {
		var total time.Duration
		for _, o := range s.Outcomes {
			if suiteDir(o.Scenario.File) == root.Suites[i].Name {
				total += o.TotalElapsed()
			}
		}
		root.Suites[i].Time = seconds(total)
	}
	return root
}

// suiteDir is the directory of a scenario file as its suite and its
// cases' classname show it: relative to the current directory when the
// file is under it, however the path was typed (./scenarios/x.yaml,
// scenarios/x.yaml and /abs/checkout/scenarios/x.yaml give
// "scenarios"), so CI servers that track tests by classname see one test
// from run to run. A file outside it keeps its absolute directory.
func suiteDir(file string) string {
	dir := filepath.Dir(file)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
		if cwd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				dir = rel
			}
		}
	}
	return filepath.ToSlash(dir)
}

func junitCase(o *Outcome, dir string) JUnitCase {
	c := JUnitCase{
		Name: o.Scenario.Name, Classname: strings.ReplaceAll(strings.TrimPrefix(dir, "/"), "/", "."),
		File: filepath.ToSlash(o.Scenario.File), Time: seconds(o.TotalElapsed()),
	}
	f := o.Figures
	out := fmt.Sprintf("expect: %s\nverdict: %s\nseed: %d\noperations: %d, persisted: %d, gap rate: %s, allocate p99: %s, end-to-end p99: %s\n",
		o.Scenario.Expect, o.Verdict, o.Config.Seed, f.Operations, f.Persisted, f.GapRateText(), orDash(f.AllocateP99), orDash(f.EndToEndP99))
	for _, t := range o.Thresholds {
		mark := "ok"
		if !t.OK {
			mark = "FAILED"
		}
		out += fmt.Sprintf("threshold %s: %s (%s)\n", t.Expr, t.Actual, mark)
	}
	if o.Verdict != RunError && o.History != "" {
		out += fmt.Sprintf("history: %s (%d lines)\n", o.History, o.Lines)
	}
	var reruns []JUnitRerun
	for _, a := range o.Attempts {
		out += fmt.Sprintf("try %d of %d: %s in %.1fs (%s)\n", a.Number, o.Tries(), a.Verdict, a.ElapsedS, strings.Join(a.Problems, "; "))
		trace := fmt.Sprintf("try %d of %d\n%s\n\nreproduce: %s\n", a.Number, o.Tries(), strings.Join(a.Problems, "\n"), o.Repro())
		if a.Dir != "" {
			// The try's own files, kept where the next try did not
			// overwrite them.
			out += fmt.Sprintf("try %d kept: %s\n", a.Number, a.Dir)
			trace += fmt.Sprintf("kept: %s\nhistory: %s\nreport: %s\n", a.Dir, a.History, filepath.Join(a.Dir, report.ReportFile))
		}
		reruns = append(reruns, JUnitRerun{Message: junitMessage(a.Problems), Type: string(a.Verdict), StackTrace: trace})
	}
	if len(o.Attempts) > 0 {
		out += fmt.Sprintf("try %d of %d: %s in %.1fs (counts)\n", o.Tries(), o.Tries(), o.Verdict, o.Elapsed.Seconds())
	}
	c.SystemOut = out
	if o.Verdict == Pass {
		c.FlakyFailures = reruns
		return c
	}
	c.RerunFailures = reruns
	text := strings.Join(o.Problems, "\n") + "\n\nreproduce: " + o.Repro() + "\n"
	if o.Verdict != RunError && o.History != "" {
		text += "history: " + o.History + "\n"
	}
	if sh := o.Shrunk; sh != nil && sh.History != "" {
		text += fmt.Sprintf("shrunk to %s, %s, %s: %s (%d lines)\nreproduce the shrunk run: %s\n",
			plural(sh.Writers, "writer"), plural(sh.Ops, "operation"), plural(sh.Chats, "chat"), sh.History, sh.Lines, Command(o.Scenario.File, sh.Overrides))
	}
	p := &JUnitProblem{Message: junitMessage(o.Problems), Type: string(o.Verdict), Text: text}
	if o.Verdict == RunError {
		c.Error = p
	} else {
		c.Failure = p
	}
	return c
}

// junitMessage is a failure's one-line message: its first problem,
// shortened.
func junitMessage(problems []string) string {
	msg := ""
	if len(problems) > 0 {
		msg = problems[0]
	}
	const maxMessage = 400
	if r := []rune(msg); len(r) > maxMessage {
		msg = string(r[:maxMessage]) + "…"
	}
	return msg
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the report as an XML document.
func WriteJUnit(w io.Writer, s *Summary, started time.Time) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(JUnit(s, started)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
