package cmd

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// freePort is a port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// A drill's metrics endpoint is scraped while the drill's phases update
// it: under the race detector this is the concurrency the Prometheus test
// (left out of the race stage for its wall-clock phases) goes through.
func TestADrillServesItsMetricsWhileItRuns(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := run(t, "drill", "counter-recovery", "--metrics-addr", addr,
			"--hold", "1s", "--rate", "200", "--timeout", "2m", "--history", t.TempDir()+"/drill.jsonl")
		done <- result{code, out, errOut}
	}()
	phases := map[string]bool{} // chatseq_phase{phase="…"} lines at 1
	for {
		select {
		case r := <-done:
			if r.code != ExitOK {
				t.Fatalf("drill: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if len(phases) < 2 {
				t.Fatalf("scraped phases %v while the drill ran; want at least two", phases)
			}
			return
		default:
		}
		time.Sleep(20 * time.Millisecond)
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue // not listening yet, or already closed
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "chatseq_phase{") && strings.HasSuffix(line, " 1") {
				phases[line] = true
			}
		}
	}
}
