package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/chatseq/chatseq/checker"
)

// WriteJSON writes the report as one indented JSON object.
func WriteJSON(w io.Writer, b Bench) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// WriteText writes the report for a person.
func WriteText(w io.Writer, b Bench) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	r := b.Run
	fmt.Fprintf(tw, "chatseq bench: target %s (%s), kafka %s, behaviour %s\n", r.Target, r.Store, r.Kafka, r.Variant)
	interrupted := ""
	if r.Interrupted {
		interrupted = ", interrupted"
	}
	fmt.Fprintf(tw, "  %d writers over %d chats (%s), %s loop, seed %d, %.2fs%s\n", r.Writers, r.Chats, r.Distribution, r.Loop, r.Seed, r.Elapsed, interrupted)
	if r.StoppedForMemory != "" {
		fmt.Fprintf(tw, "  stopped early: %s\n", r.StoppedForMemory)
	}
	fmt.Fprintln(tw)

	fmt.Fprintf(tw, "operations\t%d\t%s ops/s\n", b.Operations, formatRate(b.Throughput))
	fmt.Fprintf(tw, "  persists\t%d\tok %d (dedup %d), fail %d, info %d\n", b.Persists, b.PersistOK, b.Dedup, b.Fail, b.Info)
	fmt.Fprintf(tw, "  syncs\t%d\tok %d\n", b.Syncs, b.SyncOK)
	if rd := b.Readers; rd != nil {
		fmt.Fprintf(tw, "  readers\t%d\t%d syncs by cursor (not in operations), ok %d, %d messages received\n", rd.Readers, rd.Syncs, rd.OK, rd.Received)
	}
	fmt.Fprintf(tw, "  faults injected\t%d\tretries %d, duplicates after ok %d, concurrent duplicates %d\n", b.FaultsInjected, b.Retries, b.DuplicatesSent, b.ConcurrentDups)
	if len(b.ErrorCodes) > 0 {
		fmt.Fprintf(tw, "  errors\t\t%s\n", formatCodes(b.ErrorCodes))
	}
	fmt.Fprintf(tw, "  gap rate\t%.2f%%\t%d gaps in %d allocated sequences\n", 100*b.GapRate, b.Gaps, b.Allocated)
	fmt.Fprintf(tw, "  idempotency hit rate\t%.2f%%\t\n", 100*b.IdempotencyHit)
	if b.Run.Strategy == "occ" {
		fmt.Fprintf(tw, "  optimistic attempts\t%.2f\tper allocated sequence, at most %d for one persist\n", b.AttemptsPerPersist, b.MaxAttempts)
	}
	if b.Run.Kafka != "off" {
		fmt.Fprintf(tw, "  events read back\t%d\t\n", b.EventsRead)
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "latency\tcount\tp50\tp90\tp99\tp99.9\tmax\t\n")
	for _, p := range b.Latency {
		if p.Count == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", p.Step, p.Count, fms(p.P50), fms(p.P90), fms(p.P99), fms(p.P999), fms(p.Max))
	}
	tw.Flush()

	fmt.Fprintln(w)
	if err := WriteInvariants(w, b.Check); err != nil {
		return err
	}
	if len(b.Thresholds) > 0 {
		fmt.Fprintln(w)
		if err := writeThresholds(w, b.Thresholds); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nverdict: %s%s   history: %s\n", Verdict(b.Check), thresholdVerdict(b.Thresholds), r.History)
	return nil
}

// WriteInvariants writes the invariants table of a check.
func WriteInvariants(w io.Writer, r checker.Report) error {
	if len(r.Invariants) == 0 && len(r.NotApplicable) == 0 {
		// Not checked: only the warnings say why.
		return writeWarnings(w, r.Warnings)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "invariant\tverdict\tdetail\n")
	for _, inv := range r.Invariants {
		detail := inv.Detail
		if len(inv.Lines) > 0 {
			detail += " [lines " + formatLines(inv.Lines) + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", inv.Name, strings.ToUpper(string(inv.Status)), detail)
	}
	for _, na := range r.NotApplicable {
		fmt.Fprintf(tw, "%s\tn/a\t%s\n", na.Name, na.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeWarnings(w, r.Warnings)
}

func writeWarnings(w io.Writer, warnings []string) error {
	for _, warn := range warnings {
		if _, err := fmt.Fprintf(w, "warning: %s\n", warn); err != nil {
			return err
		}
	}
	return nil
}

// Verdict is PASS, FAIL or UNKNOWN.
func Verdict(r checker.Report) string {
	switch {
	case r.Valid == nil:
		return "UNKNOWN"
	case *r.Valid:
		return "PASS"
	}
	return "FAIL"
}

func formatLines(lines []int) string {
	const shown = 10
	parts := make([]string, 0, shown+1)
	for i, l := range lines {
		if i == shown {
			parts = append(parts, fmt.Sprintf("… %d more", len(lines)-shown))
			break
		}
		parts = append(parts, strconv.Itoa(l))
	}
	return strings.Join(parts, ", ")
}

func formatCodes(codes map[string]int64) string {
	names := make([]string, 0, len(codes))
	for k := range codes {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, codes[k])
	}
	return strings.Join(parts, ", ")
}

func formatRate(r float64) string {
	if r >= 1000 {
		return strconv.FormatFloat(r/1000, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

// fms prints a latency given in milliseconds.
func fms(v float64) string { return FormatLatency(v * 1e6) }

// FormatLatency prints nanoseconds with a unit that keeps three significant
// digits, so nanosecond steps do not all print as 0.000.
func FormatLatency(ns float64) string {
	if ns >= 1000 {
		// Round first, so 999.7µs prints as 1ms, not 1e+03µs.
		exp := math.Pow(10, math.Floor(math.Log10(ns))-2)
		ns = math.Round(ns/exp) * exp
	}
	switch {
	case ns < 1e3:
		return strconv.FormatFloat(ns, 'f', 0, 64) + "ns"
	case ns < 1e6:
		return strconv.FormatFloat(ns/1e3, 'g', 3, 64) + "µs"
	case ns < 1e9:
		return strconv.FormatFloat(ns/1e6, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(ns/1e9, 'g', 3, 64) + "s"
}
