package cmd

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// httpFlags reach a service over HTTP (bench --target http).
type httpFlags struct {
	url, api string
}

func (h *httpFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&h.url, "url", "", "base URL of the service --target http drives, e.g. http://127.0.0.1:8480 ('chatseq serve')")
	fl.StringVar(&h.api, "api", "", "YAML file mapping chatseq's calls onto the service's HTTP API (default: chatseq's own, docs/http-api.md)")
}

// resolve reads the mapping now, so a bad one exits 2 before anything
// runs.
func (h *httpFlags) resolve() error {
	if h.api != "" {
		if _, err := httptarget.LoadAPI(h.api); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// faultFlags are the per-attempt faults that happen inside a server.
var faultFlags = []string{
	"stale-read", "crash-after-allocate", "crash-in-persist", "crash-after-persist", "publish-fail",
	"crash-before-allocate", "store-throttle", "store-internal-error", "txn-canceled-other", "txn-cancelled-other",
}

// adjust fits the run to a remote target: it publishes to its own Kafka,
// and only the faults asked for on the command line reach it (through
// chatseq serve's test hooks), not bench's defaults.
func (h *httpFlags) adjust(c *cobra.Command, opened *targets.Opened, cfg *bench.Config) {
	opened.AdjustRun(cfg)
	if !opened.Remote {
		return
	}
	changed := false
	for _, name := range faultFlags {
		changed = changed || c.Flags().Changed(name)
	}
	if !changed {
		cfg.Faults = bench.FaultRates{}
	}
}

// splitList reads a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
