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
	res    *bench.Result
	stats  checker.Stats
	counts map[string]float64
}

// NewMetrics gathers the figures of a run, its history and its check.
// initialCounter is the value every chat's counter started at, so
// sequences handed out before the run are not counted as this run's gaps.
// A nil h is a history that was not read (too large to check here): the
// figures only the history and its check know have no data.
func NewMetrics(res *bench.Result, rep checker.Report, checked bool, initialCounter uint64) *Metrics {
	c := res.Counts
	m := &Metrics{res: res, stats: rep.Stats}
	allocated := int64(rep.Stats.Allocations) // traced: exactly this run's
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
	m.counts = map[string]float64{
		"operations": float64(c.Operations), "persists": float64(c.Persists), "syncs": float64(c.Syncs),
		"ok": float64(c.OK), "persist_ok": float64(c.PersistOK), "sync_ok": float64(c.SyncOK),
		"dedup": float64(c.Dedup), "fail": float64(c.Fail), "info": float64(c.Info),
		"unfinished": float64(rep.Stats.Unfinished), "retries": float64(c.Retries),
		"faults_injected": float64(c.FaultsInjected), "duplicates_sent": float64(c.DuplicatesSent),
		"concurrent_duplicates": float64(c.ConcurrentDuplicates), "keys_reused": float64(c.KeysReused),
		"keys_across_chats": float64(c.KeysAcrossChats), "keys_across_senders": float64(c.KeysAcrossSenders),
		"odd_keys":       float64(c.OddKeys),
		"outsider_sends": float64(c.OutsiderSends),
		"outsider_syncs": float64(c.OutsiderSyncs),
		"tx_attempts":    float64(c.Attempts), "max_tx_attempts": float64(c.MaxTxAttempts),
		"allocated": float64(allocated), "persisted": float64(res.Persisted),
		"gaps":   float64(max(allocated-res.Persisted, 0)),
		"events": float64(res.Events), "duplicate_events": float64(rep.Stats.DuplicateEvents),
		"late_commits": float64(rep.Stats.LateCommits), "errors": float64(errs),
		"catch_up_missed": float64(rep.Stats.CatchUpMissed), "events_out_of_order": float64(rep.Stats.EventsOutOfOrder),
		"reader_syncs": float64(res.Readers.Syncs), "reader_received": float64(res.Readers.Received),
		"late_starts": float64(res.Lateness.Late), "unsent_starts": float64(res.Lateness.Unsent),
		"server_kills": float64(res.ServerKills), "server_kafka_outages": float64(res.ServerKafkaOutages),
	}
	if r := res.Receivers; res.Config.Receivers > 0 {
		m.counts["receiver_deliveries"], m.counts["receiver_duplicates"] = float64(r.Deliveries), float64(r.Duplicates)
		m.counts["receiver_out_of_order"], m.counts["receiver_drops"] = float64(r.OutOfOrder), float64(r.Drops)
		m.counts["receiver_reconnects"], m.counts["receiver_catch_ups"] = float64(r.Reconnects), float64(r.CatchUps)
		m.counts["fully_visible"] = float64(r.FullyVisible)
	}
	if !checked {
		for _, name := range []string{"unfinished", "duplicate_events", "late_commits", "catch_up_missed", "events_out_of_order"} {
			delete(m.counts, name)
		}
		return m
	}
	m.counts["max_seq"] = float64(rep.Stats.MaxAckedSeq)
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
	if v, ok := m.counts[name]; ok {
		return v, true
	}
	if code, ok := strings.CutPrefix(name, "errors."); ok {
		return float64(m.res.Counts.ErrorCodes[code]), true
	}
	switch name {
	case "gap_rate":
		if a := m.counts["allocated"]; a > 0 {
			return m.counts["gaps"] / a, true
		}
		return 0, false
	case "idempotency_hit_rate":
		if ok := m.counts["persist_ok"]; ok > 0 {
			return m.counts["dedup"] / ok, true
		}
		return 0, false
	case "throughput":
		return m.res.Throughput(), m.res.Elapsed > 0
	}
	return m.latency(name)
}

// latency reads "<step>.<stat>" from the step's histogram.
func (m *Metrics) latency(name string) (float64, bool) {
	stepName, stat, _ := strings.Cut(name, ".")
	var h *hdrhistogram.Histogram
	switch stepName {
	case "fan_out":
		h = m.res.FanOut
	case "full_visibility":
		h = m.res.FullVisibility
	default:
		step, ok := stepByName(stepName)
		if !ok {
			return 0, false
		}
		h = m.res.Latency[step]
	}
	if h == nil || h.TotalCount() == 0 {
		if stat == "count" {
			return 0, true
		}
		return 0, false
	}
	switch stat {
	case "count":
		return float64(h.TotalCount()), true
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
