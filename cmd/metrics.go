package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/metrics"
)

// metricsFlag is --metrics-addr, shared by bench, run and drill.
type metricsFlag struct{ addr string }

func (m *metricsFlag) register(fl *pflag.FlagSet) {
	fl.StringVar(&m.addr, "metrics-addr", "", "serve live Prometheus/OpenMetrics metrics (ADR-004 §12's and the run's own) at http://ADDR/metrics while the command runs, e.g. :9464 or 127.0.0.1:0 (a free port); see docs/metrics.md")
}

// start serves the metrics until ctx ends and says where on errOut; nil
// without --metrics-addr. An address it cannot listen on is bad input.
func (m *metricsFlag) start(ctx context.Context, errOut io.Writer) (*metrics.Exporter, error) {
	if m.addr == "" {
		return nil, nil
	}
	e := metrics.New()
	addr, err := e.Serve(ctx, m.addr)
	if err != nil {
		return nil, badInput("--metrics-addr %s: %v", m.addr, err)
	}
	fmt.Fprintf(errOut, "chatseq: metrics at http://%s%s\n", addr, metrics.Path)
	return e, nil
}

func newAlertsCommand() *cobra.Command {
	window := metrics.DefaultAlertWindow
	c := &cobra.Command{
		Use:   "alerts",
		Short: "Print ADR-004 §12's alert thresholds as Prometheus alerting rules (YAML)",
		Long: `alerts prints Prometheus alerting rules for ADR-004 §12's thresholds over the
metrics --metrics-addr exports (docs/metrics.md): allocation p99 above 50ms,
allocation errors above 0.1%, any counter_missing error (SEV-2), idempotency
hit rate above 10%, gap rate above 5%, transaction conflict rate above 1%,
more than 100 messages a minute in one chat. Rates are taken over --window;
counter_missing fires on any error in it and resolves a window after the last.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if _, err := metrics.Rules(window); err != nil {
				return badInput("--window: %v", err)
			}
			return metrics.WriteRules(c.OutOrStdout(), window)
		},
	}
	c.Flags().DurationVar(&window, "window", window, "how far back each rule's rates look (at least 1s)")
	return c
}
