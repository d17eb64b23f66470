package httptarget_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/serve"
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

// serveProcess starts this test binary as chatseq serve over memory with
// the embedded Kafka, in a process of its own (its sockets and memory are
// not the client's), and returns its URL and how to stop it.
func serveProcess(b *testing.B) (string, func()) {
	b.Helper()
	spec, err := json.Marshal(serve.Options{
		Target: "memory", Strategy: sequencer.TwoPhase, RepublishOnReplay: true, Kafka: serve.KafkaEmbedded,
		Partitions: 8, Listen: "127.0.0.1:0", Seed: 1, TestHooks: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serveEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if l, ok := httpapi.ParseListening(sc.Text()); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return l.URL, func() {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				_ = cmd.Wait()
			}
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	b.Fatal("the server process printed no listening line")
	return "", nil
}

// BenchmarkPushScale is issue 29's scale run over WebSocket on loopback:
// chatseq serve (a process of its own, Kafka embedded) and bench --target
// http with receivers in this one, every delivery recorded in the history
// and checked. It reports the devices, deliveries, fan-out p99, the
// seconds from the writers' end to the verdict, and the peak RSS of
// chatseq (this process: the client, its history and its check) and of
// the server. Each iteration is a whole run: use -benchtime 1x. Scaled down by default (100 chats × 10
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
		serverURL, stop := serveProcess(b)
		base, _ := url.Parse(serverURL)
		cfg := bench.DefaultConfig()
		cfg.Writers, cfg.Chats, cfg.Rate, cfg.Duration, cfg.Ops = 64, chats, float64(rate), time.Duration(seconds)*time.Second, 0
		cfg.Receivers = receivers
		cfg.Target = httptarget.Name
		// The server's own Kafka is in its process: the client reads no
		// topic (the event invariants are n/a), its devices the push channel.
		cfg.KafkaOff = true
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
		stop()
		var ru, server syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &server)
		info, _ := os.Stat(cfg.HistoryPath)
		b.ReportMetric(float64(r.Devices), "devices")
		b.ReportMetric(float64(res.Persisted)/res.Elapsed.Seconds(), "sends/s")
		b.ReportMetric(float64(res.Lateness.Unsent), "unsent_starts") // the open loop fell behind its rate
		b.ReportMetric(float64(r.Deliveries), "deliveries")
		b.ReportMetric(float64(res.FanOut.ValueAtQuantile(99))/1e6, "fan_out_p99_ms")
		b.ReportMetric(verdict.Seconds(), "s_writers_end_to_verdict")
		b.ReportMetric(float64(ru.Maxrss)/1024, "chatseq_peak_rss_MB")
		b.ReportMetric(float64(server.Maxrss)/1024, "server_peak_rss_MB")
		if info != nil {
			b.ReportMetric(float64(info.Size())/(1<<20), "history_MB")
		}
	}
}
