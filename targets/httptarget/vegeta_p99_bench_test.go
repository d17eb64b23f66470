package httptarget_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/target"
)

// BenchmarkHTTPDriverVsVegetaP99 compares chatseq's http driver's p99 with
// vegeta's at a fixed rate (1000/s each) against one chatseq serve on
// loopback, so that the figure reflects the two clients rather than the
// machine's noise:
//
//   - Both run at the same time, each in a process of its own (this test
//     binary, started again; the server stays in this one, which
//     otherwise only waits), so that a stall of the shared machine hits
//     both, and neither's collections or goroutines pause the other's, as
//     when both CLIs run. chatseq's process records the history and
//     checks it as it goes, as chatseq bench does; a run whose check
//     fails fails the benchmark. vegeta's keeps only each result's
//     latency and status (vegeta attack also encodes every result): if
//     anything, the lighter load of the two.
//   - Both set up first (their chats created), then start when told,
//     their schedules interleaved: the second starts half a send
//     interval after the first (0.5 ms at 1000/s), so that neither's
//     sends land on the other's; which tool goes first alternates
//     between rounds.
//   - Each round gives one ratio, chatseq's p99 over vegeta's, both from
//     when a request was sent to when its answer was read (driverRun
//     says why that is the same span on both sides), both from an HDR
//     histogram of 3 significant digits (vegeta's own summary estimates
//     quantiles with a t-digest instead).
//   - Rounds of vegeta against vegeta and chatseq against chatseq run
//     between them, the same way, their ratio the first-started copy's
//     p99 over the second's: how far apart two copies of one client
//     land is the method's own noise, and their median shows whether
//     starting first or second is itself an advantage.
//
// "Within 10%" (issue 13) is judged on the median of the per-round
// chatseq/vegeta ratios: chatseq's p99 at most 1.1 times vegeta's; lower
// is within it too (a client may be faster than vegeta). It reports each
// kind's median with a 95% confidence interval for it (from the rounds'
// order statistics, assuming nothing of their spread), and says whether
// the bound holds for the whole interval, at the median only, or not. One
// run's interval is wide on a shared machine; -p99-rounds takes more
// rounds (about 13 s for each of the three pairs).
//
// On the shared 2-core machine (load average 3-8, 2026-11-26), nine runs
// (seven rounds of each pair in the first three, nine after) gave
// chatseq/vegeta medians of 0.75-1.06, their intervals (where every
// round was logged) reaching 1.02-6.1 above; the controls' medians were
// 0.88-1.11 (vegeta/vegeta) and 0.92-1.47 (chatseq/chatseq). Two runs of
// 25 rounds: 0.905 (0.674-1.017) and 0.940 (0.778-1.045); controls
// 0.973 (0.844-1.038) and 0.955 (0.858-1.093) for vegeta, 0.928
// (0.850-1.097) and 1.009 (0.897-1.183) for chatseq. The 118 rounds of
// each pair from the runs that logged every round, pooled (95%
// intervals): 0.911 (0.815-0.965), about the same with chatseq first
// (0.907) or second (0.923); vegeta/vegeta 0.996 (0.925-1.048);
// chatseq/chatseq 1.042 (0.996-1.097). chatseq's p50 was the higher in
// 87 of the 118 mixed rounds, by 4.5 µs (2.1%) in the median round.
//
//	go test -run '^$' -bench HTTPDriverVsVegetaP99 -benchtime 1x ./targets/httptarget/
//	go test -run '^$' -bench HTTPDriverVsVegetaP99 -benchtime 1x ./targets/httptarget/ -p99-rounds 25
func BenchmarkHTTPDriverVsVegetaP99(b *testing.B) {
	if *p99Rounds < 1 {
		b.Fatalf("-p99-rounds %d: at least one round of each pair", *p99Rounds)
	}
	s := serveForBench(b)
	const rate, step = 1000.0, 4 * time.Second
	for i := 0; i < b.N; i++ {
		comparePairs(b, "http://"+s.Addr, rate, step, *p99Rounds)
	}
}

var p99Rounds = flag.Int("p99-rounds", 9, "rounds of each pair in BenchmarkHTTPDriverVsVegetaP99")

// The rounds' pairs, first-started copy first in the self pairs.
var (
	chatseqVsVegeta  = [2]string{toolChatseq, toolVegeta}
	vegetaVsVegeta   = [2]string{toolVegeta, toolVegeta}
	chatseqVsChatseq = [2]string{toolChatseq, toolChatseq}
)

// comparePairs runs roundsPerKind rounds of each pair, interleaved, and
// reports the median p99 ratio of each with its 95% confidence interval.
func comparePairs(b *testing.B, url string, rate float64, step time.Duration, roundsPerKind int) {
	// One unmeasured round: the server's first meets a heap still growing
	// from nothing.
	runPair(b, url, chatseqVsVegeta, rate, time.Second, "warm-up, unmeasured: ")
	ratios := map[[2]string][]float64{}
	for round := range roundsPerKind {
		for _, pair := range [][2]string{chatseqVsVegeta, vegetaVsVegeta, chatseqVsChatseq} {
			order := pair
			if pair == chatseqVsVegeta && round%2 == 1 {
				order = [2]string{toolVegeta, toolChatseq}
			}
			r := runPair(b, url, order, rate, step, "")
			if order != pair { // vegeta went first: chatseq's result is r[1]
				r[0], r[1] = r[1], r[0]
			}
			ratios[pair] = append(ratios[pair], float64(r[0].P99)/float64(r[1].P99))
		}
	}
	for _, pair := range [][2]string{chatseqVsVegeta, vegetaVsVegeta, chatseqVsChatseq} {
		rs := ratios[pair]
		slices.Sort(rs)
		name := "p99-" + pair[0] + "/" + pair[1]
		lo, hi, coverage := medianInterval(rs)
		b.ReportMetric(median(rs), name)
		b.ReportMetric(lo, name+"-ci-low")
		b.ReportMetric(hi, name+"-ci-high")
		b.Logf("%s at %.0f/s each: median %.3f (%.1f%% confidence %.3f-%.3f) over %d rounds: %s",
			name, rate, median(rs), 100*coverage, lo, hi, len(rs), formatRatios(rs))
	}
	rs := ratios[chatseqVsVegeta]
	_, hi, coverage := medianInterval(rs)
	switch m := median(rs); {
	case m <= 1.1 && coverage < 0.95:
		b.Logf("chatseq's p99 is within 10%% of vegeta's at the median (%.3f); too few rounds for a 95%% interval", m)
	case hi <= 1.1:
		b.Logf("chatseq's p99 is within 10%% of vegeta's: median ratio %.3f, its 95%% interval up to %.3f ≤ 1.1", m, hi)
	case m <= 1.1:
		b.Logf("chatseq's p99 is within 10%% of vegeta's at the median (%.3f), but its 95%% interval reaches %.3f: more rounds would tell", m, hi)
	default:
		b.Logf("chatseq's p99 is NOT within 10%% of vegeta's: median ratio %.3f > 1.1", m)
	}
}

// medianInterval is a confidence interval for the median of the
// distribution sorted was drawn from: its kth lowest and kth highest
// value, k the largest that leaves at most 2.5% on each side (a sample's
// count below the median is binomial, n and 1/2), and the interval's
// coverage. Fewer than six values leave the whole range, below 95%.
func medianInterval(sorted []float64) (lo, hi, coverage float64) {
	n := len(sorted)
	// below[j] is P(at most j of n values lie below the median).
	below := make([]float64, n+1)
	term, sum := math.Pow(0.5, float64(n)), 0.0
	for j := 0; j <= n; j++ {
		sum += term
		below[j] = sum
		term *= float64(n-j) / float64(j+1)
	}
	k := 1
	for k < n/2 && below[k] <= 0.025 {
		k++
	}
	return sorted[k-1], sorted[n-k], 1 - 2*below[k-1]
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func formatRatios(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.2f", r)
	}
	return strings.Join(parts, " ")
}

// runPair runs tools[0] and tools[1] at rate for d each, at the same time,
// each in its own process, the second's schedule half a send interval
// behind the first's; it returns their results in that order. Each
// process says when its set-up is done and is then told when to start.
func runPair(b *testing.B, url string, tools [2]string, rate float64, d time.Duration, label string) [2]loadResult {
	var cmds [2]*exec.Cmd
	var starts [2]io.WriteCloser
	var outs [2]*bufio.Reader
	var errs [2]bytes.Buffer
	for i, tool := range tools {
		spec, _ := json.Marshal(loadSpec{Tool: tool, URL: url, Rate: rate, Duration: d, Prefix: fmt.Sprintf("p%d-%d-", time.Now().UnixNano(), i)})
		cmds[i] = exec.Command(os.Args[0])
		cmds[i].Env = append(os.Environ(), loadgenEnv+"="+string(spec))
		cmds[i].Stderr = &errs[i]
		var err error
		if starts[i], err = cmds[i].StdinPipe(); err != nil {
			b.Fatal(err)
		}
		stdout, err := cmds[i].StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		outs[i] = bufio.NewReader(stdout)
		if err := cmds[i].Start(); err != nil {
			b.Fatal(err)
		}
	}
	failed := func(i int, err error) {
		cmds[i].Wait()
		b.Fatalf("the %s process: %v\n%s", tools[i], err, errs[i].String())
	}
	for i := range cmds {
		if line, err := outs[i].ReadString('\n'); line != readyLine {
			failed(i, fmt.Errorf("said %q, not that it is ready (%v)", line, err))
		}
	}
	// A little room for both to read their start.
	start := time.Now().Add(20 * time.Millisecond)
	halfInterval := time.Duration(float64(time.Second) / rate / 2)
	for i := range cmds {
		fmt.Fprintln(starts[i], start.Add(time.Duration(i)*halfInterval).UnixNano())
		starts[i].Close()
	}
	var res [2]loadResult
	for i, cmd := range cmds {
		out, err := io.ReadAll(outs[i])
		if err != nil {
			failed(i, err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("the %s process: %v\n%s", tools[i], err, errs[i].String())
		}
		if err := json.Unmarshal(out, &res[i]); err != nil {
			b.Fatalf("the %s process's result %q: %v\n%s", tools[i], out, err, errs[i].String())
		}
		if res[i].Err != "" {
			b.Fatalf("the %s process: %s", tools[i], res[i].Err)
		}
		// A late start shortens the time both run together.
		if res[i].Late > d/20 {
			b.Fatalf("the %s process started sending %s late", tools[i], res[i].Late)
		}
	}
	b.Logf("%s%-7s first: p50 %-8s p99 %-8s %5.0f ok/s | %-7s second: p50 %-8s p99 %-8s %5.0f ok/s | p99 ratio %.2f",
		label, tools[0], res[0].P50, res[0].P99, float64(res[0].OK)/d.Seconds(),
		tools[1], res[1].P50, res[1].P99, float64(res[1].OK)/d.Seconds(), float64(res[0].P99)/float64(res[1].P99))
	for i, r := range res {
		if float64(r.OK) < 0.95*rate*d.Seconds() {
			b.Logf("  %s did not sustain %.0f/s: %d ok in %s", tools[i], rate, r.OK, d)
		}
	}
	return res
}

// readyLine is what a load process prints when its set-up is done; it
// then reads the time to start at (Unix nanoseconds) from its stdin.
const readyLine = "ready\n"

// waitForStart says the set-up is done, reads the start time and sleeps
// until it; it returns how late it was.
func waitForStart() (late time.Duration, err error) {
	fmt.Print(readyLine)
	var ns int64
	if _, err := fmt.Fscanln(os.Stdin, &ns); err != nil {
		return 0, fmt.Errorf("reading the start time: %w", err)
	}
	at := time.Unix(0, ns)
	late = max(-time.Until(at), 0)
	time.Sleep(time.Until(at))
	return late, nil
}

const (
	toolChatseq = "chatseq"
	toolVegeta  = "vegeta"
	// loadgenEnv, when set, makes this test binary one load generator of
	// a runPair: the loadSpec in it, as JSON; it prints a loadResult.
	loadgenEnv = "CHATSEQ_TEST_LOADGEN"
)

type loadSpec struct {
	Tool     string
	URL      string
	Rate     float64
	Duration time.Duration
	Prefix   string // the run's chats' prefix
}

type loadResult struct {
	P50, P99 time.Duration // from when each request was sent
	OK       int64         // answered 201
	Late     time.Duration // how long after the start it was given the sends began
	Err      string
}

// loadFromEnv runs the loadSpec in spec and prints its loadResult.
func loadFromEnv(spec string) int {
	var s loadSpec
	var res loadResult
	var err error
	if err = json.Unmarshal([]byte(spec), &s); err == nil {
		switch s.Tool {
		case toolChatseq:
			res, err = chatseqLoad(s)
		case toolVegeta:
			res, err = vegetaLoad(s)
		default:
			err = fmt.Errorf("unknown tool %q", s.Tool)
		}
	}
	if err != nil {
		res.Err = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// chatseqLoad is runChatseq's run, recorded and checked as it goes, its
// writers starting when told (waitForStart).
func chatseqLoad(s loadSpec) (loadResult, error) {
	base, err := url.Parse(s.URL)
	if err != nil {
		return loadResult{}, err
	}
	dir, err := os.MkdirTemp("", "chatseq-p99-")
	if err != nil {
		return loadResult{}, err
	}
	defer os.RemoveAll(dir)
	started := &startsWhenTold{}
	res, err := runChecked(base, s.Rate, s.Duration, s.Prefix, filepath.Join(dir, "history.jsonl"), func(t target.Target) target.Target {
		started.Target = t
		return started
	})
	if err != nil {
		return loadResult{}, err
	}
	h := res.Latency[bench.StepService]
	return loadResult{
		P50: time.Duration(h.ValueAtQuantile(50)), P99: time.Duration(h.ValueAtQuantile(99)),
		OK: res.Counts.PersistOK, Late: started.late,
	}, nil
}

// startsWhenTold holds the run back after its last chat is created until
// waitForStart returns: the writers start right after the set-up.
type startsWhenTold struct {
	target.Target
	created int
	late    time.Duration
}

func (s *startsWhenTold) CreateChat(ctx context.Context, chat string, members []string) error {
	if err := s.Target.CreateChat(ctx, chat, members); err != nil {
		return err
	}
	if s.created++; s.created < benchChats {
		return nil
	}
	var err error
	s.late, err = waitForStart()
	return err
}

// vegetaLoad is runVegeta's attack, starting when told, its latencies
// kept in the histogram chatseq keeps its own in.
func vegetaLoad(s loadSpec) (loadResult, error) {
	addr := strings.TrimPrefix(s.URL, "http://")
	if err := createVegetaChats(addr, s.Prefix); err != nil {
		return loadResult{}, err
	}
	late, err := waitForStart()
	if err != nil {
		return loadResult{}, err
	}
	h := hdrhistogram.New(1, 3600e9, 3) // bench's (latency.go)
	var ok int64
	attacker := vegeta.NewAttacker(vegeta.KeepAlive(true))
	for r := range attacker.Attack(vegetaTargeter(addr, s.Prefix), vegeta.Rate{Freq: int(s.Rate), Per: time.Second}, s.Duration, "vegeta") {
		h.RecordValue(int64(r.Latency))
		if r.Code == http.StatusCreated {
			ok++
		}
	}
	return loadResult{
		P50: time.Duration(h.ValueAtQuantile(50)), P99: time.Duration(h.ValueAtQuantile(99)),
		OK: ok, Late: late,
	}, nil
}

// The intervals medianInterval gives are the binomial ones: for nine
// rounds the 2nd lowest to the 2nd highest (96.1%), for 25 the 8th
// (95.7%), and for five, too few for 95%, the whole range (93.75%).
func TestMedianInterval(t *testing.T) {
	for _, c := range []struct {
		n, k     int
		coverage float64
	}{{5, 1, 0.9375}, {9, 2, 0.9609375}, {25, 8, 0.9567147}, {41, 14, 0.9724668}} {
		sorted := make([]float64, c.n)
		for i := range sorted {
			sorted[i] = float64(i + 1)
		}
		lo, hi, coverage := medianInterval(sorted)
		if lo != float64(c.k) || hi != float64(c.n+1-c.k) || math.Abs(coverage-c.coverage) > 1e-6 {
			t.Errorf("%d values: interval %g-%g (%.7f), want the %dth lowest and highest, %g-%g (%.7f)",
				c.n, lo, hi, coverage, c.k, float64(c.k), float64(c.n+1-c.k), c.coverage)
		}
	}
}
