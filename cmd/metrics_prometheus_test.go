// A real Prometheus following a drill's three 12 s phases: its time is the
// phases' wall clock, not computation. The race stage leaves it out: the
// drill's and the metrics endpoint's goroutines run under the race
// detector in internal/drill's and metrics' tests, and here it cost 38 s.

//go:build !race

package cmd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/metrics"
)

// prometheusServer is a real Prometheus scraping target with the rules
// `chatseq alerts --window window` prints, every second.
type prometheusServer struct {
	base string
	// logPath is the file Prometheus writes its log to: a file, not a
	// buffer, which exec would fill from a goroutine of its own while the
	// test reads it (a data race under -race).
	logPath string
}

// log is what Prometheus logged so far.
func (p *prometheusServer) log() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(its log cannot be read: %v)", err)
	}
	return string(b)
}

func startPrometheus(t *testing.T, target string, window time.Duration) *prometheusServer {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: install Debian's prometheus package (./test.sh does)")
	}
	dir := t.TempDir()
	code, rules, errOut := run(t, "alerts", "--window", window.String())
	if code != ExitOK {
		t.Fatalf("chatseq alerts: exit %d: %s", code, errOut)
	}
	// A scrape a second, each allowed the whole second: on a machine busy
	// with other jobs a shorter timeout failed scrapes, and a failed
	// scrape makes the series stale, ending the alert for the wrong reason.
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [chatseq-alerts.yml]
scrape_configs:
  - job_name: chatseq
    static_configs:
      - targets: [%q]
`, target)
	for name, text := range map[string]string{"chatseq-alerts.yml": rules, "prometheus.yml": config} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t))
	p := &prometheusServer{base: "http://" + listen, logPath: filepath.Join(dir, "prometheus.log")}
	logFile, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+listen, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(p.base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus did not become ready in 2 minutes:\n%s", p.log())
		}
	}
}

// alertState is the state of alert name on Prometheus now: "" (not
// active), "pending" or "firing".
func (p *prometheusServer) alertState(t *testing.T, name string) string {
	t.Helper()
	var body struct {
		Data struct {
			Alerts []struct {
				Labels map[string]string `json:"labels"`
				State  string            `json:"state"`
			} `json:"alerts"`
		} `json:"data"`
	}
	p.get(t, "/api/v1/alerts", &body)
	for _, a := range body.Data.Alerts {
		if a.Labels["alertname"] == name {
			return a.State
		}
	}
	return ""
}

// query evaluates expr now and returns each series' value.
func (p *prometheusServer) query(t *testing.T, expr string) []string {
	t.Helper()
	var body struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	p.get(t, "/api/v1/query?query="+url.QueryEscape(expr), &body)
	var values []string
	for _, r := range body.Data.Result {
		values = append(values, fmt.Sprint(r.Value[1]))
	}
	return values
}

func (p *prometheusServer) get(t *testing.T, path string, into any) {
	t.Helper()
	resp, err := http.Get(p.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// A real Prometheus scrapes a live counter-recovery drill with the rules
// `chatseq alerts` prints: CounterMissing fires while the counter is gone
// and resolves after the recovery, while the drill still serves metrics
// showing no new counter_missing error (not because the target vanished).
// Prometheus scrapes every second with rules over a 4s window; each drill
// phase lasts 12s, so that on a loaded machine, where scrapes come late,
// the alert still has room to fire and to resolve while the drill runs.
// The test follows what Prometheus reports, not the clock.
func TestPrometheusSeesCounterMissingFireAndResolveDuringADrill(t *testing.T) {
	metricsAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	const window = 4 * time.Second
	prom := startPrometheus(t, metricsAddr, window)

	hist := filepath.Join(t.TempDir(), "drill.jsonl")
	var drillCode int
	var drillOut, drillErr string
	var drillDone sync.WaitGroup
	finished := make(chan struct{})
	drillDone.Add(1)
	go func() {
		defer drillDone.Done()
		defer close(finished)
		// Each phase (load, outage, load after recovery) lasts 12s: three
		// windows, at least a dozen scrapes.
		drillCode, drillOut, drillErr = run(t, "drill", "counter-recovery", "--metrics-addr", metricsAddr,
			"--hold", "12s", "--rate", "200", "--timeout", "5m", "--history", hist)
	}()
	t.Cleanup(drillDone.Wait)

	running := func() bool {
		select {
		case <-finished:
			return false
		default:
			return true
		}
	}
	var fired, resolved bool
	deadline := time.Now().Add(5 * time.Minute)
	for !resolved && running() && time.Now().Before(deadline) {
		state := prom.alertState(t, metrics.AlertCounterMissing)
		switch {
		case state == "firing" && !fired:
			fired = true
			if got := prom.query(t, `chatseq_phase{phase="drill-warmup"}`); len(got) != 0 {
				t.Errorf("CounterMissing fired during the warm-up, before the counter was deleted")
			}
		case state == "" && fired:
			// Resolved while the drill still runs: its endpoint is up and
			// shows no counter_missing error over the window. A scrape
			// that failed on a loaded machine also ends the alert (the
			// series goes stale): that is not the resolution sought, so
			// the test keeps watching.
			up := prom.query(t, `up{job="chatseq"}`)
			increase := prom.query(t, "increase(counter_missing_errors_total["+window.String()+"])")
			resolved = running() && len(up) == 1 && up[0] == "1" && len(increase) == 1 && increase[0] == "0"
			if !resolved {
				t.Logf("CounterMissing inactive with up %v and increase(counter_missing_errors_total) %v; still watching", up, increase)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !fired || !resolved {
		t.Errorf("CounterMissing fired %v, resolved while the drill ran %v; want both", fired, resolved)
	}
	<-finished
	if drillCode != ExitOK {
		t.Errorf("drill: exit %d\n%s\n%s", drillCode, drillOut, drillErr)
	}
	if !strings.Contains(drillErr, "chatseq: metrics at http://"+metricsAddr+"/metrics") {
		t.Errorf("the drill did not say where its metrics are: %q", drillErr)
	}
	if t.Failed() {
		t.Logf("prometheus log:\n%s", prom.log())
	}
}
