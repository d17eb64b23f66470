package httptarget_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// driverRun is what one tool achieved at one offered rate.
//
// What each side's p99 measures, so that the two are the same span:
// vegeta's latency runs from the moment a worker takes the pacer's tick
// (Attacker.hit stamps Result.Timestamp before it builds the request)
// until the whole answer is read; the tick's own lateness against the
// pacer's schedule is not in it. chatseq's service latency runs from the
// moment a writer stamps the send's invoke line, after its open-loop
// wait, before it builds the request, until the answer is read and its
// fields taken; the writer's lateness against its schedule is not in
// it either. Both include building the request, net/http's client, the
// server, and reading the answer; chatseq's also reading the sequence
// and message id out of it. Neither is corrected for coordinated
// omission: vegeta does not measure from the intended send time, so
// chatseq's own figure that does (end_to_end, p99Intended here) is
// logged beside, never compared. Both tools pace open-loop at the same
// rate, keep connections alive and reuse idle ones (net/http's pool, up
// to 2·writers+4 idle for chatseq, vegeta's 10000), and drive the same
// server in the same process, at the collector's default target (what
// chatseq bench keeps for a remote target; a lower or higher one during
// chatseq's runs alone would also change the in-process server's
// collections, which a real service's process does not share).
type driverRun struct {
	rate       float64 // offered, ops/s
	throughput float64 // answered ok, ops/s
	// p99 is from when each request was sent, as vegeta measures;
	// chatseq's intended-start p99 (coordinated omission corrected) is
	// p99Intended.
	p99, p99Intended time.Duration
}

func (r driverRun) sustained() bool { return r.throughput >= 0.95*r.rate }

// BenchmarkHTTPDriverVsVegeta drives chatseq serve (memory, Kafka off)
// on loopback with chatseq's http driver (open loop, recording the
// history, then checking it) and with vegeta at the same offered rates,
// side by side: each rate runs both, one after the other. It reports each
// tool's highest sustained rate (≥95% of the offered rate answered 201),
// their ratio (issue 13 asks ≥ 0.9), and the p99 ratio at a fixed rate
// (within 10%), both measured from when a request was sent, as vegeta
// measures (chatseq's own report also gives it from the intended start).
//
//	go test -run '^$' -bench HTTPDriverVsVegeta -benchtime 1x ./targets/httptarget/
func BenchmarkHTTPDriverVsVegeta(b *testing.B) {
	s := serveForBench(b)
	base, _ := url.Parse("http://" + s.Addr)
	const step = 2 * time.Second
	rates := []float64{500, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 12000, 16000}
	const fixed = 1000.0
	for i := 0; i < b.N; i++ {
		var best [2]float64 // chatseq, vegeta
		for _, rate := range rates {
			c := runChatseq(b, base, rate, step)
			v := runVegeta(b, s.Addr, rate, step)
			b.Logf("rate %6.0f/s: chatseq %7.0f ok/s p99 %-9s | vegeta %7.0f ok/s p99 %s", rate, c.throughput, c.p99, v.throughput, v.p99)
			for k, r := range []driverRun{c, v} {
				if r.sustained() {
					best[k] = max(best[k], rate)
				}
			}
			if !c.sustained() && !v.sustained() {
				break
			}
		}
		b.ReportMetric(best[0], "chatseq-max-ops/s")
		b.ReportMetric(best[1], "vegeta-max-ops/s")
		if best[1] > 0 {
			b.ReportMetric(best[0]/best[1], "max-rate-ratio")
		}
		// The p99 at a fixed rate: the median of three side-by-side
		// pairs, alternating which tool goes first.
		b.ReportMetric(medianP99Ratio(b, base, s.Addr, fixed, step, 3), "p99-ratio@1000/s")
	}
}

// BenchmarkHTTPDriverVsVegetaP99 is the p99 comparison alone, with more
// and longer pairs than BenchmarkHTTPDriverVsVegeta's three of 2 s: a p99
// of 2000 requests is their 20th slowest, which one stall of a shared
// machine decides. Nine alternating pairs of 4 s at 1000/s, recorded and
// checked as there; it reports the median ratio. Nine, not five: on the
// 2-core machine under other load (load average 4-5), two copies of one
// tool run at once had p99s 0.70-1.36 times each other's, a spread that
// the median of five still showed as 0.76-2.8 between runs.
//
//	go test -run '^$' -bench HTTPDriverVsVegetaP99 -benchtime 1x ./targets/httptarget/
func BenchmarkHTTPDriverVsVegetaP99(b *testing.B) {
	s := serveForBench(b)
	base, _ := url.Parse("http://" + s.Addr)
	const rate, step, pairs = 1000.0, 4 * time.Second, 9
	for i := 0; i < b.N; i++ {
		b.ReportMetric(medianP99Ratio(b, base, s.Addr, rate, step, pairs), "p99-ratio@1000/s")
	}
}

// medianP99Ratio runs both tools at rate for step, pairs times side by
// side, alternating which goes first, and returns the median of chatseq's
// p99 over vegeta's. Each tool runs once first, unmeasured: the process's
// first run met a heap still growing from nothing (three times the
// collections of a later run) and connections still being dialled, a
// handicap for whichever tool the first pair put first.
func medianP99Ratio(b *testing.B, base *url.URL, addr string, rate float64, step time.Duration, pairs int) float64 {
	runChatseq(b, base, rate, time.Second)
	runVegeta(b, addr, rate, time.Second)
	var ratios []float64
	for pair := range pairs {
		var c, v driverRun
		if pair%2 == 0 {
			c, v = runChatseq(b, base, rate, step), runVegeta(b, addr, rate, step)
		} else {
			v, c = runVegeta(b, addr, rate, step), runChatseq(b, base, rate, step)
		}
		b.Logf("at %.0f/s: chatseq p99 %s (from intended start %s), vegeta p99 %s", rate, c.p99, c.p99Intended, v.p99)
		ratios = append(ratios, float64(c.p99)/float64(v.p99))
	}
	slices.Sort(ratios)
	return ratios[pairs/2]
}

func serveForBench(b *testing.B) *httpapi.Serving {
	s, err := httpapi.Start(context.Background(), httpapi.ServeOptions{
		Target: "memory", Strategy: sequencer.TwoPhase, Kafka: httpapi.KafkaOff, Listen: "127.0.0.1:0", Seed: 1,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// runChatseq is bench --target http at rate for d: sends only (no syncs,
// duplicates or faults, as vegeta sends), recorded, and checked while
// recorded as chatseq bench checks (the check reads the history as the
// recorder writes it, in the same process as the sends).
func runChatseq(b *testing.B, base *url.URL, rate float64, d time.Duration) driverRun {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Rate, cfg.Duration = 64, 64, rate, d
	cfg.Faults, cfg.SyncRatio, cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = bench.FaultRates{}, 0, 0, 0
	cfg.KafkaOff, cfg.Target = true, httptarget.Name
	cfg.ChatPrefix = fmt.Sprintf("b%d-", time.Now().UnixNano())
	cfg.HistoryPath = filepath.Join(b.TempDir(), "history.jsonl")
	feed := checker.NewFeed(cfg.HistoryPath)
	cfg.HistoryTap = feed.Tap()
	res, err := bench.RunTarget(context.Background(), cfg, httptarget.Factory(base, httptarget.DefaultAPI(), nil))
	if err != nil {
		feed.Discard()
		b.Fatal(err)
	}
	rep, _, err := feed.Check(checker.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if rep.Valid == nil || !*rep.Valid {
		b.Fatalf("the check of the run at %g/s failed", rate)
	}
	return driverRun{
		rate: rate, throughput: float64(res.Counts.PersistOK) / cfg.Duration.Seconds(),
		p99:         time.Duration(res.Latency[bench.StepService].ValueAtQuantile(99)),
		p99Intended: time.Duration(res.Latency[bench.StepEndToEnd].ValueAtQuantile(99)),
	}
}

// runVegeta sends the same requests (one new key each, over the same 64
// chats, created first) with vegeta's attacker.
func runVegeta(b *testing.B, addr string, rate float64, d time.Duration) driverRun {
	prefix := fmt.Sprintf("v%d-", time.Now().UnixNano())
	for c := range 64 {
		req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/v1/chats/"+prefix+strconv.Itoa(c), stringsReader(`{"members":["u"]}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			b.Fatalf("creating a chat for vegeta: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	var n atomic.Int64
	body := []byte(`{"sender_id":"u","content":"message"}`)
	targeter := func(t *vegeta.Target) error {
		i := n.Add(1)
		t.Method = http.MethodPost
		t.URL = "http://" + addr + "/v1/chats/" + prefix + strconv.FormatInt(i%64, 10) + "/messages"
		t.Body = body
		t.Header = http.Header{"Content-Type": {"application/json"}, httpapi.HeaderIdempotencyKey: {"k" + strconv.FormatInt(i, 10)}}
		return nil
	}
	attacker := vegeta.NewAttacker(vegeta.KeepAlive(true))
	var m vegeta.Metrics
	for res := range attacker.Attack(targeter, vegeta.Rate{Freq: int(rate), Per: time.Second}, d, "vegeta") {
		m.Add(res)
	}
	m.Close()
	ok := float64(m.StatusCodes["201"])
	return driverRun{rate: rate, throughput: ok / d.Seconds(), p99: m.Latencies.P99}
}
