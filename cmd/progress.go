package cmd

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/termsafe"
	"github.com/chatseq/chatseq/internal/textwidth"
)

// plainEvery is how often progress prints a line when stderr is not a
// terminal (a CI log, a file): often enough to show a long run is alive,
// rarely enough to keep the log readable.
const plainEvery = 5 * time.Second

// progressPrinter shows a run's progress on stderr: a bar redrawn in place
// on a terminal, plain lines otherwise. It never writes to stdout, so
// --format json output stays clean.
type progressPrinter struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
	// width is the terminal's width; widthOf, when set, reads it again
	// before every redraw, so a resized terminal gets lines that fit it.
	width   int
	widthOf func() (int, bool)
	// drawn is how many columns the line redrawn in place last took (0:
	// none is open): after the terminal narrows, the terminal re-wraps it
	// over several rows, and all of them must be cleared.
	drawn     int
	nextPlain time.Duration
	// violated are the invariants the online check found violated, in
	// the order found: every later line names them.
	violated []string
	// The step after the writers under way, since when, and the steps
	// done with their times.
	step      string
	stepBegan time.Time
	stepsDone []string
	now       func() time.Time
	// stepsLabel starts the line that times the steps.
	stepsLabel string
	// dropDone leaves the writers' end unprinted (a line drawn in place
	// is cleared): run prints each scenario's verdict line instead.
	dropDone bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	p := &progressPrinter{w: w, nextPlain: plainEvery, now: time.Now, stepsLabel: "after the writers: "}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fd := int(f.Fd())
		p.tty, p.width = true, 80
		p.widthOf = func() (int, bool) {
			width, _, err := term.GetSize(fd)
			return width, err == nil && width > 0
		}
	}
	return p
}

// spareColumns are left free at the end of a line drawn in place: one
// because a line that fills the last column leaves the cursor on the next
// row in some terminals, two for the terminal's own echo of Ctrl-C ("^C"),
// which would otherwise wrap and strand the line above the next redraw.
const spareColumns = 3

// redraw replaces the line drawn in place with line, cut to the
// terminal's width less spareColumns; end finishes it with a newline, so
// that it stays.
func (p *progressPrinter) redraw(line string, end bool) {
	if p.widthOf != nil {
		if width, ok := p.widthOf(); ok {
			p.width = width
		}
	}
	switch {
	case p.width < 1:
		// Width unknown: the line as it is.
	case end:
		// A line that stays may take several rows, broken between words.
		line = strings.Join(textwidth.Wrap(line, p.width-spareColumns), "\n")
	default:
		line = textwidth.Cut(line, p.width-spareColumns)
	}
	var b strings.Builder
	b.WriteByte('\r')
	if rows := (p.drawn - 1) / max(p.width, 1); p.width > 0 && p.drawn > 0 && rows > 0 {
		// The terminal narrowed under the last line and wrapped it: go
		// up to its first row and clear everything below.
		fmt.Fprintf(&b, "\x1b[%dA%s\x1b[J", rows, line)
	} else {
		b.WriteString(line + "\x1b[K")
	}
	p.drawn = textwidth.Columns(line)
	if end {
		b.WriteByte('\n')
		p.drawn = 0
	}
	io.WriteString(p.w, b.String())
}

// update is bench.Config.Progress.
func (p *progressPrinter) update(pr bench.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case pr.Done && p.dropDone && p.tty:
		p.redraw("", false)
		p.drawn = 0
		return
	case pr.Done && p.dropDone:
		return
	case p.tty:
		p.redraw(p.bar(pr), pr.Done)
		return
	}
	if !pr.Done && pr.Elapsed < p.nextPlain {
		return
	}
	for p.nextPlain <= pr.Elapsed {
		p.nextPlain += plainEvery
	}
	fmt.Fprintln(p.w, "progress: "+strings.Join(p.fields(pr), "  "))
}

// fields are the facts both forms show, the most important first: a
// narrow terminal shows as many as fit.
func (p *progressPrinter) fields(pr bench.Progress) []string {
	out := []string{pr.Target, elapsedOf(pr), fmt.Sprintf("%d ops", pr.Operations)}
	if len(p.violated) > 0 {
		out = append(out, "VIOLATED "+strings.Join(p.violated, ","))
	}
	switch {
	case pr.Done && stoppedEarly(pr):
		return append(out, "writers stopped early")
	case pr.Done:
		return append(out, "writers done")
	}
	// Rate and p99 describe the last complete interval: there is none in
	// the first, and a 0 there would be a figure nobody measured.
	if pr.Elapsed >= bench.IntervalLength {
		p99 := "-"
		if pr.P99 > 0 {
			p99 = formatDuration(pr.P99)
		}
		out = append(out, formatOpsRate(pr.Rate)+" ops/s", "p99 "+p99)
	}
	out = append(out, fmt.Sprintf("faults %d", pr.FaultsInjected))
	if len(pr.ActiveFaults) > 0 {
		out = append(out, "now: "+strings.Join(pr.ActiveFaults, ","))
	}
	if left, ok := timeLeft(pr); ok {
		out = append(out, formatDuration(left.Round(time.Second))+" left")
	}
	return out
}

// bar is the terminal line: a bar and the percentage when the run's end
// is known, then as many of the facts as fit the terminal's width (whole
// fields, never half a number).
func (p *progressPrinter) bar(pr bench.Progress) string {
	fields := p.fields(pr)
	width := p.width
	if p.widthOf != nil {
		if w, ok := p.widthOf(); ok {
			width = w
		}
	}
	text := strings.Join(fields, "  ")
	if width > 0 {
		text = textwidth.JoinFitting(fields, "  ", width-spareColumns)
	}
	frac, known := fraction(pr)
	if pr.Done && !stoppedEarly(pr) {
		frac, known = 1, true
	}
	if !known {
		return text
	}
	room := width - textwidth.Columns(text) - 9 - spareColumns // "[" "] " "100%  "
	if room < 10 {
		// The facts first; the percentage where it still fits.
		if pct := fmt.Sprintf("%d%%  ", int(100*frac)); textwidth.Columns(pct+text) <= width-spareColumns {
			return pct + text
		}
		return text
	}
	n := min(room, 40)
	full := int(frac * float64(n))
	bar := strings.Repeat("=", full)
	if full < n {
		bar += ">" + strings.Repeat(" ", n-full-1)
	}
	return fmt.Sprintf("[%s] %3d%%  %s", bar, int(100*frac), text)
}

// stoppedEarly tells a final report of writers stopped before their
// duration or operations were done (Ctrl-C, or memory running out) from
// one of a run that went its length.
func stoppedEarly(pr bench.Progress) bool {
	frac, known := fraction(pr)
	return known && frac < 0.99
}

// fraction is how far the run is: by time, by operations, or by whichever
// ends it first when both bound it.
func fraction(pr bench.Progress) (float64, bool) {
	var f float64
	known := false
	if pr.Duration > 0 {
		f, known = float64(pr.Elapsed)/float64(pr.Duration), true
	}
	if pr.TargetOps > 0 {
		f, known = max(f, float64(pr.Operations)/float64(pr.TargetOps)), true
	}
	return min(f, 1), known
}

// timeLeft estimates the rest of the run: the duration's remainder, or the
// remaining operations at the average rate so far.
func timeLeft(pr bench.Progress) (time.Duration, bool) {
	left, known := time.Duration(0), false
	if pr.Duration > 0 {
		left, known = max(pr.Duration-pr.Elapsed, 0), true
	}
	if pr.TargetOps > 0 && pr.Operations > 0 && pr.Elapsed > 0 {
		perOp := float64(pr.Elapsed) / float64(pr.Operations)
		byOps := time.Duration(perOp * float64(max(pr.TargetOps-pr.Operations, 0)))
		if !known || byOps < left {
			left = byOps
		}
		known = true
	}
	return left, known
}

func elapsedOf(pr bench.Progress) string {
	s := formatDuration(pr.Elapsed.Round(100 * time.Millisecond))
	if pr.Duration > 0 {
		s += "/" + formatDuration(pr.Duration)
	}
	return s
}

func formatOpsRate(r float64) string {
	if r >= 1000 {
		return strconv.FormatFloat(r/1000, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

// formatDuration keeps about three significant digits: 3.21ms, 12.4s.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case d < time.Millisecond:
		return sig3(float64(d)/1e3) + "µs"
	case d < time.Second:
		return sig3(float64(d)/1e6) + "ms"
	case d < time.Minute:
		return sig3(d.Seconds()) + "s"
	}
	return d.Round(time.Second).String()
}

// sig3 prints v (at least 1) with three significant digits, never in
// exponent form.
func sig3(v float64) string {
	decimals := 0
	switch {
	case v < 10:
		decimals = 2
	case v < 100:
		decimals = 1
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// The steps after the writers that bench itself takes (the bench package
// announces its own).
const (
	phaseReadBack = "reading the history back"
	phaseCheck    = "checking the history"
)

// phase marks the start of a step after the writers, name, and so the end
// of the one before, which it times; "" ends the last and prints every
// step's time on one line. A nil printer (--quiet) prints nothing.
func (p *progressPrinter) phase(target, name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.step != "" {
		p.stepsDone = append(p.stepsDone, p.step+" "+formatDuration(now.Sub(p.stepBegan).Round(100*time.Millisecond)))
	}
	p.step, p.stepBegan = name, now
	line := target + "  " + name + "…"
	if name == "" {
		line = target + "  " + p.stepsLabel + strings.Join(p.stepsDone, ", ")
		p.stepsDone = nil
	}
	switch {
	case p.tty && name == "":
		p.redraw(line, true)
	case p.tty:
		p.redraw(line, false)
	default:
		fmt.Fprintln(p.w, "progress: "+line)
	}
}

// clear drops the step under way without timing anything: on a terminal
// it erases the line, so an error prints on a line of its own.
func (p *progressPrinter) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.step, p.stepsDone = "", nil
	if p.tty {
		p.redraw("", false)
		p.drawn = 0
	}
}

// violation shows an invariant's first violation the moment the online
// check finds it, on a line of its own, and names it on every later
// progress line.
func (p *progressPrinter) violation(target string, v checker.Violation) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.violated = append(p.violated, v.Invariant)
	p.mu.Unlock()
	p.message(fmt.Sprintf("%s: online check: %s violated at line %d: %s", target, v.Invariant, v.Lines[len(v.Lines)-1], v.Detail))
}

// message prints msg on a line of its own: on a terminal it takes the
// place of the line drawn in place, which the next update draws again
// below it.
func (p *progressPrinter) message(msg string) {
	msg = termsafe.Text(msg) // a violation's detail quotes what a service answered
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.redraw(msg, true)
		return
	}
	fmt.Fprintln(p.w, msg)
}
