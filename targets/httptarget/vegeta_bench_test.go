package httptarget_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
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
// server at the collector's default target (what chatseq bench keeps for
// a remote target): here from the server's process, one tool after the
// other; in BenchmarkHTTPDriverVsVegetaP99 each from its own process, at
// the same time.
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
// side by side: each rate runs both, one after the other, in this
// process. It reports each tool's highest sustained rate (≥95% of the
// offered rate answered 201) and their ratio (issue 13 asks ≥ 0.9), then
// the p99 ratio at a fixed rate (within 10%) as
// BenchmarkHTTPDriverVsVegetaP99 measures it, with three rounds of each
// pair instead of nine.
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
		// The p99 at a fixed rate, as BenchmarkHTTPDriverVsVegetaP99
		// measures it, with fewer rounds.
		comparePairs(b, "http://"+s.Addr, fixed, 4*time.Second, 3)
	}
}

func serveForBench(b *testing.B) *serve.Serving {
	s, err := serve.Start(context.Background(), serve.Options{
		Target: "memory", Strategy: sequencer.TwoPhase, Kafka: serve.KafkaOff, Listen: "127.0.0.1:0", Seed: 1,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// benchChats is how many chats each tool's runs send to.
const benchChats = 64

// runChatseq is bench --target http at rate for d (runChecked), as a
// driverRun.
func runChatseq(b *testing.B, base *url.URL, rate float64, d time.Duration) driverRun {
	res, err := runChecked(base, rate, d, fmt.Sprintf("b%d-", time.Now().UnixNano()), filepath.Join(b.TempDir(), "history.jsonl"), nil)
	if err != nil {
		b.Fatal(err)
	}
	return driverRun{
		rate: rate, throughput: float64(res.Counts.PersistOK) / d.Seconds(),
		p99:         time.Duration(res.Latency[bench.StepService].ValueAtQuantile(99)),
		p99Intended: time.Duration(res.Latency[bench.StepEndToEnd].ValueAtQuantile(99)),
	}
}

// runChecked is bench --target http at rate for d: sends only (no syncs,
// duplicates or faults, as vegeta sends), recorded, and checked while
// recorded as chatseq bench checks (the check reads the history as the
// recorder writes it, in the same process as the sends); an error if the
// check does not pass. wrap, if set, wraps the run's target.
func runChecked(base *url.URL, rate float64, d time.Duration, prefix, historyPath string, wrap func(target.Target) target.Target) (*bench.Result, error) {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Rate, cfg.Duration = 64, benchChats, rate, d
	cfg.Faults, cfg.SyncRatio, cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate = bench.FaultRates{}, 0, 0, 0
	cfg.KafkaOff, cfg.Target = true, httptarget.Name
	cfg.ChatPrefix, cfg.HistoryPath = prefix, historyPath
	feed := checker.NewFeed(cfg.HistoryPath)
	cfg.HistoryTap = feed.Tap()
	factory := httptarget.Factory(base, httptarget.DefaultAPI(), nil)
	if wrap != nil {
		inner := factory
		factory = func(ctx context.Context, env target.Env) (target.Target, error) {
			t, err := inner(ctx, env)
			if err != nil {
				return nil, err
			}
			return wrap(t), nil
		}
	}
	res, err := bench.RunTarget(context.Background(), cfg, factory)
	if err != nil {
		feed.Discard()
		return nil, err
	}
	rep, _, err := feed.Check(checker.Options{})
	if err != nil {
		return nil, err
	}
	if rep.Valid == nil || !*rep.Valid {
		return nil, fmt.Errorf("the check of the run at %g/s failed", rate)
	}
	return res, nil
}

// runVegeta sends the same requests (one new key each, over as many
// chats, created first) with vegeta's attacker.
func runVegeta(b *testing.B, addr string, rate float64, d time.Duration) driverRun {
	prefix := fmt.Sprintf("v%d-", time.Now().UnixNano())
	if err := createVegetaChats(addr, prefix); err != nil {
		b.Fatal(err)
	}
	attacker := vegeta.NewAttacker(vegeta.KeepAlive(true))
	var m vegeta.Metrics
	for res := range attacker.Attack(vegetaTargeter(addr, prefix), vegeta.Rate{Freq: int(rate), Per: time.Second}, d, "vegeta") {
		m.Add(res)
	}
	m.Close()
	ok := float64(m.StatusCodes["201"])
	return driverRun{rate: rate, throughput: ok / d.Seconds(), p99: m.Latencies.P99}
}

// createVegetaChats creates vegeta's chats, prefix0 to prefix63.
func createVegetaChats(addr, prefix string) error {
	for c := range benchChats {
		req, _ := http.NewRequest(http.MethodPut, "http://"+addr+"/v1/chats/"+prefix+strconv.Itoa(c), stringsReader(`{"members":["u"]}`))
		req.Header.Set(httpapi.HeaderUser, "u")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("creating a chat for vegeta: %w", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("creating a chat for vegeta: %s", resp.Status)
		}
	}
	return nil
}

// vegetaTargeter sends one message with a new key each time, to the
// chats in turn.
func vegetaTargeter(addr, prefix string) vegeta.Targeter {
	var n atomic.Int64
	body := []byte(`{"sender_id":"u","content":"message"}`)
	return func(t *vegeta.Target) error {
		i := n.Add(1)
		t.Method = http.MethodPost
		t.URL = "http://" + addr + "/v1/chats/" + prefix + strconv.FormatInt(i%benchChats, 10) + "/messages"
		t.Body = body
		t.Header = http.Header{"Content-Type": {"application/json"}, httpapi.HeaderIdempotencyKey: {"k" + strconv.FormatInt(i, 10)}, httpapi.HeaderUser: {"u"}}
		return nil
	}
}
