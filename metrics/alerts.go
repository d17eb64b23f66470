package metrics

import (
	"fmt"
	"io"
	"time"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

// DefaultAlertWindow is how far back the alerting rules look by default.
const DefaultAlertWindow = 5 * time.Minute

// RuleFile is a Prometheus rule file.
type RuleFile struct {
	Groups []RuleGroup `yaml:"groups"`
}

// RuleGroup is one group of rules.
type RuleGroup struct {
	Name  string `yaml:"name"`
	Rules []Rule `yaml:"rules"`
}

// Rule is one alerting rule.
type Rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// Alert names, one per ADR-004 §12 threshold.
const (
	AlertAllocationLatency = "SequenceAllocationLatencyHigh"
	AlertAllocationErrors  = "SequenceAllocationErrors"
	AlertCounterMissing    = "CounterMissing"
	AlertIdempotencyHits   = "IdempotencyHitRateHigh"
	AlertGapRate           = "SequenceGapRateHigh"
	AlertConflictRate      = "TransactionConflictRateHigh"
	AlertHotChat           = "HotChat"
	// AlertInvariantViolated is not a §12 threshold: chatseq's online
	// check found the system under test breaking a promise.
	AlertInvariantViolated = "InvariantViolated"
)

// Rules are ADR-004 §12's alert thresholds over the metrics this package
// exports. Every rate is taken over window; counter_missing fires on any
// error in it and resolves once a window has passed without one.
func Rules(window time.Duration) (RuleFile, error) {
	if window < time.Second {
		return RuleFile{}, fmt.Errorf("the alert window must be at least 1s, got %s", window)
	}
	w := model.Duration(window).String()
	rate := func(counter string) string { return "rate(" + counter + "[" + w + "])" }
	// value is how the description shows the alert's value: a
	// template function (humanizePercentage, humanizeDuration) or none.
	rule := func(name, expr, severity, value, summary, meaning string) Rule {
		shown := "{{ $value }}"
		if value != "" {
			shown = "{{ $value | " + value + " }}"
		}
		return Rule{
			Alert: name, Expr: expr,
			Labels: map[string]string{"severity": severity, "source": "ADR-004 §12"},
			Annotations: map[string]string{
				"summary":     summary,
				"description": meaning + " Now: " + shown + ".",
			},
		}
	}
	const percent, duration = "humanizePercentage", "humanizeDuration"
	counterMissing := rule(AlertCounterMissing,
		"increase(counter_missing_errors_total["+w+"]) > 0", "critical", "",
		"SEV-2: sends fail with CounterMissingError on {{ $labels.instance }}",
		"A chat's counter was deleted or corrupted: sends fail with CounterMissingError (counter_missing_errors > 0); errors over the last "+w+".")
	counterMissing.Labels["incident"] = "SEV-2"
	counterMissing.Annotations["runbook"] = "ADR-004 Counter Recovery Procedure: quiesce the chat's writers, recreate the counter at the highest persisted sequence (chatseq recover --chat ID --apply); rehearse it with chatseq drill counter-recovery."
	// chatseq_violations_total appears at 1 when a run finds an invariant
	// violated (it counts each invariant once a run, at its first
	// violation), and increase() does not count a series' first sample:
	// a series that was absent a window ago fires too. Either resolves
	// once a window has passed without a new violation.
	violations := "chatseq_violations_total"
	violated := Rule{
		Alert:  AlertInvariantViolated,
		Expr:   "increase(" + violations + "[" + w + "]) > 0 or (" + violations + " unless " + violations + " offset " + w + ")",
		Labels: map[string]string{"severity": "critical", "source": "chatseq online check"},
		Annotations: map[string]string{
			"summary":     "{{ $labels.invariant }} violated on {{ $labels.instance }}",
			"description": "chatseq's online check found the system under test breaking {{ $labels.invariant }} while the writers ran (chatseq_violations_total, over the last " + w + "): the progress line shows VIOLATED {{ $labels.invariant }} and the run's report its counterexample.",
			"runbook":     "checker/INVARIANTS.md names what the invariant promises; chatseq check HISTORY reproduces the verdict from the run's history, and chatseq run --shrink finds a smaller failing run.",
		},
	}
	return RuleFile{Groups: []RuleGroup{{
		Name: "chatseq-adr004-sequencing",
		Rules: []Rule{
			rule(AlertAllocationLatency,
				"histogram_quantile(0.99, sum by (job, instance, le) ("+rate("sequence_allocation_latency_seconds_bucket")+")) > 0.05", "warning", duration,
				"Sequence allocation p99 above 50ms on {{ $labels.instance }}",
				"Step 3's counter ADD is slow (sequence_allocation_latency p99 > 50ms): counter contention."),
			rule(AlertAllocationErrors,
				rate("sequence_allocation_errors_total")+" / ("+rate("sequence_allocations_total")+" + "+rate("sequence_allocation_errors_total")+") > 0.001", "warning", percent,
				"Sequence allocation errors above 0.1% on {{ $labels.instance }}",
				"Step 3 calls fail (sequence_allocation_errors > 0.1%): DynamoDB issues."),
			counterMissing,
			rule(AlertIdempotencyHits,
				rate("idempotency_hits_total")+" / "+rate("idempotency_requests_total")+" > 0.1", "warning", percent,
				"Idempotency hit rate above 10% on {{ $labels.instance }}",
				"Step 1 finds the key for many requests (idempotency_hit_rate > 10%): a retry storm or client bugs."),
			rule(AlertGapRate,
				"("+rate("sequence_allocations_total")+" - "+rate("sequences_persisted_total")+") / "+rate("sequence_allocations_total")+" > 0.05", "warning", percent,
				"Sequence gap rate above 5% on {{ $labels.instance }}",
				"Allocated sequences are not persisted (sequence_gap_rate > 5%, allocations minus persists over allocations): high contention or failures."),
			rule(AlertConflictRate,
				rate("transaction_conflicts_total")+" / "+rate("transactions_total")+" > 0.01", "warning", percent,
				"Transaction conflict rate above 1% on {{ $labels.instance }}",
				"Step 4 transactions fail their condition (transaction_conflict_rate > 1%): race conditions, expected low."),
			rule(AlertHotChat,
				"messages_per_chat_per_minute > 100", "info", "",
				"A chat takes more than 100 messages a minute on {{ $labels.instance }}",
				"The hottest chat exceeds 100 messages per minute (messages_per_chat_per_minute): a hot chat, ADR-004's future concern."),
		},
	}, {
		Name:  "chatseq-online-check",
		Rules: []Rule{violated},
	}}}, nil
}

// WriteRules writes Rules(window) as YAML.
func WriteRules(w io.Writer, window time.Duration) error {
	rf, err := Rules(window)
	if err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(rf); err != nil {
		return err
	}
	return enc.Close()
}
