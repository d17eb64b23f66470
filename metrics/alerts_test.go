package metrics

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// promtool runs testdata/alerts_test.yml against the rules `chatseq
// alerts` prints: every alert fires above ADR-004 §12's threshold and
// stays quiet below it, with the labels and annotations an on-call sees.
func TestAlertRulesPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: install Debian's prometheus package (./test.sh does)")
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "chatseq-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteRules(f, DefaultAlertWindow); err != nil {
		t.Fatal(err)
	}
	f.Close()
	spec, err := os.ReadFile("testdata/alerts_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alerts_test.yml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "rules", "chatseq-alerts.yml"}, {"test", "rules", "alerts_test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// The promtool tests cover every alert the rules hold, firing and not.
func TestAlertTestsCoverEveryAlertBothWays(t *testing.T) {
	var spec struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	raw, err := os.ReadFile("testdata/alerts_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range spec.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	rf, err := Rules(DefaultAlertWindow)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if !fires[r.Alert] || !quiet[r.Alert] {
				t.Errorf("alert %s: tested firing %v, tested quiet %v; want both", r.Alert, fires[r.Alert], quiet[r.Alert])
			}
		}
	}
}

func TestAlertWindowIsInTheRules(t *testing.T) {
	var b strings.Builder
	if err := WriteRules(&b, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "increase(counter_missing_errors_total[30s]) > 0") || strings.Contains(b.String(), "[5m]") {
		t.Errorf("rules for a 30s window:\n%s", b.String())
	}
	if _, err := Rules(500 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "at least 1s") {
		t.Errorf("a 500ms window: %v, want refused", err)
	}
}
