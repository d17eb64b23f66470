// Package report turns a bench run and its check into what people and
// machines read: a text summary or a stable JSON document.
package report

import (
	"fmt"
	"slices"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/target"
)

// Percentiles of one step, in milliseconds.
type Percentiles struct {
	Step  string  `json:"step"`
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p99_9_ms"`
	Max   float64 `json:"max_ms"`
}

// Run describes what was driven.
type Run struct {
	Target       string  `json:"target"`
	Store        string  `json:"store"`
	Kafka        string  `json:"kafka"`
	Variant      string  `json:"variant"`
	Strategy     string  `json:"strategy"`
	Writers      int     `json:"writers"`
	Chats        int     `json:"chats"`
	Distribution string  `json:"distribution"`
	Loop         string  `json:"loop"` // "closed" or "open at N ops/s"
	Seed         int64   `json:"seed"`
	Elapsed      float64 `json:"elapsed_s"`
	History      string  `json:"history"`
	// Interrupted: the writers were stopped early (Ctrl-C); what ran was
	// still recorded whole and checked.
	Interrupted bool `json:"interrupted,omitempty"`
	// StoppedForMemory: the writers stopped early because the process
	// neared its memory ceiling, and why.
	StoppedForMemory string `json:"stopped_for_memory,omitempty"`
	// StoppedForViolation: --fail-fast stopped the writers at the online
	// check's first violation, which it names.
	StoppedForViolation string `json:"stopped_for_violation,omitempty"`
	// VariantWindows are the broken variants the schedule switched on
	// for a while (variant_on): "racy-counter from 30s for 10m0s".
	VariantWindows []string `json:"variant_windows,omitempty"`
	// NothingAcknowledged: the target acknowledged no persist, so the
	// run judged nothing and a verdict without a violation is unknown
	// (JudgedRun); it says how the run went.
	NothingAcknowledged string `json:"nothing_acknowledged,omitempty"`
	// FinalStateUnread: the final state could not be read back, and why;
	// the history ends there, cut short, and what the final state
	// decides is unknown (JudgedRun).
	FinalStateUnread string `json:"final_state_unread,omitempty"`
	// NothingStreamed: the devices received messages and the push
	// channel streamed none; a check without a violation is unknown
	// (JudgedRun). It says how the delivery plane went.
	NothingStreamed string `json:"nothing_streamed,omitempty"`
	// NothingRead: the run sent syncs and none was answered (NothingRead).
	NothingRead string `json:"nothing_read,omitempty"`
	// NoStreamJudged: the service ended the devices' connections and no
	// live stream was judged (stream_completeness n/a); a check without
	// a violation is unknown (JudgedRun). It says how.
	NoStreamJudged string `json:"no_stream_judged,omitempty"`
}

// PersistFail and PersistInfo are the persists among Fail and Info.
func (b *Bench) PersistFail() int64 { return b.Fail - b.SyncFail }
func (b *Bench) PersistInfo() int64 { return b.Info - b.SyncInfo }

// Bench is the whole report of `chatseq bench`.
type Bench struct {
	Run        Run     `json:"run"`
	Operations int64   `json:"operations"`
	Throughput float64 `json:"throughput_ops_s"`
	Persists   int64   `json:"persists"`
	Syncs      int64   `json:"syncs"`
	OK         int64   `json:"ok"`
	PersistOK  int64   `json:"persist_ok"`
	SyncOK     int64   `json:"sync_ok"`
	Dedup      int64   `json:"dedup"`
	Fail       int64   `json:"fail"`
	Info       int64   `json:"info"`
	// SyncFail and SyncInfo are the syncs among Fail and Info: a service
	// refusing syncs had them counted as failed persists.
	SyncFail       int64 `json:"sync_fail"`
	SyncInfo       int64 `json:"sync_info"`
	Retries        int64 `json:"retries"`
	FaultsInjected int64 `json:"faults_injected"` // server kills and outages included
	// ServerKills are the kill_server faults carried out (--kill-every,
	// a schedule's kill_server); left out when none.
	ServerKills int `json:"server_kills,omitempty"`
	// ServerKafkaOutages are the kafka_outage faults a remote target's
	// server carried out (chatseq serve's test hook); left out when none.
	ServerKafkaOutages int              `json:"server_kafka_outages,omitempty"`
	DuplicatesSent     int64            `json:"duplicates_sent"`
	ConcurrentDups     int64            `json:"concurrent_duplicates"`
	ErrorCodes         map[string]int64 `json:"error_codes"`
	Allocated          int64            `json:"allocated_sequences"`
	Persisted          int64            `json:"persisted_messages"`
	Gaps               int64            `json:"gaps"`
	GapRate            float64          `json:"gap_rate"`
	// GapsUnknown says why gaps and gap_rate are not figures (both then
	// 0): the final state gave no counter or no message table. Left out
	// when they are.
	GapsUnknown    string  `json:"gaps_unknown,omitempty"`
	IdempotencyHit float64 `json:"idempotency_hit_rate"`
	EventsRead     int     `json:"events_read"`
	// Readers are the catch-up clients' syncs (bench --readers), not
	// counted in Operations; left out without readers.
	Readers *bench.ReaderCounts `json:"readers,omitempty"`
	// Receivers are the devices of bench --receivers and the delivery
	// plane's latencies; left out without receivers.
	Receivers *Receivers `json:"receivers,omitempty"`
	// Optimistic transactions per allocated sequence (1 under two-phase):
	// ADR-004 option B's retry storm shows here.
	AttemptsPerPersist float64        `json:"attempts_per_persist"`
	MaxAttempts        int64          `json:"max_attempts"`
	Latency            []Percentiles  `json:"latency"`
	Check              checker.Report `json:"check"`
	// Online is the first violation of each invariant the online check
	// found while the writers ran, with its counterexample's lines; the
	// verdict is Check's, on the whole history. Empty when it found none,
	// nil (null) when it did not run (--online=false).
	Online []checker.Violation `json:"online"`
	// Schedule is how far an open loop fell behind its rate; left out
	// in a closed loop.
	Schedule *Schedule `json:"schedule,omitempty"`
	// Thresholds are the run's --threshold conditions, judged; left out
	// when it had none.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
}

// FromBench assembles the report of a run and its check.
func FromBench(res *bench.Result, storeName string, check checker.Report) Bench {
	c := res.Counts
	loop := "closed"
	if res.Config.Rate > 0 {
		loop = "open at " + formatRate(res.Config.Rate) + " ops/s"
	}
	if len(res.Config.Stages) > 0 {
		loop = "open, ramping " + bench.StagesString(res.Config.Stages) + " (duration:ops/s)"
	}
	variant := string(res.Config.Variant)
	if variant == "" {
		variant = "correct"
	}
	b := Bench{
		Run: Run{
			Target: res.Config.Target, Store: storeName, Kafka: res.Kafka, Variant: variant, Strategy: string(res.Config.Strategy),
			Writers: res.Config.Writers, Chats: res.Config.Chats, Distribution: res.Config.Distribution,
			Loop: loop, Seed: res.Config.Seed, Elapsed: res.Elapsed.Seconds(), History: res.Config.HistoryPath,
			Interrupted: res.Interrupted, StoppedForMemory: res.StoppedForMemory, StoppedForViolation: res.StoppedForViolation,
			VariantWindows: variantWindows(res), NothingAcknowledged: NothingAcknowledged(res),
			FinalStateUnread: res.FinalStateUnread, NothingStreamed: NothingStreamed(res), NothingRead: NothingRead(res), NoStreamJudged: NoStreamJudged(res, check),
		},
		Operations: c.Operations, Throughput: res.Throughput(), Persists: c.Persists, Syncs: c.Syncs,
		OK: c.OK, PersistOK: c.PersistOK, SyncOK: c.SyncOK, Dedup: c.Dedup, Fail: c.Fail, Info: c.Info, SyncFail: c.SyncFail, SyncInfo: c.SyncInfo, Retries: c.Retries,
		FaultsInjected: c.FaultsInjected + int64(res.ServerKills+res.ServerKafkaOutages), ServerKills: res.ServerKills,
		ServerKafkaOutages: res.ServerKafkaOutages,
		DuplicatesSent:     c.DuplicatesSent, ConcurrentDups: c.ConcurrentDuplicates,
		ErrorCodes: c.ErrorCodes, Allocated: res.Allocations, Persisted: res.Persisted,
		EventsRead: res.Events, Check: check,
	}
	if b.ErrorCodes == nil {
		b.ErrorCodes = map[string]int64{}
	}
	b.Check = withBadAnswer(b.Check, res.BadAnswer)
	if res.Config.Rate > 0 || len(res.Config.Stages) > 0 {
		b.Schedule = scheduleOf(res)
	}
	if res.Readers.Readers > 0 {
		rc := res.Readers
		b.Readers = &rc
	}
	b.Receivers = receiversOf(res)
	// The checker's gap count walks each chat's sequences up to its final
	// counter, so a deleted counter cannot make it negative. A history too
	// large to check has no such count: the counters' sum less the
	// messages the store held is the run's own.
	b.Gaps, b.GapRate = int64(check.Stats.Gaps), check.Stats.GapRate
	if len(check.Invariants) == 0 && res.Allocations > 0 {
		b.Gaps = max(res.Allocations-res.Persisted, 0)
		b.GapRate = float64(b.Gaps) / float64(res.Allocations)
	}
	if why := gapsUnknown(res); why != "" {
		b.Gaps, b.GapRate, b.GapsUnknown = 0, 0, why
	}
	if attempted := res.Allocations; attempted > 0 && c.Attempts > 0 {
		b.AttemptsPerPersist = float64(c.Attempts) / float64(attempted)
		b.MaxAttempts = c.MaxTxAttempts
	}
	if c.PersistOK > 0 {
		b.IdempotencyHit = float64(c.Dedup) / float64(c.PersistOK)
	}
	for _, step := range bench.Steps() {
		h := res.Latency[step]
		if h == nil {
			continue
		}
		b.Latency = append(b.Latency, Percentiles{
			Step: step.String(), Count: h.TotalCount(),
			P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
			P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max()),
		})
	}
	return b
}

func ms(ns int64) float64 { return float64(ns) / float64(time.Millisecond) }

// withBadAnswer adds the target's example of an answer that broke the
// service's API to api_conformance's failure: the history points at the
// line, the example shows the request and what came back.
func withBadAnswer(check checker.Report, example string) checker.Report {
	if example == "" {
		return check
	}
	invs := slices.Clone(check.Invariants)
	for i, inv := range invs {
		if inv.Name == checker.NameAPIConformance && inv.Status == checker.Fail {
			invs[i].Detail += "; the first such answer: " + example
		}
	}
	check.Invariants = invs
	return check
}

// variantWindows are the run's variant_on windows as target.VariantWindows
// names them, each that opened after the writers stopped saying so: a
// window at 100h of a run of 2,000 operations named beside behaviour
// read as if that variant had run.
func variantWindows(res *bench.Result) []string {
	names := target.VariantWindows(res.Config.Timed)
	i := 0
	for _, f := range res.Config.Timed {
		if f.Kind != target.VariantOn {
			continue
		}
		if f.At >= res.Elapsed {
			names[i] += fmt.Sprintf(" (never opened: the writers stopped at %.1fs)", res.Elapsed.Seconds())
		}
		i++
	}
	return names
}

// gapsUnknown is why a run's gaps are not known, "" when they are: a gap
// is an allocated sequence no message holds, so both tables must have
// been read (a service without chatseq serve's test hooks gives no
// counter; a run whose final state was not read gives neither).
func gapsUnknown(res *bench.Result) string {
	switch {
	case !res.CountersRead && !res.MessagesRead:
		return "the final state was not read"
	case !res.CountersRead:
		return "the final state gave no counter"
	case !res.MessagesRead:
		return "the final state gave no messages table"
	}
	return ""
}

// GapRateText is the gap rate as a percentage, "-" when it is unknown.
func (b Bench) GapRateText() string {
	if b.GapsUnknown != "" {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*b.GapRate)
}
