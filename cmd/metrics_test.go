package cmd

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

func TestMetricsFlagsRefuseBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--metrics-addr", "nowhere", "--history", hist}, "--metrics-addr nowhere: listen tcp: address nowhere: missing port in address"},
		{[]string{"bench", "--metrics-addr", busy.Addr().String(), "--history", hist}, "address already in use"},
		{[]string{"run", "../scenarios/adr004/d4-idempotency-race.yaml", "--metrics-addr", "nowhere"}, "--metrics-addr nowhere: listen tcp"},
		{[]string{"drill", "counter-recovery", "--metrics-addr", "nowhere", "--history", hist}, "--metrics-addr nowhere"},
		{[]string{"drill", "counter-recovery", "--hold", "-1s", "--history", hist}, "--hold must not be negative"},
		{[]string{"drill", "counter-recovery", "--hold", "1m", "--history", hist}, "--timeout (2m0s) must exceed three times --hold (1m0s)"},
		{[]string{"drill", "counter-recovery", "--rate", "-5", "--history", hist}, "--rate must be between 0 and 1e9"},
		{[]string{"drill", "counter-recovery", "--rate", "NaN", "--history", hist}, "--rate must be between 0 and 1e9"},
		{[]string{"alerts", "--window", "500ms"}, "--window: the alert window must be at least 1s, got 500ms"},
		{[]string{"alerts", "--window", "soon"}, "invalid argument"},
		{[]string{"alerts", "extra"}, "unknown command"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}

func TestAlertsPrintsEveryThresholdAsARule(t *testing.T) {
	code, out, errOut := run(t, "alerts", "--window", "30s")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"histogram_quantile(0.99, sum by (job, instance, le) (rate(sequence_allocation_latency_seconds_bucket[30s]))) > 0.05",
		"increase(counter_missing_errors_total[30s]) > 0",
		"rate(idempotency_hits_total[30s]) / rate(idempotency_requests_total[30s]) > 0.1",
		"messages_per_chat_per_minute > 100",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("chatseq alerts does not hold %q:\n%s", want, out)
		}
	}
}
