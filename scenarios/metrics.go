package scenarios

import (
	"slices"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/report"
)

// Metrics are the figures of one run that thresholds and the summary read.
type Metrics struct {
	res   *bench.Result
	stats checker.Stats
	// counts are exact: a count compared as a float64 loses its last
	// digits past 2^53, and max_seq reaches that with initial_counter.
	counts map[string]uint64
}

// count is a tally as a count (none is negative; a negative one would
// wrap to a huge count, so it reads as 0).
func count[N int64 | int | uint64](n N) uint64 { return uint64(max(n, 0)) }

// NewMetrics gathers the figures of a run, its history and its check.
// initialCounter is the value every chat's counter started at, so
// sequences handed out before the run are not counted as this run's gaps.
// A nil h is a history that was not read (too large to check here): the
// figures only the history and its check know have no data.
func NewMetrics(res *bench.Result, rep checker.Report, checked bool, initialCounter uint64) *Metrics {
	c := res.Counts
	m := &Metrics{res: res, stats: rep.Stats}
	allocated := int64(rep.Stats.Allocations) // traced: exactly this run's
	allocatedKnown := allocated > 0 || res.CountersRead
	if allocated == 0 {
		// A target that does not trace allocations: the counters' sum
		// less where they started.
		start := int64(initialCounter) * int64(res.Config.LocalChats())
		allocated = max(res.Allocations-start, 0)
	}
	var errs int64
	for _, n := range c.ErrorCodes {
		errs += n
	}
	m.counts = map[string]uint64{
		"operations": count(c.Operations), "persists": count(c.Persists), "syncs": count(c.Syncs),
		"ok": count(c.OK), "persist_ok": count(c.PersistOK), "sync_ok": count(c.SyncOK),
		"dedup": count(c.Dedup), "fail": count(c.Fail), "info": count(c.Info),
		"unfinished": count(rep.Stats.Unfinished), "retries": count(c.Retries),
		"faults_injected": count(c.FaultsInjected), "duplicates_sent": count(c.DuplicatesSent),
		"concurrent_duplicates": count(c.ConcurrentDuplicates), "keys_reused": count(c.KeysReused),
		"keys_across_chats": count(c.KeysAcrossChats), "keys_across_senders": count(c.KeysAcrossSenders),
		"odd_keys":       count(c.OddKeys),
		"outsider_sends": count(c.OutsiderSends),
		"outsider_syncs": count(c.OutsiderSyncs),
		"tx_attempts":    count(c.Attempts), "max_tx_attempts": count(c.MaxTxAttempts),
		"allocated": count(allocated), "persisted": count(res.Persisted),
		"gaps":   count(max(allocated-res.Persisted, 0)),
		"events": count(res.Events), "duplicate_events": count(rep.Stats.DuplicateEvents),
		"late_commits": count(rep.Stats.LateCommits), "errors": count(errs),
		"catch_up_missed": count(rep.Stats.CatchUpMissed), "events_out_of_order": count(rep.Stats.EventsOutOfOrder),
		"reader_syncs": count(res.Readers.Syncs), "reader_received": count(res.Readers.Received),
		"late_starts": count(res.Lateness.Late), "unsent_starts": count(res.Lateness.Unsent),
		"server_kills": count(res.ServerKills), "server_kafka_outages": count(res.ServerKafkaOutages),
	}
	if r := res.Receivers; res.Config.Receivers > 0 {
		m.counts["receiver_deliveries"], m.counts["receiver_duplicates"] = count(r.Deliveries), count(r.Duplicates)
		m.counts["receiver_out_of_order"], m.counts["receiver_drops"] = count(r.OutOfOrder), count(r.Drops)
		m.counts["receiver_reconnects"], m.counts["receiver_catch_ups"] = count(r.Reconnects), count(r.CatchUps)
		m.counts["fully_visible"] = count(r.FullyVisible)
	}
	// Figures of a table the final state did not give are no data, not
	// 0: gaps == 0 held of a service without its counter hook whose
	// messages table had 301 holes (an outside tester's).
	if !allocatedKnown {
		delete(m.counts, "allocated")
	}
	if !res.MessagesRead {
		delete(m.counts, "persisted")
	}
	if !allocatedKnown || !res.MessagesRead {
		delete(m.counts, "gaps")
	}
	if !checked {
		for _, name := range []string{"unfinished", "duplicate_events", "late_commits", "catch_up_missed", "events_out_of_order"} {
			delete(m.counts, name)
		}
		return m
	}
	m.counts["max_seq"] = rep.Stats.MaxAckedSeq
	return m
}

// misspeltErrorCode is, when the run has no operation that ended with
// error code code, the code of the run's nearest to it as a misspelling
// (closest: case, '-' for '_', an edit in three letters) and how many
// ended with it; "" when there is none. Codes that differ only in their
// digits (http_500, http_503) are different codes, not misspellings.
func (m *Metrics) misspeltErrorCode(code string) (string, int64) {
	codes := m.res.Counts.ErrorCodes
	if codes[code] > 0 {
		return "", 0
	}
	digitless := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	var seen []string
	for c, n := range codes {
		if n > 0 && digitless(c) != digitless(code) {
			seen = append(seen, c)
		}
	}
	slices.Sort(seen) // closest keeps the first of equals: one answer for one run
	if near := closest(code, seen); near != "" {
		return near, codes[near]
	}
	return "", 0
}

// Value returns a metric by its threshold name, and false when the run
// has no data for it (a latency step that never ran, a rate over nothing).
func (m *Metrics) Value(name string) (float64, bool) {
	if n, ok := m.Count(name); ok {
		return float64(n), true
	}
	switch name {
	case "gap_rate":
		if _, known := m.counts["gaps"]; !known {
			return 0, false
		}
		if a := m.counts["allocated"]; a > 0 {
			return float64(m.counts["gaps"]) / float64(a), true
		}
		return 0, false
	case "idempotency_hit_rate":
		if ok := m.counts["persist_ok"]; ok > 0 {
			return float64(m.counts["dedup"]) / float64(ok), true
		}
		return 0, false
	case "throughput":
		return m.res.Throughput(), m.res.Elapsed > 0
	}
	return m.latency(name)
}

// Count returns a count metric exactly (a plain count, errors.CODE or a
// step's count), and false for any other metric or a count the run has
// no data for.
func (m *Metrics) Count(name string) (uint64, bool) {
	if n, ok := m.counts[name]; ok {
		return n, true
	}
	if code, ok := strings.CutPrefix(name, "errors."); ok {
		return count(m.res.Counts.ErrorCodes[code]), true
	}
	if stepName, stat, _ := strings.Cut(name, "."); stat == "count" {
		if h, ok := m.histogram(stepName); ok {
			if h == nil {
				return 0, true
			}
			return count(h.TotalCount()), true
		}
	}
	return 0, false
}

// histogram is a latency step's histogram (nil: no sample), false for a
// name no step has.
func (m *Metrics) histogram(stepName string) (*hdrhistogram.Histogram, bool) {
	switch stepName {
	case "fan_out":
		return m.res.FanOut, true
	case "full_visibility":
		return m.res.FullVisibility, true
	}
	step, ok := stepByName(stepName)
	if !ok {
		return nil, false
	}
	return m.res.Latency[step], true
}

// latency reads "<step>.<stat>" from the step's histogram (a count is
// Count's).
func (m *Metrics) latency(name string) (float64, bool) {
	stepName, stat, _ := strings.Cut(name, ".")
	h, ok := m.histogram(stepName)
	if !ok || h == nil || h.TotalCount() == 0 {
		return 0, false
	}
	switch stat {
	case "min":
		return float64(h.Min()), true
	case "max":
		return float64(h.Max()), true
	case "mean":
		return h.Mean(), true
	}
	q, err := parsePercentile(strings.TrimPrefix(stat, "p"))
	if err != nil {
		return 0, false
	}
	return float64(h.ValueAtQuantile(q)), true
}

// Figures are the key numbers the summary table and JSON show.
type Figures struct {
	Operations  int64    `json:"operations"`
	Throughput  float64  `json:"throughput_ops_s"`
	Persisted   int64    `json:"persisted"`
	Allocated   int64    `json:"allocated"`
	GapRate     *float64 `json:"gap_rate"` // nil: nothing was allocated
	Errors      int64    `json:"errors"`
	AllocateP99 string   `json:"allocate_p99,omitempty"` // empty: the step never ran
	EndToEndP99 string   `json:"end_to_end_p99,omitempty"`
}

// GapRateText is the gap rate as a percentage, or "-" without one.
func (f Figures) GapRateText() string {
	if f.GapRate == nil {
		return "-"
	}
	return formatValue(kindRatio, *f.GapRate)
}

// Figures returns the key numbers.
func (m *Metrics) Figures() Figures {
	f := Figures{
		Operations: int64(m.counts["operations"]), Throughput: m.res.Throughput(),
		Persisted: int64(m.counts["persisted"]), Allocated: int64(m.counts["allocated"]),
		Errors: int64(m.counts["errors"]),
	}
	if v, ok := m.Value("gap_rate"); ok {
		f.GapRate = &v
	}
	if v, ok := m.Value("allocate.p99"); ok {
		f.AllocateP99 = report.FormatLatency(v)
	}
	if v, ok := m.Value("end_to_end.p99"); ok {
		f.EndToEndP99 = report.FormatLatency(v)
	}
	return f
}
