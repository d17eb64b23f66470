package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/target"
)

// maxShownLines caps the counterexample lines the report prints per
// invariant; the checker's counterexamples are smaller than this.
const maxShownLines = 80

// faultColors colour each timed fault kind, in the legend and the shading.
var faultColors = map[string]string{
	target.KafkaOutage:   "#d62728",
	target.StoreLatency:  "#ff7f0e",
	target.StoreStall:    "#9467bd",
	target.DeleteCounter: "#8c564b",
	// Store errors.
	target.StoreThrottle:      "#bcbd22",
	target.StoreInternalError: "#e377c2",
	target.TxnCanceledOther:   "#17becf",
}

// page is what report.html's template reads.
type page struct {
	R             Results
	Verdict       string
	Latency       []Percentiles
	Failures      []failure // failed invariants, stated at the top
	Unknown       []string  // invariants left undecided
	Online        []onlineRow
	OnlineRan     bool // false: --online=false (results.json's online is null)
	Invariants    []invariantRow
	NotApplicable []checker.NotApplicable
	FaultKinds    []faultKind
	GapCauses     []countRow
	ErrorCodes    []countRow
	Settings      []countRow
	Generated     string
	Data          chartData
}

type invariantRow struct {
	checker.Result
	Shown  []numberedLine
	Hidden int // counterexample lines not shown
	Vizs   []Visualization
}

type numberedLine struct {
	N    int
	Text string
}

type faultKind struct{ Kind, Color string }

type countRow struct {
	Name  string
	Value string
}

// chartData is the JSON the page's script draws from; docs/results.md
// describes where each series comes from.
type chartData struct {
	T            []float64             `json:"t"` // middle of each interval, seconds
	Duration     float64               `json:"duration"`
	Faults       []FaultWindow         `json:"faults"`
	FaultColors  map[string]string     `json:"fault_colors"`
	Throughput   map[string][]*float64 `json:"throughput"`
	Latency      []stepSeriesData      `json:"latency"`
	Distribution distributionData      `json:"distribution"`
	Attempts     map[string][]*float64 `json:"attempts"`
	Gaps         map[string][]*float64 `json:"gaps"`
	// Delivery is the receivers' latencies over time; nil without
	// receivers.
	Delivery *deliveryData `json:"delivery,omitempty"`
}

// deliveryData draws fan_out and full_visibility over time (by receipt,
// on their own intervals) with the connection drops shaded.
type deliveryData struct {
	T         []float64        `json:"t"`
	End       float64          `json:"end_s"` // the last interval's end: the settle outlasts the writers
	FanOut    stepSeriesData   `json:"fan_out"`
	Full      stepSeriesData   `json:"full_visibility"`
	Drops     []ConnectionDrop `json:"drops"`
	DropColor string           `json:"drop_color"`
}

// dropColor shades the connection drops.
const dropColor = "#4263eb"

func newDeliveryData(r Results) *deliveryData {
	if r.Receivers == nil {
		return nil
	}
	n := len(r.DeliveryIntervals)
	d := &deliveryData{
		T: make([]float64, n), End: r.Run.Elapsed, Drops: r.ConnectionDrops, DropColor: dropColor,
		FanOut: stepSeriesData{Step: "fan_out", P50: make([]*float64, n), P99: make([]*float64, n), Max: make([]*float64, n)},
		Full:   stepSeriesData{Step: "full_visibility", P50: make([]*float64, n), P99: make([]*float64, n), Max: make([]*float64, n)},
	}
	if d.Drops == nil {
		d.Drops = []ConnectionDrop{}
	}
	for i, iv := range r.DeliveryIntervals {
		d.T[i] = iv.Start + iv.Length/2
		d.End = max(d.End, iv.Start+iv.Length)
		for _, p := range []struct {
			l *IntervalLatency
			s *stepSeriesData
		}{{iv.FanOut, &d.FanOut}, {iv.FullVisibility, &d.Full}} {
			if p.l != nil && p.l.Count > 0 {
				p.s.P50[i], p.s.P99[i], p.s.Max[i] = float64Ptr(p.l.P50), float64Ptr(p.l.P99), float64Ptr(p.l.Max)
			}
		}
	}
	for _, w := range d.Drops {
		d.End = max(d.End, w.End)
	}
	return d
}

type stepSeriesData struct {
	Step string     `json:"step"`
	P50  []*float64 `json:"p50"`
	P99  []*float64 `json:"p99"`
	Max  []*float64 `json:"max"`
}

type distributionData struct {
	X     []float64             `json:"x"`
	Steps []stepDistributionRow `json:"steps"`
}

type stepDistributionRow struct {
	Step string    `json:"step"`
	Ms   []float64 `json:"ms"`
}

// newPage assembles the page from the saved results, the latency series
// and the counterexample lines read from the history.
func newPage(r Results, lat *latencySeries, lines map[int]string, generated time.Time) page {
	// A results.json of an older chatseq may hold a credential in its
	// command: the page, which is shared, never shows it.
	r.Command = redact.Text(r.Command)
	p := page{
		R: r, Verdict: Verdict(r.Check), NotApplicable: r.Check.NotApplicable,
		Generated: generated.UTC().Format(time.RFC3339),
		Data:      newChartData(r, lat),
	}
	for _, l := range r.Latency {
		if l.Count > 0 {
			p.Latency = append(p.Latency, l)
		}
	}
	p.Failures = failures(r, lines)
	p.Online, p.OnlineRan = onlineRows(r, lines), r.Online != nil
	for _, inv := range r.Check.Invariants {
		if inv.Status == checker.Unknown {
			p.Unknown = append(p.Unknown, inv.Name)
		}
		row := invariantRow{Result: inv}
		row.Shown, row.Hidden = shownLines(inv.Lines, lines)
		if inv.Name == checker.NameLinearizability {
			row.Vizs = r.Files.Visualizations
		}
		p.Invariants = append(p.Invariants, row)
	}
	seen := map[string]bool{}
	for _, f := range r.Faults {
		if !seen[f.Kind] {
			seen[f.Kind] = true
			p.FaultKinds = append(p.FaultKinds, faultKind{Kind: f.Kind, Color: faultColor(f.Kind)})
		}
	}
	p.GapCauses = sortedCounts(r.Check.Stats.GapCauses)
	codes := map[string]int{}
	for k, v := range r.ErrorCodes {
		codes[k] = int(v)
	}
	p.ErrorCodes = sortedCounts(codes)
	p.Settings = settings(r)
	return p
}

// counterexampleLines lists every line number the report will print:
// the check's counterexamples', and the online check's.
func counterexampleLines(r Results) []int {
	var out []int
	for _, inv := range r.Check.Invariants {
		out = append(out, inv.Lines[:min(len(inv.Lines), maxShownLines)]...)
	}
	for _, v := range r.Online {
		out = append(out, v.Lines[:min(len(v.Lines), maxShownLines)]...)
	}
	return out
}

// onlineRow is a violation the online check found while the writers ran.
type onlineRow struct {
	checker.Violation
	At    float64 // seconds on the history's clock (the writers' start)
	Shown []numberedLine
}

func onlineRows(r Results, lines map[int]string) []onlineRow {
	var out []onlineRow
	for _, v := range r.Online {
		row := onlineRow{Violation: v, At: float64(v.Time) / 1e9}
		row.Shown, _ = shownLines(v.Lines, lines) // a violation's few lines
		out = append(out, row)
	}
	return out
}

// shownLines are the first maxShownLines of a counterexample's lines with
// their text, and how many more it has.
func shownLines(ns []int, lines map[int]string) (shown []numberedLine, hidden int) {
	for _, n := range ns[:min(len(ns), maxShownLines)] {
		shown = append(shown, numberedLine{N: n, Text: lines[n]})
	}
	return shown, max(len(ns)-maxShownLines, 0)
}

func faultColor(kind string) string {
	if c, ok := faultColors[kind]; ok {
		return c
	}
	return "#7f7f7f"
}

func sortedCounts(m map[string]int) []countRow {
	type kv struct {
		k string
		v int
	}
	var kvs []kv
	for k, v := range m {
		kvs = append(kvs, kv{k, v})
	}
	slices.SortFunc(kvs, func(a, b kv) int {
		if c := cmp.Compare(b.v, a.v); c != 0 {
			return c
		}
		return strings.Compare(a.k, b.k)
	})
	out := make([]countRow, len(kvs))
	for i, e := range kvs {
		out[i] = countRow{Name: e.k, Value: fmt.Sprint(e.v)}
	}
	return out
}

func newChartData(r Results, lat *latencySeries) chartData {
	ivs := binIntervals(r.Intervals, binSize(len(r.Intervals)))
	n := len(ivs)
	d := chartData{
		T: make([]float64, n), Duration: r.Run.Elapsed, Faults: r.Faults, FaultColors: map[string]string{},
		Throughput: map[string][]*float64{}, Attempts: map[string][]*float64{}, Gaps: map[string][]*float64{},
		Delivery: newDeliveryData(r),
	}
	if d.Faults == nil {
		d.Faults = []FaultWindow{}
	}
	for _, f := range r.Faults {
		d.FaultColors[f.Kind] = faultColor(f.Kind)
	}
	perSecond := func(get func(IntervalCounts) int64) []*float64 {
		out := make([]*float64, n)
		for i, iv := range ivs {
			if iv.Length > 0 {
				v := float64(get(iv)) / iv.Length
				out[i] = &v
			}
		}
		return out
	}
	for i, iv := range ivs {
		d.T[i] = iv.Start + iv.Length/2
	}
	d.Throughput["ops"] = perSecond(func(c IntervalCounts) int64 { return c.Operations })
	d.Throughput["ok"] = perSecond(func(c IntervalCounts) int64 { return c.OK })
	d.Throughput["fail"] = perSecond(func(c IntervalCounts) int64 { return c.Fail })
	d.Throughput["info"] = perSecond(func(c IntervalCounts) int64 { return c.Info })
	d.Attempts["retries"] = perSecond(func(c IntervalCounts) int64 { return c.Retries })
	d.Attempts["faults"] = perSecond(func(c IntervalCounts) int64 { return c.FaultsInjected })
	d.Attempts["duplicates"] = perSecond(func(c IntervalCounts) int64 { return c.DuplicatesSent + c.ConcurrentDuplicates })
	perPersist := make([]*float64, n)
	for i, iv := range ivs {
		if iv.Persists > 0 {
			v := float64(iv.Attempts) / float64(iv.Persists)
			perPersist[i] = &v
		}
	}
	d.Attempts["tx_per_persist"] = perPersist
	rate := make([]*float64, n)
	for i, iv := range ivs {
		if iv.Allocations > 0 {
			v := 100 * float64(iv.Gaps) / float64(iv.Allocations)
			rate[i] = &v
		}
	}
	d.Gaps["rate"] = rate
	d.Gaps["gaps"] = perSecond(func(c IntervalCounts) int64 { return c.Gaps })

	x, qs := distributionPoints()
	d.Distribution.X = x
	d.Latency = []stepSeriesData{}
	d.Distribution.Steps = []stepDistributionRow{}
	for _, step := range bench.Steps() {
		sl := lat.steps[step.String()]
		if sl == nil || sl.total == nil {
			continue // the step never ran (Kafka off: no publish)
		}
		d.Latency = append(d.Latency, stepSeriesData{Step: step.String(), P50: sl.p50, P99: sl.p99, Max: sl.max})
		row := stepDistributionRow{Step: step.String(), Ms: make([]float64, len(qs))}
		for i, q := range qs {
			row.Ms[i] = ms(sl.total.ValueAtQuantile(q))
		}
		d.Distribution.Steps = append(d.Distribution.Steps, row)
	}
	return d
}

// binIntervals merges every k intervals into one chart point: a long
// run's charts draw at most maxChartPoints.
func binIntervals(ivs []IntervalCounts, k int) []IntervalCounts {
	if k <= 1 {
		return ivs
	}
	out := make([]IntervalCounts, 0, (len(ivs)+k-1)/k)
	for i, iv := range ivs {
		if i%k == 0 {
			out = append(out, IntervalCounts{Start: iv.Start})
		}
		b := &out[len(out)-1]
		b.Length += iv.Length
		b.Operations += iv.Operations
		b.OK += iv.OK
		b.Fail += iv.Fail
		b.Info += iv.Info
		b.Retries += iv.Retries
		b.FaultsInjected += iv.FaultsInjected
		b.DuplicatesSent += iv.DuplicatesSent
		b.ConcurrentDuplicates += iv.ConcurrentDuplicates
		b.Persists += iv.Persists
		b.Attempts += iv.Attempts
		b.Allocations += iv.Allocations
		b.Gaps += iv.Gaps
	}
	return out
}

// settings lists the run's configuration for the page's settings table.
func settings(r Results) []countRow {
	c := r.Config
	rows := []countRow{
		{"writers", fmt.Sprint(c.Writers)},
		{"chats", fmt.Sprintf("%d (%s)", c.Chats, c.Distribution)},
		{"duration", fmt.Sprintf("%gs", c.Duration)},
		{"ops", fmt.Sprint(c.Ops)},
		{"loop", r.Run.Loop},
		{"seed", fmt.Sprint(c.Seed)},
		{"strategy", c.Strategy},
		{"fault rates", faultRatesText(c.FaultRates)},
		{"duplicates", duplicatesText(c)},
		{"syncs", fmt.Sprintf("ratio %g, page %d, %d readers", c.SyncRatio, c.SyncLimit, c.Readers)},
		{"max attempts", fmt.Sprint(c.MaxAttempts)},
		{"republish on replay", fmt.Sprint(c.RepublishOnReplay)},
		{"contract", contractText(c.Contract)},
	}
	if c.InitialCounter > 0 {
		rows = append(rows, countRow{"initial counter", fmt.Sprint(c.InitialCounter)})
	}
	if c.Shard != "" {
		rows = append(rows, countRow{"shard", c.Shard})
	}
	return rows
}

// faultRatesText lists the per-attempt fault rates; those off by default
// only when on.
func faultRatesText(f FaultRates) string {
	s := fmt.Sprintf("stale read %g, crash after allocate %g, crash in persist %g, crash after persist %g, publish fail %g",
		f.StaleRead, f.CrashAfterAllocate, f.CrashInPersist, f.CrashAfterPersist, f.PublishFail)
	for _, o := range []struct {
		name string
		v    float64
	}{
		{"crash before allocate", f.CrashBeforeAllocate}, {"store throttle", f.StoreThrottle},
		{"store internal error", f.StoreInternalError}, {"transaction canceled (other)", f.TxnCanceledOther},
	} {
		if o.v > 0 {
			s += fmt.Sprintf(", %s %g", o.name, o.v)
		}
	}
	if f.SlowCommit > 0 {
		s += fmt.Sprintf(", slow commit %g (%gs between allocation and commit)", f.SlowCommit, f.SlowCommitDelayS)
	}
	return s
}

// contractText lists the contract a run was judged under. A field a
// results file from before it existed lacks is shown as its default, as
// the checker applied it.
func contractText(c history.Contract) string {
	parts := make([]string, len(history.ContractFields))
	for i, f := range history.ContractFields {
		v := *f.Of(&c)
		if v == "" {
			v = f.Default
		}
		parts[i] = f.Prose + " " + v
	}
	return strings.Join(parts, ", ")
}
