package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/chatseq/chatseq/history"
)

// WriteText renders r as a human table: one row per invariant with its
// status and detail, the counterexample lines under a failure, then the
// invariants that do not apply, warnings and statistics.
func WriteText(w io.Writer, r Report) error {
	verdict := "UNKNOWN (no invariant failed, some could not be decided)"
	if r.Valid != nil {
		verdict = "INVALID"
		if *r.Valid {
			verdict = "VALID"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s\n", verdict)
	b.WriteString("contract:")
	for _, f := range history.ContractFields {
		fmt.Fprintf(&b, " %s=%s", f.Name, *f.Of(&r.Contract))
	}
	b.WriteString("\n\n")

	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "INVARIANT\tSTATUS\tDETAIL")
	for _, res := range r.Invariants {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", res.Name, strings.ToUpper(string(res.Status)), oneLine(res.Detail))
		if len(res.Lines) > 0 {
			fmt.Fprintf(tw, "\t\tcounterexample lines: %s\n", joinInts(res.Lines))
		}
	}
	for _, na := range r.NotApplicable {
		fmt.Fprintf(tw, "%s\tn-a\t%s\n", na.Name, oneLine(na.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\nwarnings:\n")
		for _, wn := range r.Warnings {
			fmt.Fprintf(&b, "  - %s\n", oneLine(wn))
		}
	}
	s := r.Stats
	fmt.Fprintf(&b, "\nstats: %d chats, %d operations (%d persists, %d syncs): ok %d (dedup %d), fail %d, info %d (unfinished %d); %d allocations; %d final messages\n",
		s.Chats, s.Operations, s.Persists, s.Syncs, s.OK, s.Dedup, s.Fail, s.Info, s.Unfinished, s.Allocations, s.Messages)
	fmt.Fprintf(&b, "gaps: %d (rate %.4g%%)%s\n", s.Gaps, 100*s.GapRate, counts(s.GapCauses))
	if len(s.ErrorCodes) > 0 {
		fmt.Fprintf(&b, "error codes%s\n", counts(s.ErrorCodes))
	}
	fmt.Fprintf(&b, "late commits below a cursor: %d; duplicate events: %d; linearizability: %d chats decided, %d undecided; checked in %d ms\n",
		s.LateCommits, s.DuplicateEvents, s.LinearizabilityChats, s.LinearizabilityUndecided, s.CheckMillis)
	fmt.Fprintf(&b, "catch-up: %d (reader, message) pairs missed; events out of sequence order: %d\n", s.CatchUpMissed, s.EventsOutOfOrder)
	if d := s.Delivery; d != nil {
		fmt.Fprintf(&b, "delivery: %d devices (%d settled), %d pushes of %d messages, %d duplicates, %d out of order (counted, not failed: at-least-once transport, clients reorder), %d delivery acks\n",
			d.Devices, d.Settled, d.PushLines, d.Pushed, d.Duplicates, d.OutOfOrder, d.Acks)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf(" %s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return ""
	}
	return ":" + strings.Join(parts, ",")
}
