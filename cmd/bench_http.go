package cmd

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// httpFlags reach a service over HTTP (bench --target http).
type httpFlags struct {
	url, api          string
	serve, nemesisCmd string
	keyScope          string
	killEvery         time.Duration
}

func (h *httpFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&h.url, "url", "", "base URL of the service --target http drives, e.g. http://127.0.0.1:8480 ('chatseq serve'; the default with --serve)")
	fl.StringVar(&h.api, "api", "", "YAML file mapping chatseq's calls onto the service's HTTP API (default: chatseq's own, docs/http-api.md)")
	fl.StringVar(&h.serve, "serve", "", "shell command that starts the service --target http drives (e.g. 'go run ./cmd/chatseq serve'): chatseq starts it, waits until it answers, and SIGKILLs and restarts it on kill_server faults")
	fl.StringVar(&h.nemesisCmd, "nemesis-cmd", "", "shell command run on each kill_server fault instead (e.g. 'docker restart api'); chatseq then waits until the service answers")
	fl.StringVar(&h.keyScope, "key-scope", "", "what the service behind --target http scopes an idempotency key to: chat (ADR-004; the default, or the --api mapping's contract.key_scope) or client (ADR-001: per sender per chat)")
	fl.DurationVar(&h.killEvery, "kill-every", 0, "kill_server every this long while the writers run (needs --duration, and --serve or --nemesis-cmd)")
}

// options are how the target is reached.
func (h *httpFlags) options(o targets.Options) targets.Options {
	o.URL, o.API, o.Serve, o.NemesisCmd = h.url, h.api, h.serve, h.nemesisCmd
	o.KeyScope = h.keyScope
	return o
}

// kills are --kill-every's kill_server faults over a run of duration d.
func (h *httpFlags) kills(d time.Duration) []bench.TimedFault {
	var out []bench.TimedFault
	for at := h.killEvery; h.killEvery > 0 && at < d; at += h.killEvery {
		out = append(out, bench.TimedFault{Kind: bench.KillServer, At: at})
	}
	return out
}

// resolve reads the mapping now, so a bad one exits 2 before anything
// runs.
func (h *httpFlags) resolve(cfg *bench.Config) error {
	switch {
	case h.keyScope != "" && h.keyScope != history.KeyScopeChat && h.keyScope != history.KeyScopeClient:
		return badInput("--key-scope must be chat or client, got %q", h.keyScope)
	case h.killEvery < 0:
		return badInput("--kill-every must not be negative, got %s", h.killEvery)
	case h.killEvery > 0 && cfg.Duration <= 0:
		return badInput("--kill-every needs a --duration to space the kills over")
	case h.killEvery > 0 && h.serve == "" && h.nemesisCmd == "":
		return badInput("--kill-every needs --serve CMD (chatseq starts and kills the service) or --nemesis-cmd CMD")
	}
	cfg.Timed = append(cfg.Timed, h.kills(cfg.Duration)...)
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

// check refuses --target http without a service to reach, before
// anything runs.
func (h *httpFlags) check(names []string) error {
	for _, n := range names {
		if n == httptarget.Name && h.url == "" && h.serve == "" {
			return badInput("--target http needs --url URL (a running service) or --serve CMD (chatseq starts it)")
		}
	}
	return nil
}
