package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/target"
)

// results.json identifies itself by ResultsSchema and ResultsVersion. The
// version is raised on any change that a reader of the previous version
// would misread (a field renamed, removed or given another meaning); new
// fields alone do not raise it. docs/results.md documents every field.
const (
	ResultsSchema  = "chatseq-results"
	ResultsVersion = 1
)

// File names inside a results directory.
const (
	ResultsFile   = "results.json"
	HistoryFile   = "history.jsonl"
	HlogFile      = "latency.hlog"
	ReportFile    = "report.html"
	VisualizeDir  = "linearizability"
	visualizeGlob = "linearizability-*.html"
)

// Results is results.json: the summary `chatseq bench --format json` prints
// (Bench, inlined), plus what a report or a comparison needs to be redrawn
// later: the run's settings, its timed faults and its per-second counts.
// Latency per second is in the HdrHistogram log named by Files.Hlog.
type Results struct {
	Schema  string `json:"schema"`
	Version int    `json:"schema_version"`
	// Started is the wall-clock time the writers started; interval and
	// fault times count from it.
	Started time.Time `json:"started"`
	// Command is the command line that reproduces the run, as a shell
	// would take it; empty when the run was not started from one.
	Command string `json:"command,omitempty"`
	// IntervalS is the length of Intervals: bench.FineInterval, or a
	// second for a long run.
	IntervalS float64 `json:"interval_s"`
	Bench
	Config    RunConfig        `json:"config"`
	Faults    []FaultWindow    `json:"timed_faults"`
	Intervals []IntervalCounts `json:"intervals"`
	// DeliveryIntervals are the receivers' fan-out and full-visibility
	// latencies over time, and ConnectionDrops the connection nemesis'
	// strikes; left out of a run without receivers.
	DeliveryIntervals []DeliveryIntervalCounts `json:"delivery_intervals,omitempty"`
	ConnectionDrops   []ConnectionDrop         `json:"connection_drops,omitempty"`
	Files             Files                    `json:"files"`
}

// RunConfig is what the run was asked to do.
type RunConfig struct {
	Writers             int              `json:"writers"`
	Chats               int              `json:"chats"`
	Distribution        string           `json:"distribution"`
	ZipfS               float64          `json:"zipf_s"`
	Duration            float64          `json:"duration_s"`
	Ops                 int              `json:"ops"`
	Rate                float64          `json:"rate_ops_s"`
	Stages              string           `json:"stages,omitempty"` // a ramping open loop's, duration:ops/s,…
	Seed                int64            `json:"seed"`
	FaultRates          FaultRates       `json:"fault_rates"`
	DuplicateAfterOK    float64          `json:"duplicate_after_ok"`
	ConcurrentDuplicate float64          `json:"concurrent_duplicate"`
	ReuseKey            float64          `json:"reuse_key"`
	KeyAcrossChats      float64          `json:"key_across_chats"`
	KeyAcrossSenders    float64          `json:"key_across_senders"`
	OddKeys             float64          `json:"odd_keys"`
	OutsiderSends       float64          `json:"outsider_sends"`
	OutsiderSyncs       float64          `json:"outsider_syncs"`
	ForgedSenders       float64          `json:"forged_senders"`
	SyncRatio           float64          `json:"sync_ratio"`
	SyncLimit           int              `json:"sync_limit"`
	Readers             int              `json:"readers"`
	Receivers           int              `json:"receivers,omitempty"`
	OutsiderDevices     int              `json:"outsider_devices,omitempty"`
	AnonymousDevices    int              `json:"anonymous_devices,omitempty"`
	DropConnectionsS    float64          `json:"drop_connections_every_s,omitempty"`
	DropConnectionsForS float64          `json:"drop_connections_for_s,omitempty"`
	MaxAttempts         int              `json:"max_attempts"`
	InitialCounter      uint64           `json:"initial_counter"`
	Strategy            string           `json:"strategy"`
	RepublishOnReplay   bool             `json:"republish_on_replay"`
	Partitions          int32            `json:"partitions"`
	Shard               string           `json:"shard"`
	Contract            history.Contract `json:"contract"`
}

// FaultRates are the per-attempt fault probabilities.
type FaultRates struct {
	StaleRead          float64 `json:"stale_read"`
	CrashAfterAllocate float64 `json:"crash_after_allocate"`
	CrashInPersist     float64 `json:"crash_in_persist"`
	CrashAfterPersist  float64 `json:"crash_after_persist"`
	PublishFail        float64 `json:"publish_fail"`
	// Left out when 0, as they are by default.
	CrashBeforeAllocate float64 `json:"crash_before_allocate,omitempty"`
	StoreThrottle       float64 `json:"store_throttle,omitempty"`
	StoreInternalError  float64 `json:"store_internal_error,omitempty"`
	TxnCanceledOther    float64 `json:"txn_canceled_other,omitempty"`
	SlowCommit          float64 `json:"slow_commit,omitempty"`
	// SlowCommitDelayS is a slow commit's wait, when SlowCommit is on.
	SlowCommitDelayS float64 `json:"slow_commit_delay_s,omitempty"`
}

// FaultWindow is a timed fault on the run's clock. An instant fault
// (delete-counter) has End equal to Start.
type FaultWindow struct {
	Kind      string  `json:"kind"`
	Start     float64 `json:"start_s"`
	End       float64 `json:"end_s"`
	LatencyMs float64 `json:"latency_ms,omitempty"` // store-latency
	ChatIndex *int    `json:"chat_index,omitempty"` // delete-counter
	Variant   string  `json:"variant,omitempty"`    // variant-on: the variant switched on
}

// IntervalCounts is one second of the run: what completed in it, and the
// allocations traced in it with how many of those became gaps.
type IntervalCounts struct {
	Start                float64          `json:"start_s"`
	Length               float64          `json:"length_s"`
	Operations           int64            `json:"operations"`
	Persists             int64            `json:"persists"`
	Syncs                int64            `json:"syncs"`
	OK                   int64            `json:"ok"`
	PersistOK            int64            `json:"persist_ok"`
	Dedup                int64            `json:"dedup"`
	Fail                 int64            `json:"fail"`
	Info                 int64            `json:"info"`
	Retries              int64            `json:"retries"`
	Attempts             int64            `json:"attempts"`
	FaultsInjected       int64            `json:"faults_injected"`
	DuplicatesSent       int64            `json:"duplicates_sent"`
	ConcurrentDuplicates int64            `json:"concurrent_duplicates"`
	ErrorCodes           map[string]int64 `json:"error_codes"`
	Allocations          int64            `json:"allocations"`
	Gaps                 int64            `json:"gaps"`
	// Latency has each step that completed in the interval: the samples
	// the charts draw and compare tests.
	Latency map[string]IntervalLatency `json:"latency"`
}

// IntervalLatency is one step's latency in one interval, in milliseconds.
type IntervalLatency struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// Files names the directory's other files, relative to it.
type Files struct {
	History        string          `json:"history"`
	Hlog           string          `json:"hlog"`
	Report         string          `json:"report"`
	Visualizations []Visualization `json:"visualizations"`
}

// Visualization is porcupine's drawing of one chat that is not
// linearizable.
type Visualization struct {
	Chat  string `json:"chat"` // as the file name spells it
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
}

// NewResults assembles results.json for a run; the check's per-second
// allocation and gap counts (checker.Options.Interval) fill the intervals.
func NewResults(res *bench.Result, b Bench) Results {
	cfg := res.Config
	r := Results{
		Schema: ResultsSchema, Version: ResultsVersion,
		Started: res.Started.Round(0).UTC(),
		Bench:   b,
		Config: RunConfig{
			Writers: cfg.Writers, Chats: cfg.Chats, Distribution: cfg.Distribution, ZipfS: cfg.ZipfS,
			Duration: cfg.Duration.Seconds(), Ops: cfg.Ops, Rate: cfg.Rate, Stages: bench.StagesString(cfg.Stages), Seed: cfg.Seed,
			FaultRates: FaultRates{
				StaleRead: cfg.Faults.StaleRead, CrashAfterAllocate: cfg.Faults.CrashAfterAllocate,
				CrashInPersist: cfg.Faults.CrashInPersist, CrashAfterPersist: cfg.Faults.CrashAfterPersist,
				PublishFail: cfg.Faults.PublishFail, CrashBeforeAllocate: cfg.Faults.CrashBeforeAllocate,
				StoreThrottle: cfg.Faults.StoreThrottle, StoreInternalError: cfg.Faults.StoreInternalError,
				TxnCanceledOther: cfg.Faults.TxnCanceledOther, SlowCommit: cfg.Faults.SlowCommit,
				SlowCommitDelayS: slowCommitDelay(cfg.Faults),
			},
			DuplicateAfterOK: cfg.DuplicateAfterOK, ConcurrentDuplicate: cfg.ConcurrentDuplicate,
			ReuseKey: cfg.ReuseKey, KeyAcrossChats: cfg.KeyAcrossChats, KeyAcrossSenders: cfg.KeyAcrossSenders, OddKeys: cfg.OddKeys, OutsiderSends: cfg.OutsiderSends, OutsiderSyncs: cfg.OutsiderSyncs, ForgedSenders: cfg.ForgedSenders, SyncRatio: cfg.SyncRatio, SyncLimit: cfg.SyncLimit, Readers: cfg.Readers,
			Receivers: cfg.Receivers, OutsiderDevices: cfg.OutsiderDevices, AnonymousDevices: cfg.AnonymousDevices, DropConnectionsS: cfg.DropConnectionsEvery.Seconds(),
			DropConnectionsForS: cfg.DropConnectionsFor.Seconds(),
			MaxAttempts:         cfg.MaxAttempts, InitialCounter: cfg.InitialCounter, Strategy: string(cfg.Strategy),
			RepublishOnReplay: cfg.RepublishOnReplay, Partitions: cfg.Partitions, Contract: b.Check.Contract,
		},
		IntervalS: res.IntervalLength.Seconds(),
		Faults:    faultWindows(cfg.Timed),
		Intervals: intervalCounts(res.Intervals),
		Files:     Files{History: HistoryFile, Hlog: HlogFile, Report: ReportFile, Visualizations: []Visualization{}},
	}
	if cfg.ShardCount > 1 {
		r.Config.Shard = fmt.Sprintf("%d/%d", cfg.ShardIndex, cfg.ShardCount)
	}
	addGaps(r.Intervals, b.Check.Stats)
	if cfg.Receivers > 0 {
		r.DeliveryIntervals = deliveryIntervals(res.DeliveryIntervals)
		r.ConnectionDrops = connectionDrops(res.Drops)
	}
	return r
}

func faultWindows(timed []target.TimedFault) []FaultWindow {
	out := make([]FaultWindow, 0, len(timed))
	for _, f := range timed {
		w := FaultWindow{Kind: f.Kind, Start: f.At.Seconds(), End: (f.At + f.For).Seconds()}
		switch f.Kind {
		case target.StoreLatency:
			w.LatencyMs = ms(int64(f.Latency))
		case target.DeleteCounter:
			chat := f.Chat
			w.End, w.ChatIndex = w.Start, &chat
		case target.VariantOn:
			w.Variant = f.Variant
		}
		out = append(out, w)
	}
	return out
}

func intervalCounts(ivs []bench.Interval) []IntervalCounts {
	out := make([]IntervalCounts, len(ivs))
	for i, iv := range ivs {
		c := iv.Counts
		codes := map[string]int64{}
		for k, v := range c.ErrorCodes {
			codes[k] = v
		}
		out[i] = IntervalCounts{
			Start: iv.Start.Seconds(), Length: iv.Length.Seconds(),
			Operations: c.Operations, Persists: c.Persists, Syncs: c.Syncs, OK: c.OK, PersistOK: c.PersistOK,
			Dedup: c.Dedup, Fail: c.Fail, Info: c.Info, Retries: c.Retries, Attempts: c.Attempts,
			FaultsInjected: c.FaultsInjected, DuplicatesSent: c.DuplicatesSent,
			ConcurrentDuplicates: c.ConcurrentDuplicates, ErrorCodes: codes,
			Latency: map[string]IntervalLatency{},
		}
		for _, step := range bench.Steps() {
			h := iv.Latency[step]
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			q := h.ValueAtPercentilesSlice([]float64{50, 90, 99})
			out[i].Latency[step.String()] = IntervalLatency{
				Count: h.TotalCount(), P50: ms(q[0]), P90: ms(q[1]), P99: ms(q[2]), Max: ms(h.Max()),
			}
		}
	}
	return out
}

// addGaps puts the check's per-second allocations and gaps into the
// intervals (the history's clock starts just before the writers do, so its
// seconds are the intervals' to within the time it takes to write the
// header); anything past the last interval counts in it.
func addGaps(ivs []IntervalCounts, st checker.Stats) {
	if len(ivs) == 0 {
		return
	}
	for k := range st.IntervalAllocations {
		i := min(k, len(ivs)-1)
		ivs[i].Allocations += st.IntervalAllocations[k]
		ivs[i].Gaps += st.IntervalGaps[k]
	}
}

// WriteResults writes r as indented JSON.
func WriteResults(w io.Writer, r Results) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ErrNotResults marks a file that is not a results.json this version reads.
var ErrNotResults = errors.New("not a chatseq results file")

// MaxResultsBytes is the largest results.json read: a day's run at
// one-second intervals writes about 100 MB.
const MaxResultsBytes = 512 << 20

// ReadResults reads a results.json, refusing other schemas and versions,
// anything but a regular file (a FIFO would wait for ever, /dev/zero
// never end), and a file over MaxResultsBytes.
func ReadResults(path string) (Results, error) {
	data, err := readRegularFile(path, MaxResultsBytes)
	if err != nil {
		return Results{}, err
	}
	var head struct {
		Schema  string `json:"schema"`
		Version int    `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Results{}, fmt.Errorf("%s: %w: %v", path, ErrNotResults, err)
	}
	if head.Schema != ResultsSchema {
		return Results{}, fmt.Errorf("%s: %w: schema is %q, want %q", path, ErrNotResults, head.Schema, ResultsSchema)
	}
	if head.Version != ResultsVersion {
		return Results{}, fmt.Errorf("%s: %w: schema_version %d, this chatseq reads version %d", path, ErrNotResults, head.Version, ResultsVersion)
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return Results{}, fmt.Errorf("%s: %w: %v", path, ErrNotResults, err)
	}
	return r, nil
}

// slowCommitDelay is a slow commit's wait in seconds, 0 when none is.
func slowCommitDelay(f bench.FaultRates) float64 {
	switch {
	case f.SlowCommit == 0:
		return 0
	case f.SlowCommitDelay > 0:
		return f.SlowCommitDelay.Seconds()
	}
	return bench.DefaultSlowCommitDelay.Seconds()
}

// readRegularFile reads the regular file at path whole, when it is at
// most max bytes; its errors name the path.
func readRegularFile(path string, max int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotResults, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: more than the %d bytes a results file may have", path, ErrNotResults, max)
	}
	return data, nil
}

// openRegular opens path if it is a regular file: a FIFO would hold the
// open until something writes to it, and a device (/dev/zero) never ends.
// Stat comes first, since opening a FIFO blocks.
func openRegular(path string) (*os.File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, info.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, nil
}
