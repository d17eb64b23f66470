package httptarget_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// scaleSetting reads a positive whole number from the environment.
func scaleSetting(b *testing.B, name string, def int) int {
	b.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a whole number above 0", name, s)
	}
	return n
}

// BenchmarkPushScale is issue 29's scale run over WebSocket on loopback:
// chatseq serve (in this process, Kafka embedded) and bench --target http
// with receivers, every delivery recorded in the history and checked.
// It reports the devices, deliveries, fan-out p99, the seconds from the
// writers' end to the verdict, and the process's peak RSS (server and
// client together: an upper bound of chatseq's own). Each iteration is a
// whole run: use -benchtime 1x. Scaled down by default (100 chats × 10
// devices at 500 sends/s for 5 s); the full run, 10,000 devices
// at 2,000 sends/s for 60 s, is
//
//	CHATSEQ_SCALE_CHATS=1000 CHATSEQ_SCALE_RECEIVERS=10 CHATSEQ_SCALE_RATE=2000 CHATSEQ_SCALE_SECONDS=60 \
//	  go test ./targets/httptarget -run '^$' -bench PushScale -benchtime 1x -timeout 30m
func BenchmarkPushScale(b *testing.B) {
	chats := scaleSetting(b, "CHATSEQ_SCALE_CHATS", 100)
	receivers := scaleSetting(b, "CHATSEQ_SCALE_RECEIVERS", 10)
	rate := scaleSetting(b, "CHATSEQ_SCALE_RATE", 500)
	seconds := scaleSetting(b, "CHATSEQ_SCALE_SECONDS", 5)
	for i := 0; i < b.N; i++ {
		s := startServer(b, sequencer.Correct, true)
		base, _ := url.Parse("http://" + s.Addr)
		cfg := bench.DefaultConfig()
		cfg.Writers, cfg.Chats, cfg.Rate, cfg.Duration, cfg.Ops = 64, chats, float64(rate), time.Duration(seconds)*time.Second, 0
		cfg.Receivers = receivers
		cfg.Target = httptarget.Name
		cfg.Brokers, cfg.Topic = s.Brokers, s.Topic
		cfg.HistoryPath = filepath.Join(b.TempDir(), "history.jsonl")
		var writersEnd time.Time
		cfg.WritersStopped = func() { writersEnd = time.Now() }
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second+10*time.Minute)
		res, err := bench.RunTarget(ctx, cfg, httptarget.Factory(base, httptarget.DefaultAPI(), nil))
		cancel()
		if err != nil {
			b.Fatalf("run: %v", err)
		}
		rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
		if err != nil {
			b.Fatal(err)
		}
		verdict := time.Since(writersEnd)
		for _, inv := range rep.Invariants {
			if inv.Status != checker.Pass {
				b.Errorf("%s: %s %s", inv.Name, inv.Status, inv.Detail)
			}
		}
		for _, name := range []string{checker.NameEventualVisibility, checker.NameIdenticalOrder, checker.NameDeliveryStateConsistency, checker.NamePushAuthorization} {
			if r, ok := rep.Result(name); !ok || r.Status != checker.Pass {
				b.Errorf("%s not judged and passed", name)
			}
		}
		r := res.Receivers
		if r.FullyVisible != res.Persisted {
			b.Errorf("%d of %d messages reached every device", r.FullyVisible, res.Persisted)
		}
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		info, _ := os.Stat(cfg.HistoryPath)
		b.ReportMetric(float64(r.Devices), "devices")
		b.ReportMetric(float64(res.Persisted)/res.Elapsed.Seconds(), "sends/s")
		b.ReportMetric(float64(r.Deliveries), "deliveries")
		b.ReportMetric(float64(res.FanOut.ValueAtQuantile(99))/1e6, "fan_out_p99_ms")
		b.ReportMetric(verdict.Seconds(), "s_writers_end_to_verdict")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak_rss_MB")
		if info != nil {
			b.ReportMetric(float64(info.Size())/(1<<20), "history_MB")
		}
		s.Close()
	}
}
