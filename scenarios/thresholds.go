package scenarios

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/report"
)

// Threshold is one k6-style condition on a run's figures, such as
// "allocate.p99 < 50ms" or "errors.counter_missing >= 1".
type Threshold struct {
	Expr   string // as written
	Line   int    // in the scenario file
	Metric string // as written, trimmed
	Op     string
	Value  float64 // in the metric's unit: ns, a ratio, ops/s or a count
	count  uint64  // a count's Value exactly (past 2^53 a float64 is not)
	kind   metricKind
}

type metricKind int

const (
	kindCount   metricKind = iota // a non-negative integer
	kindLatency                   // nanoseconds, written as a duration
	kindRatio                     // 0..1, written as 5% or 0.05
	kindRate                      // operations per second
)

// Comparison operators, longest first so "<=" is not read as "<".
var operators = []string{"<=", ">=", "==", "!=", "<", ">"}

// countMetrics are the counts a threshold may name, besides errors.<code>
// and <step>.count.
var countMetrics = map[string]string{
	"operations":            "attempts sent, retries and duplicates included",
	"persists":              "persist attempts",
	"syncs":                 "sync operations",
	"ok":                    "operations answered ok",
	"persist_ok":            "persists answered ok",
	"sync_ok":               "syncs answered ok",
	"dedup":                 "persists answered from the idempotency record",
	"fail":                  "operations that definitely failed",
	"info":                  "operations with an unknown outcome",
	"unfinished":            "operations never completed",
	"retries":               "resends after an unknown outcome",
	"faults_injected":       "attempts with an injected fault",
	"duplicates_sent":       "keys resent after their ACK",
	"concurrent_duplicates": "sends raced by a twin with the same key",
	"keys_reused":           "sends that reused a key with other content",
	"keys_across_chats":     "sends with the key their client last sent to another chat",
	"keys_across_senders":   "sends by another member of the chat with the key a client last sent there",
	"odd_keys":              "sends with an unusual key (long, or another's in upper case)",
	"outsider_sends":        "sends from a user who is not a member of the chat",
	"outsider_syncs":        "syncs read as a user who is not a member of the chat",
	"tx_attempts":           "persist transactions tried (optimistic retries included)",
	"max_tx_attempts":       "most transactions one persist needed",
	"allocated":             "sequences allocated during the run",
	"persisted":             "messages in the store afterwards",
	"gaps":                  "allocated sequences holding no message",
	"events":                "records read back from Kafka",
	"duplicate_events":      "events published more than once",
	"late_commits":          "messages committed below a sequence a sync had passed",
	"catch_up_missed":       "(reader, message) pairs: a message a reader's cursor passed and that reader never received",
	"events_out_of_order":   "events that reach the topic after a higher sequence of their chat",
	"reader_syncs":          "syncs the readers sent (not in operations)",
	"reader_received":       "messages the readers' syncs returned",
	"late_starts":           "open loop: operations started more than one interval (at least 1 ms) after their intended start",
	"unsent_starts":         "open loop: intended starts due before the run ended that were never made (k6's dropped iterations)",
	"errors":                "failed and unknown outcomes, all codes",
	"receiver_deliveries":   "receivers: first receipts of a message by a device",
	"receiver_duplicates":   "receivers: messages a device received again (at-least-once transport)",
	"receiver_out_of_order": "receivers: first receipts below a sequence the device already had",
	"receiver_drops":        "receivers: connections the nemesis dropped (drop_connections_every)",
	"receiver_reconnects":   "receivers: reconnects after a drop or a connection the service ended",
	"receiver_catch_ups":    "receivers: catch-ups by sync from the last acked sequence (each connect, and the settle)",
	"fully_visible":         "receivers: messages every device of their chat received",
	"max_seq":               "highest sequence acknowledged to a client",
	"server_kills":          "kill_server faults carried out (the service SIGKILLed and answering again)",
	"server_kafka_outages":  "kafka_outage faults a served or remote service was asked for (its test hook)",
}

var otherMetrics = map[string]metricKind{
	"gap_rate":             kindRatio,
	"idempotency_hit_rate": kindRatio,
	"throughput":           kindRate,
}

// DeliverySteps are the receivers' latencies a threshold may name like a
// step's (bench --receivers): fan_out, from a message's created_at to
// each device's first receipt, and full_visibility, to its chat's last
// device's.
var DeliverySteps = []string{"fan_out", "full_visibility"}

// stepByName maps a latency step's name to the bench step.
func stepByName(name string) (bench.Step, bool) {
	for _, s := range bench.Steps() {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// metricNames lists names for suggestions: every plain metric and each
// step with its common statistics.
func metricNames() []string {
	var names []string
	for n := range countMetrics {
		names = append(names, n)
	}
	for n := range otherMetrics {
		names = append(names, n)
	}
	steps := DeliverySteps
	for _, s := range bench.Steps() {
		steps = append(steps, s.String())
	}
	for _, s := range steps {
		for _, stat := range []string{"p50", "p90", "p99", "p99.9", "max", "mean", "min", "count"} {
			names = append(names, s+"."+stat)
		}
	}
	return names
}

// NeedsReceivers says whether t's metric is one only receivers measure
// (a receiver_ count, fully_visible, a delivery step's latency): without
// them it has no data, and the run it guards fails after it ran.
func (t Threshold) NeedsReceivers() bool {
	step, _, _ := strings.Cut(t.Metric, ".")
	return strings.HasPrefix(t.Metric, "receiver_") || t.Metric == "fully_visible" || slices.Contains(DeliverySteps, step)
}

// ParseThreshold reads "metric op value".
func ParseThreshold(expr string) (Threshold, error) {
	t := Threshold{Expr: expr}
	at, op := -1, ""
	for i := 0; i < len(expr) && at < 0; i++ {
		for _, o := range operators {
			if strings.HasPrefix(expr[i:], o) {
				at, op = i, o
				break
			}
		}
	}
	if at < 0 {
		if i := strings.IndexAny(expr, "=!"); i >= 0 {
			return t, fmt.Errorf("threshold %q: %q is not a comparison: use one of < <= > >= == !=", expr, strings.TrimSpace(expr[i:min(i+2, len(expr))]))
		}
		return t, fmt.Errorf("threshold %q has no comparison: write metric, operator (< <= > >= == !=) and value, e.g. \"allocate.p99 < 50ms\"", expr)
	}
	if i := strings.IndexAny(expr[:at], "=!"); i >= 0 {
		return t, fmt.Errorf("threshold %q: %q is not a comparison: use one of < <= > >= == !=", expr, strings.TrimSpace(expr[i:at+len(op)]))
	}
	t.Metric = strings.TrimSpace(expr[:at])
	t.Op = op
	value := strings.TrimSpace(expr[at+len(op):])
	if t.Metric == "" {
		return t, fmt.Errorf("threshold %q names no metric before %s", expr, op)
	}
	if value == "" {
		return t, fmt.Errorf("threshold %q has no value after %s", expr, op)
	}
	if strings.ContainsAny(value, "<>=!") {
		return t, fmt.Errorf("threshold %q has more than one comparison; write one condition per line", expr)
	}
	kind, err := metricKindOf(t.Metric)
	if err != nil {
		return t, fmt.Errorf("threshold %q: %w", expr, err)
	}
	t.kind = kind
	if t.Value, err = parseValue(kind, value); err != nil {
		return t, fmt.Errorf("threshold %q: %w", expr, err)
	}
	if kind == kindCount {
		t.count, _ = strconv.ParseUint(value, 10, 64) // parseValue took it
	}
	return t, nil
}

func metricKindOf(m string) (metricKind, error) {
	if _, ok := countMetrics[m]; ok {
		return kindCount, nil
	}
	if k, ok := otherMetrics[m]; ok {
		return k, nil
	}
	if code, ok := strings.CutPrefix(m, "errors."); ok {
		if code == "" {
			return 0, fmt.Errorf("errors. needs an error code, e.g. errors.counter_missing")
		}
		return kindCount, nil
	}
	stepName, stat, ok := strings.Cut(m, ".")
	if ok {
		if _, isStep := stepByName(stepName); isStep || slices.Contains(DeliverySteps, stepName) {
			return statKind(stat)
		}
	}
	if hint := didYouMean(m, metricNames()); hint != "" {
		return 0, fmt.Errorf("unknown metric %q%s", m, hint)
	}
	return 0, fmt.Errorf("unknown metric %q; metrics are %s", m, metricSummary())
}

// metricSummary describes every metric in one line.
func metricSummary() string {
	steps := make([]string, 0, len(bench.Steps()))
	for _, s := range bench.Steps() {
		steps = append(steps, s.String())
	}
	counts := make([]string, 0, len(countMetrics))
	for n := range countMetrics {
		counts = append(counts, n)
	}
	sort.Strings(counts)
	steps = append(steps, DeliverySteps...)
	return "STEP.pN, STEP.min, STEP.max, STEP.mean, STEP.count (STEP: " + strings.Join(steps, ", ") +
		"), gap_rate, idempotency_hit_rate, throughput, errors.CODE, and the counts " + strings.Join(counts, ", ")
}

// statKind checks a latency statistic: pN (0 < N ≤ 100), min, max, mean or
// count.
func statKind(stat string) (metricKind, error) {
	switch stat {
	case "min", "max", "mean":
		return kindLatency, nil
	case "count":
		return kindCount, nil
	}
	if q, ok := strings.CutPrefix(stat, "p"); ok {
		if _, err := parsePercentile(q); err != nil {
			return 0, err
		}
		return kindLatency, nil
	}
	return 0, fmt.Errorf("unknown latency statistic %q: use pN (p50, p99, p99.9), min, max, mean or count", stat)
}

func parsePercentile(q string) (float64, error) {
	v, err := decimal(q)
	if err != nil || strings.ContainsAny(q, "eE+-") || !(v > 0 && v <= 100) {
		return 0, fmt.Errorf("percentile p%s must be pN with 0 < N ≤ 100, e.g. p99 or p99.9", q)
	}
	return v, nil
}

// decimal reads a number written in decimal: strconv.ParseFloat also
// takes hexadecimal ("0x1p-2" is 25%, p0x1p6 was read as p64), which no
// one means in a threshold.
func decimal(s string) (float64, error) {
	if strings.ContainsAny(s, "xX") {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	return strconv.ParseFloat(s, 64)
}

func parseValue(kind metricKind, s string) (float64, error) {
	switch kind {
	case kindLatency:
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				// (Its suggestion, "Infms", was refused in turn.)
				return 0, fmt.Errorf("%q is not a duration (e.g. 800µs, 50ms, 1.5s)", s)
			}
			return 0, fmt.Errorf("latency %q needs a unit, e.g. %sms", s, s)
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%q is not a duration (e.g. 800µs, 50ms, 1.5s)", s)
		}
		return float64(d), nil
	case kindRatio:
		if p, ok := strings.CutSuffix(s, "%"); ok {
			v, err := decimal(strings.TrimSpace(p))
			if err != nil || !(v >= 0 && v <= 100) {
				return 0, fmt.Errorf("%q is not a percentage between 0%% and 100%%", s)
			}
			return v / 100, nil
		}
		v, err := decimal(s)
		if err != nil || !(v >= 0 && v <= 1) {
			return 0, fmt.Errorf("%q is not a rate: write a percentage (5%%) or a fraction between 0 and 1 (0.05)", s)
		}
		if v == 1 {
			// A bare 1 reads as 100%, which gap_rate < 1 meant to be 1%
			// and never failed (an outside tester's): say which.
			return 0, fmt.Errorf("%q is ambiguous for a rate: write 100%% (all) or 1%% (one in a hundred)", s)
		}
		return v, nil
	case kindRate:
		v, err := decimal(strings.TrimSpace(strings.TrimSuffix(s, "/s")))
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a throughput in operations per second, e.g. 1000", s)
		}
		return v, nil
	}
	v, err := strconv.ParseUint(s, 10, 64) // sequences go up to 2^64-1
	if err != nil {
		return 0, fmt.Errorf("%q is not a count (a whole number ≥ 0)", s)
	}
	return float64(v), nil
}

// ThresholdResult is one threshold judged against a run.
type ThresholdResult = report.ThresholdResult

// Evaluate judges t against m. A metric with no samples (a latency step
// that never ran) fails: a threshold that cannot be measured guards
// nothing.
func (t Threshold) Evaluate(m *Metrics) ThresholdResult {
	r := ThresholdResult{Expr: t.Expr, Line: t.Line}
	if code, ok := strings.CutPrefix(t.Metric, "errors."); ok {
		if near, n := m.misspeltErrorCode(code); near != "" {
			// Any code is a service's to name, so none is refused when the
			// threshold is read; but one no operation ended with, beside one
			// a letter away that many did, measured 0 and held (an outside
			// tester's errors.crash_after_alocate == 0, with 80).
			r.Actual = fmt.Sprintf("no operation ended with error code %q, but %d with %q: a misspelt code?", code, n, near)
			return r
		}
	}
	if t.kind == kindCount {
		n, ok := m.Count(t.Metric)
		if !ok {
			r.Actual = "no data"
			return r
		}
		r.Value = float64(n)
		r.Actual = strconv.FormatUint(n, 10)
		r.OK = compare(n, t.Op, t.count)
		return r
	}
	v, ok := m.Value(t.Metric)
	if !ok {
		r.Actual = "no data"
		return r
	}
	r.Value = v
	r.Actual = formatValue(t.kind, v)
	r.OK = compare(v, t.Op, t.Value)
	return r
}

func compare[N float64 | uint64](a N, op string, b N) bool {
	switch op {
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "==":
		return a == b
	case "!=":
		return a != b
	}
	return false
}

func formatValue(kind metricKind, v float64) string {
	switch kind {
	case kindLatency:
		return report.FormatLatency(v)
	case kindRatio:
		return strconv.FormatFloat(100*v, 'f', 2, 64) + "%"
	case kindRate:
		return strconv.FormatFloat(v, 'f', 0, 64) + " ops/s"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
