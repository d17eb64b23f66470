package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/internal/drill"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/storeopen"
)

type drillFlags struct {
	cfg         drill.Config
	store       storeopen.Options
	strategy    string
	format      string
	allowRemote bool
	lin         linFlags
	unsafeCase  string // unsafe-recovery only
	metrics     metricsFlag
}

func newDrillCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "drill",
		Short: "Rehearse ADR-004's counter recovery on a live load and check the whole incident",
		Long: `drill stages a SEV-2 incident — a chat's counter deleted under load — records it
as a history and checks every invariant over it.

  counter-recovery  the runbook: detect counter_missing, quiesce writers,
                    recreate the counter at the highest persisted sequence,
                    verify the next message gets max+1
  unsafe-recovery   a recovery that skips a safeguard, to show the checker
                    catches the duplicate sequences it causes`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return badInput("drill: name a drill: counter-recovery or unsafe-recovery (see 'chatseq drill --help')")
		},
	}
	c.AddCommand(newCounterRecoveryDrill(), newUnsafeRecoveryDrill())
	return c
}

func newCounterRecoveryDrill() *cobra.Command {
	f := drillFlags{cfg: drill.DefaultConfig()}
	f.cfg.HistoryPath = "chatseq-drill-counter-recovery.jsonl"
	c := &cobra.Command{
		Use:   "counter-recovery",
		Short: "Delete a chat's counter under load, run the runbook, and check the whole drill",
		Long: `counter-recovery runs writers on one chat, then stages the incident: one send
is left in flight with its sequence allocated (a straggler), optionally
--orphans sends crash right after allocating, and the counter is deleted.
Sends must then fail with a definite counter_missing and allocate nothing.
On the first counter_missing the drill quiesces the writers (waiting for the
straggler to land), runs the runbook (recovery.Plan, recovery.Apply), sends a
test message that must get max+1, and lets the writers resume.

The drill passes when all of that holds, nothing is acknowledged twice and
every invariant holds over the whole history. One exception is accepted and
reported: with --orphans, sequences allocated but never persisted before the
deletion are allocated again after recovery (the runbook restores the highest
persisted sequence, not the highest allocated), which allocation_monotonicity
reports.

To watch it on dashboards, --metrics-addr serves live metrics (ADR-004 §12's,
counter_missing_errors_total among them) and --hold keeps each phase going
long enough for a scraper to see it and for 'chatseq alerts' CounterMissing
to fire and resolve (docs/metrics.md).

Exit status: 0 the drill passed, 1 an invariant or drill expectation failed,
2 bad flags, 5 the drill could not be run.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runCounterRecoveryDrill(c, &f) },
	}
	f.register(c.Flags())
	return c
}

func newUnsafeRecoveryDrill() *cobra.Command {
	f := drillFlags{cfg: drill.DefaultConfig(), unsafeCase: "all"}
	f.cfg.HistoryPath = "chatseq-drill-unsafe-recovery.jsonl"
	c := &cobra.Command{
		Use:   "unsafe-recovery",
		Short: "Recover a counter without the runbook's safeguards and show the checker catches the damage",
		Long: `unsafe-recovery stages the same incident as counter-recovery but recovers
unsafely:

  below-max      the counter is restored one below the highest persisted
                 sequence (a stale value: a backup, point-in-time recovery)
  racing-writer  the runbook runs without quiescing: the straggler, which
                 allocated before the deletion, commits after the counter
                 was recreated below it (two-phase only)

Either way a sequence is acknowledged for two messages and the second message
overwrites the first. The drill passes when the checker reports that under
sequence_uniqueness and ack_implies_persistence. Each case writes its own
history: --history with the case name before the extension.

Exit status: 0 every case's damage was caught, 1 damage went unnoticed (or
none happened), 2 bad flags, 5 the drill could not be run.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runUnsafeRecoveryDrill(c, &f) },
	}
	f.register(c.Flags())
	c.Flags().StringVar(&f.unsafeCase, "case", f.unsafeCase, "below-max, racing-writer, or all")
	return c
}

func (f *drillFlags) register(fl *pflag.FlagSet) {
	cfg := &f.cfg
	fl.IntVar(&cfg.Writers, "writers", cfg.Writers, "concurrent writers on the drill's chat")
	fl.IntVar(&cfg.Warmup, "warmup", cfg.Warmup, "messages acknowledged before the counter is deleted")
	fl.IntVar(&cfg.After, "after", cfg.After, "messages acknowledged after the recovery before the load stops")
	fl.IntVar(&cfg.Orphans, "orphans", cfg.Orphans, "sends that crash right after allocating, just before the deletion (two-phase)")
	fl.Float64Var(&cfg.SyncRatio, "sync-ratio", cfg.SyncRatio, "share of writer operations that are syncs")
	fl.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the writers' choices")
	fl.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "the longest the drill may take before it is aborted and failed")
	fl.DurationVar(&cfg.Hold, "hold", cfg.Hold, "keep each phase going at least this long (the load before the deletion, the outage, the load after the recovery) so dashboards and alerts scraping --metrics-addr see each; 0: move on at once")
	fl.Float64Var(&cfg.Rate, "rate", cfg.Rate, "the writers' operations per second in all (0: as fast as they go); with --hold it keeps the history small")
	f.metrics.register(fl)
	fl.StringVar(&cfg.HistoryPath, "history", cfg.HistoryPath, "file the history is written to")
	fl.StringVar(&f.strategy, "strategy", "two-phase", "allocation: two-phase (ADR-004) or occ (option B)")
	fl.StringVar(&f.format, "format", "text", "report format: text or json")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "with --store dynamodb: allow an endpoint other than localhost, 127.0.0.1 or [::1] (real AWS included); needs a non-empty --table-prefix")
	f.lin.register(fl, "porcupine's time budget over all the chats it checks")
	addStoreFlags(fl, &f.store)
}

func (f *drillFlags) resolve(fl *pflag.FlagSet) error {
	if f.format != "text" && f.format != "json" {
		return badInput("--format must be text or json, got %q", f.format)
	}
	strategy, ok := sequencer.ParseStrategy(f.strategy)
	if !ok {
		return badInput("--strategy must be two-phase or occ, got %q", f.strategy)
	}
	f.cfg.Strategy = strategy
	if err := f.lin.resolve(); err != nil {
		return err
	}
	f.cfg.CheckOptions = f.lin.options()
	if err := f.store.Validate(); err != nil {
		return usageError{err}
	}
	if err := refuseIgnoredFlags(fl, []string{f.store.Kind}); err != nil {
		return err
	}
	if err := f.cfg.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}

// openDrillStore opens the drill's store: --store dynamodb behind the
// remote guard, with a chat id of this run's own (the tables are shared);
// memory and dynamodb-local start empty.
func (f *drillFlags) openDrillStore(ctx context.Context, status io.Writer) (store.Store, string, func(), error) {
	f.cfg.Target = f.store.Kind
	if f.store.Kind == storeopen.DynamoDB {
		st, describe, err := openGuarded(ctx, f.store, f.allowRemote)
		if err != nil {
			return nil, "", nil, err
		}
		f.cfg.Chat = runChatPrefix() + "drill"
		return st, describe, func() { st.Close() }, nil
	}
	opened, err := storeopen.Open(ctx, withStatus(f.store, status))
	if err != nil {
		return nil, "", nil, err
	}
	return opened.Store, opened.Describe, func() { opened.Close() }, nil
}

func runCounterRecoveryDrill(c *cobra.Command, f *drillFlags) error {
	if err := f.resolve(c.Flags()); err != nil {
		return err
	}
	return f.withDrillStore(c, func(ctx context.Context, st store.Store, describe string) error {
		res, err := drill.CounterRecovery(ctx, st, f.cfg)
		if err != nil {
			return fmt.Errorf("drill: %w", err)
		}
		if err := writeDrill(c.OutOrStdout(), f.format, describe, res); err != nil {
			return err
		}
		return drillExit(res.Passed)
	})
}

// withDrillStore opens the drill's store under a context an interrupt
// cancels, runs the drill on it and closes it.
func (f *drillFlags) withDrillStore(c *cobra.Command, run func(ctx context.Context, st store.Store, describe string) error) error {
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt)
	defer stop()
	var err error
	if f.cfg.Metrics, err = f.metrics.start(ctx, c.ErrOrStderr()); err != nil {
		return err
	}
	st, describe, closeStore, err := f.openDrillStore(ctx, c.ErrOrStderr())
	if err != nil {
		return fmt.Errorf("drill: %w", err)
	}
	defer closeStore()
	return run(ctx, st, describe)
}

func runUnsafeRecoveryDrill(c *cobra.Command, f *drillFlags) error {
	cases := drill.Cases
	if f.unsafeCase != "all" {
		one, ok := drill.ParseCase(f.unsafeCase)
		if !ok {
			return badInput("--case must be below-max, racing-writer or all, got %q", f.unsafeCase)
		}
		cases = []drill.Case{one}
	}
	if err := f.resolve(c.Flags()); err != nil {
		return err
	}
	if slices.Contains(cases, drill.CaseRacingWriter) && f.cfg.Strategy == sequencer.Optimistic {
		return badInput("--case racing-writer needs --strategy two-phase: under occ an in-flight commit is conditional on the counter it read, so it cannot race a recovery into a duplicate (run --case below-max)")
	}
	return f.withDrillStore(c, func(ctx context.Context, st store.Store, describe string) error {
		return runUnsafeCases(c.OutOrStdout(), f.format, describe, func(one drill.Case) (*drill.Result, error) {
			cfg := f.cfg
			cfg.Chat = f.cfg.Chat + "-" + string(one)
			cfg.HistoryPath = withSuffix(f.cfg.HistoryPath, string(one))
			return drill.UnsafeRecovery(ctx, st, cfg, one)
		}, cases)
	})
}

// runUnsafeCases runs each case and writes their results as one report.
func runUnsafeCases(out io.Writer, format, describe string, runCase func(drill.Case) (*drill.Result, error), cases []drill.Case) error {
	var results []*drill.Result
	passed := true
	for _, one := range cases {
		res, err := runCase(one)
		if err != nil {
			return fmt.Errorf("drill: %w", err)
		}
		results = append(results, res)
		passed = passed && res.Passed
	}
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Drill  string          `json:"drill"`
			Passed bool            `json:"passed"`
			Cases  []*drill.Result `json:"cases"`
		}{"unsafe-recovery", passed, results}); err != nil {
			return err
		}
	} else {
		for i, res := range results {
			if i > 0 {
				fmt.Fprintln(out)
			}
			if err := drill.WriteText(out, res, describe); err != nil {
				return err
			}
		}
	}
	return drillExit(passed)
}

func writeDrill(out io.Writer, format, describe string, res *drill.Result) error {
	if format == "json" {
		return drill.WriteJSON(out, res)
	}
	return drill.WriteText(out, res, describe)
}

func drillExit(passed bool) error {
	if !passed {
		return exitError{ExitViolation}
	}
	return nil
}

// withSuffix puts ".suffix" before path's extension.
func withSuffix(path, suffix string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + suffix + ext
}
