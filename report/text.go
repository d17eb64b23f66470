package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/termsafe"
)

// WriteJSON writes the report as one indented JSON object.
func WriteJSON(w io.Writer, b Bench) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// WriteText writes the report for a person, fitted to the terminal's
// width when w is one (TerminalWidth).
func WriteText(w io.Writer, b Bench) error { return writeText(w, b, TerminalWidth(w)) }

func writeText(w io.Writer, b Bench, width int) error {
	r := b.Run
	const indent = "  "
	behaviour := r.Variant
	if len(r.VariantWindows) > 0 {
		behaviour += ", then " + strings.Join(r.VariantWindows, ", ") + " (--schedule variant_on)"
	}
	wrapLine(w, fmt.Sprintf("chatseq bench: target %s (%s), kafka %s, behaviour %s", r.Target, r.Store, r.Kafka, behaviour), width, indent)
	interrupted := ""
	if r.Interrupted {
		interrupted = ", interrupted"
	}
	wrapLine(w, fmt.Sprintf("  %s over %s (%s), %s loop, seed %d, %.2fs%s", count(int64(r.Writers), "writer"), count(int64(r.Chats), "chat"),
		r.Distribution, r.Loop, r.Seed, r.Elapsed, interrupted), width, indent+indent)
	if r.StoppedForMemory != "" {
		wrapLine(w, "  stopped early: "+r.StoppedForMemory, width, indent+indent)
	}
	if r.StoppedForViolation != "" {
		wrapLine(w, "  stopped early (--fail-fast): "+r.StoppedForViolation, width, indent+indent)
	}
	for _, v := range b.Online {
		wrapLine(w, fmt.Sprintf("  online check: %s violated at line %d: %s (lines %v)", v.Invariant, v.Lines[len(v.Lines)-1], v.Detail, v.Lines), width, indent+indent)
	}
	fmt.Fprintln(w)

	var t table
	t.add("operations", fmt.Sprint(b.Operations), formatRate(b.Throughput)+" ops/s")
	t.add("  persists", fmt.Sprint(b.Persists), fmt.Sprintf("ok %d (dedup %d), fail %d, info %d", b.PersistOK, b.Dedup, b.PersistFail(), b.PersistInfo()))
	syncs := fmt.Sprintf("ok %d", b.SyncOK)
	if b.SyncFail+b.SyncInfo > 0 {
		syncs += fmt.Sprintf(", fail %d, info %d", b.SyncFail, b.SyncInfo)
	}
	t.add("  syncs", fmt.Sprint(b.Syncs), syncs)
	if rd := b.Readers; rd != nil {
		t.add("  readers", fmt.Sprint(rd.Readers), fmt.Sprintf("%s by cursor (not in operations), ok %d, %s received", count(rd.Syncs, "sync"), rd.OK, count(rd.Received, "message")))
	}
	if b.Receivers != nil {
		t.addReceivers(b.Receivers)
	}
	kills := ""
	if b.ServerKills > 0 {
		kills = fmt.Sprintf("server kills %d, ", b.ServerKills)
	}
	if b.ServerKafkaOutages > 0 {
		kills += fmt.Sprintf("server Kafka outages %d, ", b.ServerKafkaOutages)
	}
	t.add("  faults injected", fmt.Sprint(b.FaultsInjected), fmt.Sprintf("%sretries %d, duplicates after ok %d, concurrent duplicates %d", kills, b.Retries, b.DuplicatesSent, b.ConcurrentDups))
	if len(b.ErrorCodes) > 0 {
		t.add("  errors", "", formatCodes(b.ErrorCodes))
	}
	if b.GapsUnknown != "" {
		t.add("  gap rate", b.GapRateText(), "unknown: "+b.GapsUnknown)
	} else {
		t.add("  gap rate", b.GapRateText(), fmt.Sprintf("%s in %s", count(b.Gaps, "gap"), count(b.Allocated, "allocated sequence")))
	}
	t.add("  idempotency hit rate", fmt.Sprintf("%.2f%%", 100*b.IdempotencyHit), "")
	if b.Run.Strategy == "occ" {
		t.add("  optimistic attempts", fmt.Sprintf("%.2f", b.AttemptsPerPersist), fmt.Sprintf("per allocated sequence, at most %d for one persist", b.MaxAttempts))
	}
	if b.Run.Kafka != "off" && b.Run.Kafka != bench.KafkaUnused {
		t.add("  events read back", fmt.Sprint(b.EventsRead), "")
	}
	if err := t.write(w, width); err != nil {
		return err
	}
	if b.Schedule != nil && b.Schedule.Warning != "" {
		wrapLine(w, "warning: "+b.Schedule.Warning, width, indent)
	}

	fmt.Fprintln(w)
	lat := table{right: true}
	lat.add("latency", "count", "p50", "p90", "p99", "p99.9", "max", "")
	for _, p := range b.Latency {
		if p.Count == 0 {
			continue
		}
		lat.add(p.Step, fmt.Sprint(p.Count), fms(p.P50), fms(p.P90), fms(p.P99), fms(p.P999), fms(p.Max), "")
	}
	if b.Receivers != nil {
		for _, p := range b.Receivers.Latency {
			lat.add(p.Step, fmt.Sprint(p.Count), fms(p.P50), fms(p.P90), fms(p.P99), fms(p.P999), fms(p.Max), "")
		}
	}
	if err := lat.write(w, width); err != nil {
		return err
	}
	if b.Schedule == nil && b.Operations > 0 {
		// Said where the figures are: a closed loop's end_to_end is
		// service, the figure coordinated omission hides a stall in (an
		// outside tester's: 2 s of 8 frozen, end_to_end.p99 7ms).
		wrapLine(w, "closed loop: a writer starts when its last operation ends, so end_to_end is service and a stall is counted once, not in the starts it delayed; --rate measures from intended starts, without coordinated omission", width, indent)
	}

	fmt.Fprintln(w)
	if err := writeInvariants(w, b.Check, width); err != nil {
		return err
	}
	if len(b.Thresholds) > 0 {
		fmt.Fprintln(w)
		if err := writeThresholds(w, b.Thresholds, width); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	short := ""
	if r.Interrupted {
		// A pass of a shorter run than asked for: bench exits 6, and
		// this line should not read as the whole run's pass.
		short = " (interrupted: the writers stopped early, a shorter run than asked for)"
	}
	if why := r.NothingAcknowledged; why != "" && b.Check.Valid == nil {
		short += " (" + why + ")"
	}
	if why := r.NothingStreamed; why != "" && b.Check.Valid == nil {
		short += " (" + why + ")"
	}
	if why := r.NothingRead; why != "" && b.Check.Valid == nil && r.NothingAcknowledged == "" {
		short += " (" + why + ")"
	}
	if why := r.NoStreamJudged; why != "" && b.Check.Valid == nil {
		short += " (" + why + ")"
	}
	if r.FinalStateUnread != "" {
		short += " (the final state could not be read back: judged on the operations alone)"
	}
	wrapLine(w, fmt.Sprintf("verdict: %s%s%s   history: %s", Verdict(b.Check), thresholdVerdict(b.Thresholds), short, r.History), width, indent)
	return nil
}

// WriteInvariants writes the invariants table of a check, fitted to the
// terminal's width when w is one.
func WriteInvariants(w io.Writer, r checker.Report) error {
	return writeInvariants(w, r, TerminalWidth(w))
}

func writeInvariants(w io.Writer, r checker.Report, width int) error {
	if len(r.Invariants) == 0 && len(r.NotApplicable) == 0 {
		// Not checked: only the warnings say why.
		return writeWarnings(w, r.Warnings, width)
	}
	var t table
	t.add("invariant", "verdict", "detail")
	for _, inv := range r.Invariants {
		detail := inv.Detail
		if len(inv.Lines) > 0 {
			detail += " [lines " + formatLines(inv.Lines) + "]"
		}
		t.add(inv.Name, strings.ToUpper(string(inv.Status)), detail)
	}
	for _, na := range r.NotApplicable {
		t.add(na.Name, "n/a", na.Reason)
	}
	if err := t.write(w, width); err != nil {
		return err
	}
	return writeWarnings(w, r.Warnings, width)
}

func writeWarnings(w io.Writer, warnings []string, width int) error {
	for _, warn := range warnings {
		wrapLine(w, "warning: "+warn, width, "  ")
	}
	return nil
}

// count is n and noun, plural unless n is 1: "1 gap", "3 gaps".
func count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
		parts[i] = fmt.Sprintf("%s %d", termsafe.Name(k), codes[k]) // a service's code
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
