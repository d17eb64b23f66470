package cmd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/internal/timings"
	"github.com/chatseq/chatseq/report"
	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
	"github.com/chatseq/chatseq/targets/postgres"
)

type benchFlags struct {
	cfg        bench.Config
	failFast   bool
	online     bool
	broken     string
	variant    string // --variant: a design that keeps a promise
	kafkaMode  string
	brokers    string
	format     string
	store      storeopen.Options
	targets    string
	dsn        string
	strategy   string
	shard      string
	lin        linFlags
	output     outputFlags // --out, --quiet (report.go)
	interrupts *interrupts // Ctrl-C, set by runBench
	// --threshold as given, and parsed by resolve.
	thresholdExprs []string
	thresholds     []scenarios.Threshold
	metrics        metricsFlag
	http           httpFlags // --target http (bench_http.go)
	// --schedule as given; resolve puts its faults in cfg.Timed.
	schedule string
	// --stages as given; resolve puts them in cfg.Stages.
	stages string
}

func newBenchCommand() *cobra.Command {
	f := benchFlags{cfg: bench.DefaultConfig()}
	c := &cobra.Command{
		Use:   "bench",
		Short: "Drive the sequencing core with concurrent writers and faults, then check the run",
		Long: `bench runs writers against the sequencing core (the embedded store and an
in-process Kafka by default), streams the history to --history while it runs,
checks every invariant (reading the history as it is written, so that the
verdict follows the writers within seconds), and reports throughput and
per-step latency.

Exit status: 0 every invariant holds, 1 an invariant failed, 2 bad flags,
3 some invariant could not be decided, 4 every invariant holds but a
--threshold failed, 5 the run could not be carried out, 6 interrupted
while the writers ran (the shorter run was checked and no invariant
failed), 130 interrupted outside the writers (after them, or before they
started).

Ctrl-C while the writers run stops them: what ran is still recorded whole,
checked and reported. Ctrl-C after that (or before they start) quits at
once, naming the history for 'chatseq check'.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runBench(c, &f) },
	}
	fl := c.Flags()
	cfg := &f.cfg
	fl.IntVar(&cfg.Writers, "writers", cfg.Writers, "concurrent writers (simulated clients)")
	fl.IntVar(&cfg.Chats, "chats", cfg.Chats, "number of chats")
	fl.StringVar(&cfg.Distribution, "distribution", cfg.Distribution, "how writes spread over chats: uniform or zipf")
	fl.Float64Var(&cfg.ZipfS, "zipf-s", cfg.ZipfS, "zipf exponent (> 1); larger is hotter")
	fl.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long writers run (0 with --ops: until the ops are done)")
	fl.IntVar(&cfg.Ops, "ops", cfg.Ops, "operations planned across writers; retries and duplicates add attempts (0: run for --duration)")
	fl.Float64Var(&cfg.Rate, "rate", cfg.Rate, "open loop at this many operations/s in total, latency measured from intended start (0: closed loop); each writer starts one every writers/rate seconds, the writers 1/rate apart, so with --duration it must be more than writers/duration (or each writer sends only its first operation), and at most 1e9 per writer")
	fl.StringVar(&f.stages, "stages", "", "open loop at a ramping rate, as k6's ramping-arrival-rate: duration:rate stages, comma-separated (e.g. 10s:100,30s:2000), each ramping linearly from the stage before's rate (0 before the first) to its own; the run lasts their sum, latency measured from intended start; instead of --rate and --duration")
	fl.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed of every random choice")
	fl.Float64Var(&cfg.Faults.StaleRead, "stale-read", cfg.Faults.StaleRead, "probability step 1's eventually consistent idempotency read misses an existing record")
	fl.Float64Var(&cfg.Faults.CrashAfterAllocate, "crash-after-allocate", cfg.Faults.CrashAfterAllocate, "probability the server crashes between allocate and persist")
	fl.Float64Var(&cfg.Faults.CrashInPersist, "crash-in-persist", cfg.Faults.CrashInPersist, "probability the server crashes inside the persist transaction (the commit lands or not, 50/50)")
	fl.Float64Var(&cfg.Faults.CrashAfterPersist, "crash-after-persist", cfg.Faults.CrashAfterPersist, "probability the server crashes after persist, before publish")
	fl.Float64Var(&cfg.Faults.PublishFail, "publish-fail", cfg.Faults.PublishFail, "probability the Kafka publish fails")
	fl.Float64Var(&cfg.Faults.CrashBeforeAllocate, "crash-before-allocate", cfg.Faults.CrashBeforeAllocate, "probability the server crashes after the idempotency and membership reads, before allocating (nothing written; the client sees info)")
	fl.Float64Var(&cfg.Faults.StoreThrottle, "store-throttle", cfg.Faults.StoreThrottle, "probability one store call of an attempt is throttled: refused, nothing applied, the client sees fail (ADR-004's core only)")
	fl.Float64Var(&cfg.Faults.StoreInternalError, "store-internal-error", cfg.Faults.StoreInternalError, "probability one store call of an attempt fails with a 500: fail on a read, info on the counter ADD or the transaction, which half the time were applied (ADR-004's core only)")
	fl.Float64Var(&cfg.Faults.TxnCanceledOther, "txn-canceled-other", cfg.Faults.TxnCanceledOther, "probability step 4's transaction is cancelled for a reason other than the idempotency condition (a conflict): nothing applied, fail (ADR-004's core only)")
	fl.Float64Var(&cfg.Faults.TxnCanceledOther, "txn-cancelled-other", cfg.Faults.TxnCanceledOther, "the same as --txn-canceled-other")
	_ = fl.MarkHidden("txn-cancelled-other")
	fl.Float64Var(&cfg.DuplicateAfterOK, "duplicate-after-ok", cfg.DuplicateAfterOK, "probability a client resends a key after its ACK")
	fl.Float64Var(&cfg.DuplicateLate, "duplicate-late", cfg.DuplicateLate, "probability a client resends an acknowledged key again --duplicate-late-after later (a service that forgets its idempotency records sooner answers it as a new message)")
	fl.DurationVar(&cfg.DuplicateLateAfter, "duplicate-late-after", cfg.DuplicateLateAfter, "how long after its ACK a --duplicate-late resend comes")
	fl.Float64Var(&cfg.ConcurrentDuplicate, "concurrent-duplicate", cfg.ConcurrentDuplicate, "probability a send is raced by a second client with the same key (ADR-004 scenario 4)")
	fl.Float64Var(&cfg.ReuseKey, "reuse-key", cfg.ReuseKey, "probability a client reuses its previous key with other content (a client bug; the contract says what must happen)")
	fl.Float64Var(&cfg.KeyAcrossChats, "key-across-chats", cfg.KeyAcrossChats, "probability a send uses the key the client last sent to another chat: a new message (keys are unique within a chat), which a service keying idempotency by the key alone answers with the other chat's")
	fl.Float64Var(&cfg.KeyAcrossSenders, "key-across-senders", cfg.KeyAcrossSenders, "probability a send is another member of the chat sending the key and content its client last sent there: under key_scope chat a replay of that message, under client and sender a new one, the other member's (a service keying idempotency otherwise than it states fails)")
	fl.Float64Var(&cfg.OddKeys, "odd-keys", cfg.OddKeys, "probability a send's key is an unusual one, a new message each: the client's last key in upper case (keys are case-sensitive), or one of 118 characters (a run's share their first hundred); a service folding keys' case or cutting them short answers it with another message")
	fl.Float64Var(&cfg.OutsiderSends, "outsider-sends", cfg.OutsiderSends, "probability a send comes from a user who is not a member of the chat, which ADR-004 §3 refuses (not_a_member; judged by send_authorization, the chats' members recorded as join lines); none under send_membership: unchecked")
	fl.Float64Var(&cfg.ForgedSenders, "forged-senders", cfg.ForgedSenders, "probability a send's body names another user than its caller, which the API refuses (403 auth.sender_mismatch): half are made as a user who is not a member of the chat (outsider-N) naming a member (a service taking the sender from the body stores it as the member's, which send_authorization fails), half as a member naming another member (stored as the other's: ack_implies_persistence and the reads fail it, a send's sender being its caller); only on a target that names its caller apart from the body (http with a user header), none under send_membership: unchecked")
	fl.Float64Var(&cfg.OutsiderSyncs, "outsider-syncs", cfg.OutsiderSyncs, "probability a sync reads as a user who is not a member of the chat, which a service checking who reads refuses (not_a_member; judged by read_authorization); only on a target that names who reads (http with a user header), none under read_membership: unchecked")
	fl.Float64Var(&cfg.SyncRatio, "sync-ratio", cfg.SyncRatio, "share of operations that are syncs")
	fl.IntVar(&cfg.SyncLimit, "sync-limit", cfg.SyncLimit, "page size of a sync")
	fl.IntVar(&cfg.Readers, "readers", cfg.Readers, "catch-up clients besides the writers: each follows every chat by cursor (sync after the last sequence it received, page by page, over and over), recorded with \"reader\": true and judged by catch_up_completeness")
	fl.DurationVar(&cfg.ReaderPoll, "reader-poll", bench.DefaultReaderPoll, "a reader's pause between rounds over its chats")
	fl.IntVar(&cfg.Receivers, "receivers", cfg.Receivers, "receiving members per chat besides the writers, one device each on the push channel (in process from the events topic; over /v1/push for --target http), behaving as ADR-001's client (reorder by sequence, ack, reconnect and catch up by paged sync) and settling once the writers stop; recorded with the history's receiver lines and judged by the delivery invariants (eventual_visibility, identical_order, delivery_state_consistency, push_authorization, stream_continuity, stream_completeness)")
	fl.IntVar(&cfg.OutsiderDevices, "outsider-devices", cfg.OutsiderDevices, "devices connected with the receivers as users who are members of no chat (outsider-push-N), held open through the run: anything pushed to them fails push_authorization; only with --receivers, 0: none")
	fl.IntVar(&cfg.AnonymousDevices, "anonymous-devices", cfg.AnonymousDevices, "push channel handshakes with the receivers naming no user (no X-User-Id), which the API refuses (401 auth.required): recorded as refused connects, or, answered 101, held open as anonymous-N, a member of no chat, so anything pushed on them fails push_authorization; only with --receivers on a push channel that names its users (--target http), 0: none")
	fl.DurationVar(&cfg.DropConnectionsEvery, "drop-connections-every", 0, "a nemesis: drop every receiver's connection on this clock (each reconnects and catches up); needs --receivers")
	fl.DurationVar(&cfg.DropConnectionsFor, "drop-connections-for", 0, "how long a dropped receiver stays offline before it reconnects (0: at once); shorter than --drop-connections-every")
	fl.Float64Var(&cfg.Faults.SlowCommit, "slow-commit", cfg.Faults.SlowCommit, "probability a persist's commit waits --slow-commit-delay after its allocation, so later sequences of the chat commit first (ADR-004's core, two-phase)")
	fl.DurationVar(&cfg.Faults.SlowCommitDelay, "slow-commit-delay", bench.DefaultSlowCommitDelay, "how long a slow commit (--slow-commit) waits between allocation and commit")
	fl.IntVar(&cfg.MaxAttempts, "max-attempts", cfg.MaxAttempts, "sends of one key before a client gives up")
	fl.DurationVar(&cfg.RetryBackoff, "retry-backoff", cfg.RetryBackoff, "a client's wait before its first retry, doubling up to 50ms")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop the writers at the online check's first violation, record the final state, check and exit 1")
	fl.BoolVar(&f.online, "online", true, "judge what operations alone prove while the writers run (the first violation on the progress line and in the metrics); --online=false leaves every verdict to the check after the run, which is the same either way")
	fl.StringVar(&f.broken, "broken", "", "run a deliberately broken variant of the target, a bug an invariant must catch: "+variantHelp(false))
	fl.StringVar(&f.variant, "variant", "", "run another design of the target, one that keeps a promise the design as written breaks: "+variantHelp(true))
	fl.BoolVar(&cfg.RepublishOnReplay, "republish-on-replay", cfg.RepublishOnReplay, "publish again when a retry is answered from the idempotency record (ADR-004 §10); false is §7's pseudocode")
	fl.StringVar(&f.kafkaMode, "kafka", "embedded", "step 5's Kafka: embedded (in-process kfake) or off")
	fl.StringVar(&f.brokers, "brokers", "", "comma-separated brokers of a real Kafka cluster (overrides --kafka)")
	fl.StringVar(&cfg.Topic, "topic", cfg.Topic, "Kafka topic")
	fl.Int32Var(&cfg.Partitions, "partitions", cfg.Partitions, "partitions when chatseq creates the topic")
	fl.StringVar(&cfg.HistoryPath, "history", cfg.HistoryPath, "file the history streams to")
	fl.StringVar(&f.format, "format", "text", "report format: text or json")
	f.metrics.register(fl)
	fl.StringVar(&f.strategy, "strategy", "two-phase", "allocation: two-phase (ADR-004: atomic ADD, then persist) or occ (option B: read, conditional write, retry)")
	fl.StringVar(&f.shard, "shard", "", "i/N: drive only chats whose index mod N is i, so N processes share the load and 'chatseq check' judges their histories as one run")
	fl.StringVar(&f.targets, "target", "", "design(s) to drive, comma-separated for a side-by-side table: "+strings.Join(targets.Names(), ", ")+" (default: the --store)")
	fl.StringVar(&f.dsn, "dsn", "", "PostgreSQL connection string for --target postgres (default: a throwaway local cluster)")
	addStoreFlags(fl, &f.store)
	f.lin.register(fl, "porcupine's time budget over all the chats it checks")
	fl.StringArrayVar(&f.thresholdExprs, "threshold", nil, "a condition on the run's figures, as in scenario files: 'allocate.p99 < 1ms', 'throughput >= 100000', 'errors.counter_missing == 0'; repeat for several; exit 4 if one fails while every invariant holds")
	fl.StringVar(&f.schedule, "schedule", "", "timed faults on the run's clock, in the scenario files' schedule language (docs/scenarios.md): a YAML file, or inline, e.g. '[{fault: kafka_outage, at: 1s, for: 500ms}, {fault: store_latency, at: 0s, for: 2s, latency: 1ms}]'; '{fault: variant_on, at: 30s, for: 10m, variant: racy-counter}' turns a correct run wrong at 30s (with --fail-fast, a rehearsal of the first violation)")
	addOutputFlags(fl, &f.output)
	f.http.register(fl)
	return c
}

func (f *benchFlags) resolve(fl *pflag.FlagSet) error {
	// Each target has its own variants: checkTargets checks the name
	// against the targets chosen.
	flag, chosen := "--broken", f.broken
	if f.variant != "" {
		flag, chosen = "--variant", f.variant
	}
	switch chosen {
	case "", "none", "correct":
		f.cfg.Variant = sequencer.Correct
	default:
		f.cfg.Variant = sequencer.Variant(chosen)
	}
	switch f.kafkaMode {
	case "embedded":
	case "off":
		f.cfg.KafkaOff = true
	default:
		return badInput("--kafka must be embedded or off, got %q", f.kafkaMode)
	}
	if f.brokers != "" {
		f.cfg.KafkaOff = false
		for _, b := range strings.Split(f.brokers, ",") {
			if b = strings.TrimSpace(b); b != "" {
				f.cfg.Brokers = append(f.cfg.Brokers, b)
			}
		}
	}
	if f.format != "text" && f.format != "json" {
		return badInput("--format must be text or json, got %q", f.format)
	}
	strategy, ok := sequencer.ParseStrategy(f.strategy)
	if !ok {
		return badInput("--strategy must be two-phase or occ, got %q", f.strategy)
	}
	f.cfg.Strategy = strategy
	if f.shard != "" {
		i, n, err := parseShard(f.shard)
		if err != nil {
			return err
		}
		f.cfg.ShardIndex, f.cfg.ShardCount = i, n
	}
	if err := f.store.Validate(); err != nil {
		return usageError{err}
	}
	if f.output.dir == "" {
		// Caught here rather than as a run error after the store started.
		if dir := filepath.Dir(f.cfg.HistoryPath); !isDir(dir) {
			return badInput("--history %s: directory %s does not exist", f.cfg.HistoryPath, dir)
		}
	}
	if err := f.lin.resolve(); err != nil {
		return err
	}
	if err := f.resolveStages(fl); err != nil { // before --kill-every spaces kills over the duration
		return err
	}
	// The schedule first: --kill-every adds its kills to it (http.resolve).
	if f.schedule != "" {
		timed, err := scenarios.ParseScheduleArg(f.schedule)
		if err != nil {
			return usageError{err}
		}
		for _, tf := range timed {
			if tf.Kind == target.DeleteCounter && tf.Chat >= f.cfg.Chats {
				return badInput("--schedule %s: delete_counter names chat %d, but --chats %d gives chats 0..%d", f.schedule, tf.Chat, f.cfg.Chats, f.cfg.Chats-1)
			}
		}
		f.cfg.Timed = timed
	}
	if err := f.http.resolve(&f.cfg); err != nil {
		return err
	}
	f.thresholds = f.thresholds[:0]
	for _, expr := range f.thresholdExprs {
		t, err := scenarios.ParseThreshold(expr)
		if err != nil {
			return badInput("--threshold: %v", err)
		}
		if t.NeedsReceivers() && f.cfg.Receivers == 0 {
			// Refused here, as a scenario file's is: it ran the whole run
			// and failed it for no data.
			return badInput("--threshold %q: only receivers (--receivers N) measure it", expr)
		}
		f.thresholds = append(f.thresholds, t)
	}
	if f.failFast && !f.online {
		return badInput("--fail-fast stops at the online check's first violation: it needs --online")
	}
	if err := f.cfg.Variant.CheckStrategy(f.cfg.Strategy); err != nil {
		// Before Validate, which cannot tell which flag named it.
		return badInput("%s %s with --strategy %s: %v", flag, f.cfg.Variant, f.cfg.Strategy, err)
	}
	if err := f.cfg.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}

// resolveStages reads --stages: their sum is the run's duration, which
// --duration may repeat but not contradict (Config.Validate), and a
// --rate beside them is refused there too.
func (f *benchFlags) resolveStages(fl *pflag.FlagSet) error {
	if !fl.Changed("stages") {
		return nil
	}
	stages, err := bench.ParseStages(f.stages)
	if err != nil {
		return usageError{err}
	}
	if problem := bench.StagesProblem(stages, f.cfg.Writers); problem != "" {
		return badInput("--stages %s: %s", f.stages, problem)
	}
	f.cfg.Stages = stages
	if !fl.Changed("duration") {
		f.cfg.Duration = bench.NewRamp(stages).Duration()
	}
	return nil
}

func runBench(c *cobra.Command, f *benchFlags) error {
	names, err := f.targetNames(c)
	if err != nil {
		return err
	}
	if err := f.resolve(c.Flags()); err != nil {
		return err
	}
	if err := f.checkTargets(c, names); err != nil {
		return err
	}
	f.store.Status = c.ErrOrStderr()
	if err := f.http.check(names); err != nil {
		return err
	}
	if slices.Contains(names, postgres.Name) {
		if err := postgres.CheckDSN(f.dsn); err != nil {
			return usageError{err}
		}
	}
	if err := f.output.prepare(c, names); err != nil {
		return err
	}
	ctx, interrupts, release := catchInterrupts(c.Context(), c.ErrOrStderr())
	defer release()
	f.interrupts = interrupts
	serving, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServing()
	if f.cfg.Metrics, err = f.metrics.start(serving, c.ErrOrStderr()); err != nil {
		return err
	}
	var runs []report.Bench
	worst := ExitOK
	for _, name := range names {
		if ctx.Err() != nil {
			break // interrupted: report the targets that ran
		}
		cfg := f.cfg
		cfg.Target = name
		if len(names) > 1 {
			cfg.HistoryPath = historyPathFor(f.cfg.HistoryPath, name)
		}
		progress := f.output.configure(&cfg, c.ErrOrStderr())
		if ceiling := memoryCeiling(); ceiling < math.MaxInt64 {
			cfg.MemoryCeiling = ceiling
		}
		b, err := f.runTarget(ctx, c, name, cfg, progress)
		var early interruptedEarly
		if errors.As(err, &early) {
			interrupts.say(fmt.Sprintf("chatseq: interrupted before the writers of target %s started; nothing ran (%s)", name, redact.Text(early.err.Error())))
			return exitError{ExitInterrupted}
		}
		if err != nil {
			return fmt.Errorf("bench --target %s: %w", name, err)
		}
		runs = append(runs, b)
		worst = worseExit(worst, benchExit(b))
	}
	if err := f.output.index(c.ErrOrStderr(), runs); err != nil {
		return err
	}
	out := c.OutOrStdout()
	switch {
	case f.format == "json" && len(runs) == 1:
		err = report.WriteJSON(out, runs[0])
	case f.format == "json":
		err = report.WriteJSONRuns(out, runs)
	default:
		for i, b := range runs {
			if i > 0 {
				fmt.Fprintln(out)
			}
			if err = report.WriteText(out, b); err != nil {
				return err
			}
		}
		if len(runs) > 1 {
			fmt.Fprintln(out)
			err = report.WriteComparison(out, runs)
		}
	}
	if err != nil {
		return err
	}
	if worst == ExitInterruptedRun {
		fmt.Fprintf(c.ErrOrStderr(), "chatseq: interrupted while the writers ran: the report covers a shorter run than asked for (exit %d)\n", ExitInterruptedRun)
	}
	if worst != ExitOK {
		return exitError{worst}
	}
	return nil
}

// runTarget drives one target, checks the history and returns the report.
func (f *benchFlags) runTarget(ctx context.Context, c *cobra.Command, name string, cfg bench.Config, progress *progressPrinter) (report.Bench, error) {
	// The check reads the history as the recorder writes it, and judges
	// what operations alone prove while the writers run.
	watch := newOnlineWatch(f.failFast, f.cfg.Metrics, progress, name)
	cfg.Stop = watch.stop
	online := watch.online
	if !f.online {
		online = nil
	}
	feed := checker.NewOnlineFeed(cfg.HistoryPath, online)
	cfg.HistoryTap = feed.Tap()
	f.interrupts.writersStart(ctx, cfg.HistoryPath, progress)
	announce := cfg.Phase
	cfg.Phase = func(name string) {
		if announce != nil {
			announce(name)
		}
		atPhase(name)
	}
	cfg.WritersStarting = f.interrupts.writersRunning
	writersRan := false
	cfg.WritersStopped = func() {
		writersRan = true
		f.interrupts.writersDone()
	}
	res, describe, err := f.drive(ctx, c, name, cfg)
	f.interrupts.writersDone()
	if err != nil {
		feed.Discard()
		if !writersRan && ctx.Err() != nil {
			return report.Bench{}, interruptedEarly{err}
		}
		return report.Bench{}, err
	}
	if res.StoppedEarlyByStop {
		res.StoppedForViolation = watch.stoppedBy()
	}
	checked, rep, err := f.check(name, res, feed, progress)
	if err != nil {
		return report.Bench{}, err
	}
	b := report.FromBench(res, describe, rep)
	if online != nil {
		b.Online = append([]checker.Violation{}, online.Violations()...) // [] rather than null: it ran
	}
	if len(f.thresholds) > 0 {
		// A fresh or prefixed set of chats: every counter started at 0.
		m := scenarios.NewMetrics(res, rep, checked, 0)
		for _, t := range f.thresholds {
			b.Thresholds = append(b.Thresholds, t.Evaluate(m))
		}
	}
	done := timings.Phase("results saved")
	defer done()
	return b, f.output.save(c.ErrOrStderr(), name, res, b)
}

// check judges the run's history, which feed has read while it was
// written. A history too large for this machine's memory is not judged
// (checked false): the report says why, every invariant undecided, and the
// run's own figures still stand.
func (f *benchFlags) check(name string, res *bench.Result, feed *checker.Feed, progress *progressPrinter) (checked bool, rep checker.Report, err error) {
	path := res.Config.HistoryPath
	opt := f.lin.options()
	if err := checkFits([]string{path}, opt.PorcupineMemory); err != nil {
		feed.Discard()
		return false, unchecked(err), nil
	}
	progress.phase(name, phaseCheck)
	beforeCheck()
	// What the run held (the embedded store, the topic's events) is
	// garbage now: collected first, it is not counted as live when the
	// check's collector target is set, which let a default one-minute
	// run's heap reach 1.4 GB before the next collection.
	done := timings.Phase("collected before the check")
	runtime.GC()
	done()
	defer collectForRunCheck()()
	opt.VisualizeDir = f.output.visualizeDir(name)
	opt.Interval = res.IntervalLength // allocations and gaps per interval of the run's
	checkDone := f.cfg.Metrics.Checking(path)
	rep, _, err = feed.Check(opt)
	if err != nil {
		checkDone(nil)
		return false, checker.Report{}, fmt.Errorf("reading back the history: %w", err)
	}
	rep = report.JudgedRun(res, rep)
	checkDone(&rep)
	progress.phase(name, "")
	return true, rep, nil
}

// interruptedEarly is a target that Ctrl-C stopped while it started, its
// writers not yet running: there is no run to check or report.
type interruptedEarly struct{ err error }

func (e interruptedEarly) Error() string {
	return "interrupted before the writers started: " + e.err.Error()
}
func (e interruptedEarly) Unwrap() error { return e.err }

// benchExit is one target's exit status: the check's, or ExitThresholds
// when every invariant held but a threshold did not (as scenarios rank
// them, an undecided invariant outranks a threshold). A run whose writers
// an interrupt stopped exits ExitInterruptedRun unless an invariant
// failed: CI must not take a run shorter than asked for a pass.
func benchExit(b report.Bench) int {
	code := b.Check.ExitCode()
	switch {
	case code == ExitViolation:
		return code
	case b.Run.Interrupted:
		return ExitInterruptedRun
	case code == ExitOK && report.ThresholdsFailed(b.Thresholds) > 0:
		return ExitThresholds
	}
	return code
}

// drive opens the target, runs the writers and closes the target again
// before the history is checked: an embedded store of a long run is as
// large as the history the checker then reads.
func (f *benchFlags) drive(ctx context.Context, c *cobra.Command, name string, cfg bench.Config) (*bench.Result, string, error) {
	opened, err := targets.Open(ctx, name, f.http.options(targets.Options{Store: f.store, DSN: f.dsn}))
	if err != nil {
		return nil, "", err
	}
	defer opened.Close()
	// Registered after the Close above, so forgotten before it runs.
	defer f.interrupts.onQuit(opened.Close)()
	if err := opened.CheckKills(cfg.Timed); err != nil {
		return nil, "", usageError{err}
	}
	if err := opened.CheckReceivers(cfg.Receivers); err != nil {
		return nil, "", usageError{err}
	}
	f.http.adjust(c, opened, &cfg)
	if !opened.Fresh {
		cfg.ChatPrefix = runChatPrefix()
	}
	cfg.Contract, cfg.Claims = opened.Contract, opened.Claims
	if !c.Flags().Changed("topic") && opened.Topic != "" {
		cfg.Topic = opened.Topic
	}
	// The embedded store's items are pointer-free, so collections no
	// longer rescan every message: GOGC=400 (once a third faster) only
	// doubled the run's memory, and a low target costs no rate (gc.go).
	// A remote target keeps its store in its own process: there, four
	// times the collections only stretched the latency tail (p99 at
	// 1000/s over http: 1.6 ms at the default, 3.3-6.6 ms at 25).
	//
	// A remote target's run still holds its heap's growth to
	// remoteRunGrowth past what is live (gc.go): at the default percent
	// the process's memory followed twice the live heap, so every byte a
	// run keeps an operation cost two of memory.
	restore := collectForRemoteRun
	if !opened.Remote {
		restore = collectForRun
	}
	restoreGC := restore()
	res, err := bench.RunTarget(ctx, cfg, opened.Factory)
	restoreGC()
	return res, opened.Describe, err
}

// targetNames resolves --target and --store (--store X alone means
// ADR-004's core on store X), and refuses the flags those targets would
// ignore, before any other flag is read: a flag that means nothing to
// the targets is the problem to name, not its value.
func (f *benchFlags) targetNames(c *cobra.Command) ([]string, error) {
	if err := f.store.Validate(); err != nil {
		return nil, usageError{err}
	}
	names := []string{f.store.Kind}
	if f.targets != "" {
		if c.Flags().Changed("store") {
			return nil, badInput("give --target or --store, not both (--target %s names the store)", f.targets)
		}
		names = nil
		for _, n := range strings.Split(f.targets, ",") {
			n = strings.TrimSpace(n)
			if !targets.Known(n) {
				return nil, badInput("--target: unknown target %q (known: %s)", n, strings.Join(targets.Names(), ", "))
			}
			if slices.Contains(names, n) {
				// Its second run would write over the first's history.
				return nil, badInput("--target names %s twice", n)
			}
			names = append(names, n)
		}
	}
	if err := refuseIgnoredFlags(c.Flags(), names); err != nil {
		return nil, err
	}
	if c.Flags().Changed("reader-poll") && f.cfg.Readers == 0 {
		return nil, badInput("--reader-poll paces the catch-up clients of --readers, and there are none: give --readers N too")
	}
	return names, nil
}

// checkTargets refuses what resolve read that the targets cannot do: a
// scheduled store error outside ADR-004's core, a variant of another
// target.
func (f *benchFlags) checkTargets(c *cobra.Command, names []string) error {
	if f.cfg.Receivers > 0 && f.cfg.KafkaOff {
		for _, n := range names {
			if n != httptarget.Name {
				return badInput("--receivers: target %s's devices are pushed from the run's events topic, and --kafka is off", n)
			}
		}
	}
	for _, tf := range f.cfg.Timed {
		for _, n := range names {
			if target.CoreOnly(tf.Kind) && !targets.RunsCore(n) {
				return badInput("--schedule: %s applies only to ADR-004's core (targets memory, dynamodb, dynamodb-local); target %s does not inject it", tf.Kind, n)
			}
		}
	}
	notes := map[string]bool{}
	for _, n := range names {
		_, note, err := targets.SelectVariant(n, f.broken, f.variant, targets.FlagSpelling)
		if err != nil {
			return badInput("%v", err)
		}
		if note != "" && !notes[note] {
			notes[note] = true
			c.PrintErrln("note: " + note)
		}
	}
	return nil
}

// variantHelp lists each target's bugs (--broken) or designs (--variant)
// for the flag's help.
func variantHelp(design bool) string {
	var parts []string
	for _, n := range targets.Names() {
		vs := targets.BrokenNames(n)
		if design {
			vs = targets.DesignNames(n)
		}
		if len(vs) > 0 && !strings.HasPrefix(n, "dynamodb") {
			parts = append(parts, n+": "+strings.Join(vs, ", "))
		}
	}
	return strings.Join(parts, "; ") + " (the dynamodb targets share memory's)"
}

// historyPathFor puts the target's name before the extension.
func historyPathFor(path, target string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + target + ext
}

// worseExit orders exit codes by severity: a violation beats an
// interrupted run, which beats unknown, which beats a failed threshold.
func worseExit(a, b int) int {
	rank := func(code int) int {
		switch code {
		case ExitOK:
			return 0
		case ExitThresholds:
			return 1
		case ExitUnknown:
			return 2
		case ExitInterruptedRun:
			return 3
		}
		return 4
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

func verdictExit(rep checker.Report) error {
	if code := rep.ExitCode(); code != ExitOK {
		return exitError{code}
	}
	return nil
}

// parseShard reads "i/N".
func parseShard(s string) (int, int, error) {
	idx, count, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(idx)
	n, err2 := strconv.Atoi(count)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, badInput("--shard must be i/N with 0 ≤ i < N, got %q", s)
	}
	return i, n, nil
}

// isDir reports whether path is an existing directory.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
