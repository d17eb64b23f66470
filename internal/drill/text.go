package drill

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/chatseq/chatseq/report"
)

// WriteText prints the drill's timeline, expectations and invariants.
func WriteText(w io.Writer, r *Result, storeName string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "chatseq drill %s: store %s, chat %q, %d writers, strategy %s", r.Drill, storeName, r.Chat, r.Writers, r.Strategy)
	if r.Orphans > 0 {
		fmt.Fprintf(&b, ", %d orphaned allocations", r.Orphans)
	}
	b.WriteString("\n\ntimeline (since load start)\n")
	for _, e := range r.timelineEntries() {
		fmt.Fprintf(&b, "  %10s  %s\n", offset(e.at, r.Timeline.LoadStart), e.what)
	}
	fmt.Fprintf(&b, "  time to detect %s (deletion → first counter_missing), time to recover %s (deletion → first new message acknowledged)\n",
		duration(r.Timeline.TimeToDetect()), duration(r.Timeline.TimeToRecover()))

	b.WriteString("\nexpectations\n")
	for _, e := range r.Expectations {
		mark := "PASS"
		if !e.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s  %-52s %s\n", mark, e.Name, e.Detail)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := report.WriteInvariants(w, r.Report); err != nil {
		return err
	}
	verdict := "PASS"
	if !r.Passed {
		verdict = "FAIL"
	}
	_, err := fmt.Fprintf(w, "\ndrill verdict: %s   history: %s\n", verdict, r.HistoryPath)
	return err
}

// WriteJSON prints the result as one JSON object; times are nanoseconds on
// the history's clock, plus the two derived durations in milliseconds.
func WriteJSON(w io.Writer, r *Result) error {
	out := struct {
		*Result
		TimeToDetectMS  *float64 `json:"time_to_detect_ms"`
		TimeToRecoverMS *float64 `json:"time_to_recover_ms"`
	}{Result: r, TimeToDetectMS: millis(r.Timeline.TimeToDetect()), TimeToRecoverMS: millis(r.Timeline.TimeToRecover())}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

type entry struct {
	at   int64
	what string
}

func (r *Result) timelineEntries() []entry {
	tl := r.Timeline
	straggler := "straggler persist in flight (commit held)"
	if r.StragglerSeq > 0 {
		straggler = fmt.Sprintf("straggler persist in flight (seq %d allocated, commit held)", r.StragglerSeq)
	}
	recovered := fmt.Sprintf("recovery written: counter = %d (highest persisted %d)", r.CounterAfterRecovery, r.MaxPersisted)
	if r.RecoveryError != "" {
		recovered += ", error: " + r.RecoveryError
	}
	first := "first success"
	if r.VerifySeq > 0 {
		first = fmt.Sprintf("first success: post-recovery test message got seq %d", r.VerifySeq)
	} else if r.FirstNewSeq > 0 {
		first = fmt.Sprintf("first success (lowest new sequence %d)", r.FirstNewSeq)
	}
	all := []entry{
		{tl.LoadStart, fmt.Sprintf("load start (%d writers)", r.Writers)},
		{tl.StragglerInFlight, straggler},
		{tl.CounterDeleted, "counter deleted"},
		{tl.FirstCounterMissing, "first counter_missing seen by a client"},
		{tl.Quiesced, "writers quiesced (no write in flight)"},
		{tl.RecoveryStarted, "recovery started"},
		{tl.RecoveryWritten, recovered},
		{tl.FirstSuccess, first},
		{tl.LoadStopped, "load stopped"},
	}
	var out []entry
	for _, e := range all {
		if e.at >= 0 {
			out = append(out, e)
		}
	}
	if r.Aborted != "" {
		out = append(out, entry{tl.LoadStopped, "ABORTED: " + r.Aborted})
	}
	return out
}

func offset(at, base int64) string {
	if base < 0 {
		base = 0
	}
	return "+" + duration(at-base)
}

func duration(ns int64) string {
	if ns < 0 {
		return "n/a"
	}
	d := time.Duration(ns)
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

func millis(ns int64) *float64 {
	if ns < 0 {
		return nil
	}
	v := float64(ns) / float64(time.Millisecond)
	return &v
}
