package bench

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/jsonstr"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/internal/timings"
	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets/core"
)

// Result is what a run measured. The verdicts come from checking the
// history file afterwards.
type Result struct {
	Config      Config
	Started     time.Time
	Elapsed     time.Duration // writers' time, excluding setup and read-back
	Counts      Counts
	Latency     map[Step]*hdrhistogram.Histogram
	Allocations int64 // sequences handed out by step 3 (the counters' sum)
	Persisted   int64 // messages in the store afterwards
	// CountersRead and MessagesRead: the final state's counters and
	// messages tables were read (a service without its test hooks
	// gives no counter), so Allocations and Persisted are figures, not
	// zeros by default.
	CountersRead, MessagesRead bool
	Events                     int // records read back from Kafka
	Kafka                      string
	Intervals                  []Interval // counts and latency per interval (timeseries.go)
	// IntervalLength is the intervals' length: FineInterval, or
	// IntervalLength for a long run.
	IntervalLength time.Duration
	// Interrupted: ctx ended while the writers ran, so they stopped early.
	Interrupted bool
	// Readers are what the catch-up clients did (cfg.Readers > 0).
	Readers ReaderCounts
	// Receivers are what the devices did and saw (cfg.Receivers > 0);
	// FanOut is each first receipt's latency from the message's
	// created_at, FullVisibility each message's from its created_at to
	// its chat's last device's receipt.
	Receivers              ReceiverCounts
	FanOut, FullVisibility *hdrhistogram.Histogram
	// DeliveryIntervals are those latencies over time, by receipt, and
	// Drops the connection nemesis' strikes.
	DeliveryIntervals []DeliveryInterval
	Drops             []DropWindow
	// ServerKills counts the kill_server faults carried out.
	ServerKills int
	// ServerKafkaOutages counts the kafka_outage faults a remote target's
	// server carried out (target.KafkaFaulter).
	ServerKafkaOutages int
	// StoppedForMemory says why the writers stopped before their duration
	// or operations were done, when the process neared its memory ceiling;
	// empty otherwise.
	StoppedForMemory string
	// StoppedForViolation says which violation stopped the writers early
	// (Config.Stop, --fail-fast); empty otherwise.
	StoppedForViolation string
	// StoppedEarlyByStop: Config.Stop closed while the writers still
	// ran, before their duration or operations were done, and stopped
	// them; what closed it may set StoppedForViolation.
	StoppedEarlyByStop bool
	// Lateness is how far the open loop fell behind its rate (zero in a
	// closed loop).
	Lateness Lateness
	// BadAnswer is the first answer the service gave in breach of its
	// API, as the target describes it (BadAnswerExampler); "" none.
	BadAnswer string
	// FinalStateUnread says why the final state could not be read back
	// (a bad answer, a lost connection); empty when it was. The history
	// then ends without its end line, as a run cut short: the check
	// judges the operations alone.
	FinalStateUnread string
}

// Throughput is operations per second of writer time.
func (r *Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Counts.Operations) / r.Elapsed.Seconds()
}

// Run executes cfg against the ADR-004 core over st (nil: a fresh embedded
// store) and streams the history to cfg.HistoryPath.
func Run(ctx context.Context, cfg Config, st store.Store) (*Result, error) {
	return RunTarget(ctx, cfg, core.Factory(st))
}

// RunTarget executes cfg against the target newTarget builds. ctx ending
// (an interrupt) stops the writers early, their operations in flight ending
// with unknown outcomes; the run is still settled and its final state
// recorded, so the history it leaves is complete.
func RunTarget(ctx context.Context, cfg Config, newTarget target.Factory) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Contract.KeyScope == history.KeyScopeSender {
		// The design's clients send each key once, in one chat: one sent
		// to another would be their bug, not a test of the service.
		cfg.KeyAcrossChats = 0
	}
	if cfg.Contract.SendMembership == history.SendMembershipUnchecked {
		// The design refuses no one: a send from outside would be stored,
		// as it says it is.
		cfg.OutsiderSends, cfg.ForgedSenders = 0, 0
	}
	res := &Result{Config: cfg, Kafka: "off"}

	pub, brokers, stopKafka, err := startKafka(ctx, &cfg, res)
	if err != nil {
		return nil, err
	}
	defer stopKafka()

	clock := &runClock{}
	tgt, err := newTarget(ctx, cfg.TargetEnv(withOutages(publisherOrNil(pub), clock, cfg.Timed), clock.elapsed))
	if err != nil {
		return nil, err
	}
	defer tgt.Close()
	if target.ReadsAsUser(tgt) == nil || cfg.Contract.ReadMembership == history.ReadMembershipUnchecked {
		// Its syncs name no one, or the design lets anyone read: no read
		// from outside would be refused.
		cfg.OutsiderSyncs = 0
		res.Config.OutsiderSyncs = 0
	}
	// An outsider device's read of a chat's delivery_state is refused as
	// a non-member's sync is, where the service is told who reads.
	cfg.outsiderStateReads = target.ReadsAsUser(tgt) != nil && cfg.Contract.ReadMembership != history.ReadMembershipUnchecked
	if !target.ClaimsSenders(tgt) {
		// Its sends name no caller apart from the body's sender: a
		// forged one would be a plain send of the writer's.
		cfg.ForgedSenders, res.Config.ForgedSenders = 0, 0
	}
	chats, err := createChats(ctx, tgt, cfg)
	if err != nil {
		return nil, err
	}
	if _, served := tgt.(gateway.ChannelServer); cfg.Receivers > 0 && !served && cfg.Contract.StreamStart == "" {
		// The in-process push channel is chatseq's gateway, which has
		// subscribed a device when its Dial returns: what is sent after
		// the connect line is streamed on it.
		cfg.Contract.StreamStart = history.StreamStartAtConnect
	}

	f, err := history.Create(cfg.HistoryPath)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	// The recorder buffers and flushes on its own, and puts what it
	// flushed in the file (File.Checkpoint) on its 200 ms timer: a killed
	// run loses at most its last 200 ms, and leaves a prefix.
	rec, err := history.NewTappedRecorder(f, header(cfg), 200*time.Millisecond, cfg.HistoryTap)
	if err != nil {
		return nil, err
	}
	defer rec.Close() // on an error return: what was recorded reaches the file

	// The topic is read while the run goes: what it held is known when the
	// writers stop, and the embedded broker, which is the run's own, drops
	// what has been read instead of holding every record in memory.
	var tail *kafka.Tail
	var startOffsets map[int32]int64
	if pub != nil {
		if startOffsets, err = kafka.EndOffsets(ctx, brokers, cfg.Topic); err != nil {
			return nil, err
		}
		// Not ended by an interrupt: the tail must read on to the topic's
		// end after the writers stop, and a tail an interrupt cancelled
		// left the read-back waiting a minute for offsets it never read.
		// tail.Close and Finish end it.
		if tail, err = kafka.StartTail(context.WithoutCancel(ctx), brokers, cfg.Topic, startOffsets, len(cfg.Brokers) == 0); err != nil {
			return nil, err
		}
		defer tail.Close()
	}

	var recv *receivers
	if cfg.Receivers == 0 {
		cfg.OutsiderDevices, cfg.AnonymousDevices = 0, 0
		res.Config.OutsiderDevices, res.Config.AnonymousDevices = 0, 0
	}
	if cfg.Receivers > 0 {
		ch, err := pushChannel(ctx, &cfg, tgt, brokers, startOffsets, tail, chats)
		if err != nil {
			return nil, err
		}
		defer ch.Close()
		if gateway.Anonymous(ch) == nil {
			// Its handshakes name no one (the in-process gateway's
			// devices, a mapping without a user): none to leave out.
			cfg.AnonymousDevices, res.Config.AnonymousDevices = 0, 0
		}
		recordJoins(rec, chats, chatMembers(&cfg, chats))
		recv = startReceivers(ctx, &cfg, ch, rec, chats)
		done := timings.Phase("receivers connected")
		notReady := recv.waitReady(ctx)
		done()
		if err := ctx.Err(); err != nil {
			// Interrupted while the devices connected and caught up, before
			// any writer ran: there is no run to settle (a hostile service's
			// first catch-ups kept a run going 30 s after Ctrl-C), and the
			// push channel's Close ends what the devices were doing.
			return nil, fmt.Errorf("connecting the receivers: %w", err)
		}
		if notReady != nil {
			recv.abandon()
			return nil, notReady
		}
	}

	if recv == nil && (cfg.OutsiderSends > 0 || cfg.OutsiderSyncs > 0 || cfg.ForgedSenders > 0) {
		// The members outsiders are told from (the receivers' run
		// records them above).
		recordJoins(rec, chats, chatMembers(&cfg, chats))
	}
	lat := newLatencies()
	res.Started = time.Now()
	if recv != nil {
		recv.writersStart(res.Started, cfg.Duration)
	}
	timings.Since("process: start → writers", timings.Start)
	clock.begin()
	if recv != nil {
		recv.scheduleFaults(ctx, cfg.Timed)
	}
	lat.begin(rec.Now, IntervalFor(&cfg))
	cfg.Metrics.SetPhase(PhaseWriters)
	detachMetrics := lat.exportTo(cfg.Metrics, len(chats), faultWindows(cfg.Timed, clock))
	defer detachMetrics()
	stopProgress := lat.reportProgress(&cfg, clock)
	faultCtx, stopFaults := context.WithCancel(ctx)
	scheduleCounterDeletions(faultCtx, tgt, cfg)
	kills, err := scheduleServerKills(faultCtx, tgt, cfg)
	if err != nil {
		stopFaults()
		stopProgress()
		return nil, err
	}
	outages := scheduleServerOutages(faultCtx, tgt, cfg)
	if cfg.WritersStarting != nil {
		cfg.WritersStarting()
	}
	writing := timings.Phase("writers")
	var acked func(string, uint64, time.Time, time.Time)
	if recv != nil {
		acked = recv.tally.acked
	}
	runWriters(ctx, cfg, tgt, rec, lat, chats, res, acked)
	writing()
	afterWriters := time.Now()
	if cfg.WritersStopped != nil {
		cfg.WritersStopped()
	}
	if cfg.HistoryTap != nil {
		cfg.HistoryTap.Pace() // no operation waits for the check any more
	}
	stopFaults()
	// A kill in flight ends with the server up again, before the final
	// state is read from it.
	if res.ServerKills, err = kills.wait(); err != nil {
		stopProgress()
		return nil, fmt.Errorf("killing the server: %w", err)
	}
	if res.ServerKafkaOutages, err = outages.wait(); err != nil {
		stopProgress()
		return nil, fmt.Errorf("a Kafka outage of the server: %w", err)
	}
	// An interrupt stops the writers, not the history: what ran is still
	// settled, read back and recorded, so the file is complete and checkable.
	res.Interrupted = ctx.Err() != nil
	ctx = context.WithoutCancel(ctx)
	// A target that does not settle (a service whose settle hook hangs or
	// fails) may still have work in flight: its final state is not read,
	// and the run is judged as one whose final state was unread, rather
	// than thrown away with no verdict.
	unsettled := tgt.Settle(ctx)
	res.Elapsed = time.Since(res.Started)
	if recv != nil {
		done := timings.Phase("receivers settled")
		if res.Receivers, err = recv.Settle(ctx); err != nil {
			stopProgress()
			return nil, err
		}
		res.FanOut, res.FullVisibility = recv.tally.histograms()
		res.DeliveryIntervals, res.Drops = recv.tally.series(), recv.tally.dropWindows()
		done()
	}
	stopProgress()
	detachMetrics()
	res.Latency, res.Counts = lat.totals()
	res.Intervals, res.IntervalLength = lat.intervals(res.Elapsed)
	if ex, ok := tgt.(target.BadAnswerExampler); ok {
		res.BadAnswer = ex.BadAnswerExample()
	}

	timings.Since("writers done → settled", afterWriters)
	cfg.phase(PhaseFinalState)
	done := timings.Phase("final state recorded")
	finalState := func() error {
		if unsettled != nil {
			return fmt.Errorf("the target did not settle, so its final state was not read: %w", unsettled)
		}
		if err := recordFinalState(ctx, tgt, chats, rec, res); err != nil {
			return err
		}
		done()
		if recv != nil {
			if err := recordDeliveryState(ctx, recv.ch, chats, rec); err != nil {
				return fmt.Errorf("the delivery state was not read: %w", err)
			}
		}
		if pub != nil {
			cfg.phase(PhaseEvents)
			if err := recordEvents(ctx, tail, chats, rec, res); err != nil {
				return fmt.Errorf("the topic was not read back: %w", err)
			}
		}
		return nil
	}
	if err := finalState(); err != nil {
		// The run happened and its operations are recorded: the history
		// ends here, without its end line, and is judged as a file cut
		// short (what the final state decides is unknown), saying why,
		// rather than leaving the user no verdict at all.
		res.FinalStateUnread = redact.Text(err.Error())
		if err := rec.Close(); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		return res, f.Close()
	}
	// The end line says the history is complete, final state and all.
	done = timings.Phase("history ended")
	if err := rec.End(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	done()
	return res, f.Close()
}

// pushChannel is the target's own push channel (a service), or else one
// in process fed from the run's events topic, which the tail then keeps
// until the feed has read it.
func pushChannel(ctx context.Context, cfg *Config, tgt target.Target, brokers []string, from map[int32]int64, tail *kafka.Tail, chats []string) (gateway.Channel, error) {
	if pt, ok := tgt.(gateway.ChannelServer); ok {
		if v := cfg.GatewayVariant(); v != "" {
			return nil, fmt.Errorf("--broken %s breaks bench's in-process push gateway; this target serves its own push channel", v)
		}
		return pt.PushChannel(ctx)
	}
	if tail == nil {
		return nil, fmt.Errorf("--receivers: the in-process push channel is fed from the events topic, and this run has none (Kafka is off, or the design publishes no events)")
	}
	lp, err := startLocalPush(context.WithoutCancel(ctx), tgt, brokers, cfg.Topic, from, chatMembers(cfg, chats), cfg.GatewayVariant())
	if err != nil {
		return nil, err
	}
	tail.HoldTrim(lp.feed.Position)
	return lp, nil
}

// faultWindows tells the live metrics which kinds of scheduled fault
// window are open now, by the names schedules give them (kafka_outage,
// as the user wrote it and docs/metrics.md lists it); nil when none is
// scheduled.
func faultWindows(timed []target.TimedFault, clock *runClock) func() map[string]bool {
	if len(timed) == 0 {
		return nil
	}
	return func() map[string]bool {
		open := map[string]bool{}
		el := clock.elapsed()
		for _, f := range timed {
			if f.Kind != target.DeleteCounter {
				name := f.ScheduleName()
				open[name] = open[name] || f.Active(el)
			}
		}
		return open
	}
}

// withOutages fails publishes inside Kafka outage windows.
func withOutages(pub sequencer.Publisher, clock *runClock, timed []target.TimedFault) sequencer.Publisher {
	var outages []target.TimedFault
	for _, f := range timed {
		if f.Kind == target.KafkaOutage {
			outages = append(outages, f)
		}
	}
	if pub == nil || len(outages) == 0 {
		return pub
	}
	return &outagePublisher{inner: pub, elapsed: clock.elapsed, outages: outages}
}

func publisherOrNil(p *kafka.Publisher) sequencer.Publisher {
	if p == nil {
		return nil
	}
	return p
}

// KafkaUnused is Result.Kafka for a target whose contract publishes no
// events: no broker is started or read.
const KafkaUnused = "none (the design publishes no events)"

func startKafka(ctx context.Context, cfg *Config, res *Result) (*kafka.Publisher, []string, func(), error) {
	if cfg.KafkaOff {
		return nil, nil, func() {}, nil
	}
	if cfg.Contract.Events == history.EventsNone {
		// A design without an event stream (the ledger): a broker started
		// for it would only make the report name a Kafka nothing used.
		res.Kafka = KafkaUnused
		return nil, nil, func() {}, nil
	}
	brokers := cfg.Brokers
	stop := func() {}
	res.Kafka = "brokers " + fmt.Sprint(brokers)
	if len(brokers) == 0 {
		cluster, err := embedded.Start(cfg.Topic, cfg.Partitions)
		if err != nil {
			return nil, nil, nil, err
		}
		brokers, stop, res.Kafka = cluster.Brokers(), cluster.Close, "in-process kfake"
	}
	pub, err := kafka.NewPublisher(ctx, brokers, cfg.Topic, cfg.Partitions)
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	return pub, brokers, func() { pub.Close(); stop() }, nil
}

func header(cfg Config) history.Header {
	contract := cfg.Contract
	if contract.Events == "" {
		contract.Events = history.EventsAtLeastOnce
		if cfg.KafkaOff {
			contract.Events = history.EventsNone
		}
	}
	h := history.Header{
		Version: history.Version, Target: cfg.Target, Scenario: cfg.Scenario, Seed: cfg.Seed, HasSeed: true,
		Contract: contract, Extra: map[string]string{},
	}
	h.Extra["strategy"] = jsonString(string(cfg.Strategy))
	// The run creates its chats under ids of its own (a run prefix on
	// shared tables and on a user's service: cmd's runChatPrefix), so
	// only its clients write them: a final message none of them sent is
	// a phantom write (no_phantom_messages).
	h.Extra[history.SoleWriterField] = "true"
	if cfg.InitialCounter > 0 {
		// A chatseq extension the checker reads: sequences up to it
		// predate the run and are not its gaps.
		h.Extra[history.InitialCounterField] = strconv.FormatUint(cfg.InitialCounter, 10)
	}
	if cfg.ShardCount > 1 {
		h.Extra["shard"] = jsonString(fmt.Sprintf("%d/%d", cfg.ShardIndex, cfg.ShardCount))
	}
	if cfg.Variant != sequencer.Correct {
		h.Extra["variant"] = jsonString(string(cfg.Variant))
	}
	if w := target.VariantWindows(cfg.Timed); len(w) > 0 {
		h.Extra["variant_windows"] = jsonString(strings.Join(w, ", "))
	}
	if len(cfg.Claims) > 0 {
		h.Extra[history.ClaimsField] = history.EncodeClaims(cfg.Claims)
	}
	return h
}

func createChats(ctx context.Context, t target.Target, cfg Config) ([]string, error) {
	chats := make([]string, cfg.LocalChats())
	for i := range chats {
		chats[i] = cfg.ChatName(i)
	}
	members := chatMembers(&cfg, chats)
	for i := range chats {
		if err := t.CreateChat(ctx, chats[i], members[chats[i]]); err != nil {
			return nil, fmt.Errorf("creating %s: %w", chats[i], err)
		}
		if cfg.InitialCounter > 0 {
			if err := t.SetCounter(ctx, chats[i], cfg.InitialCounter); err != nil {
				return nil, fmt.Errorf("setting the counter of %s: %w", chats[i], err)
			}
		}
	}
	return chats, nil
}

func runWriters(ctx context.Context, cfg Config, target target.Target, rec *history.Recorder, lat *latencies, chats []string, res *Result, acked func(string, uint64, time.Time, time.Time)) {
	stop := make(chan struct{})
	stopWriters := sync.OnceFunc(func() { close(stop) })
	if cfg.Duration > 0 {
		timer := time.AfterFunc(cfg.Duration, stopWriters)
		defer timer.Stop()
	}
	writersDone := make(chan struct{})
	if cfg.Stop != nil {
		quit, exited := make(chan struct{}), make(chan struct{})
		var early bool
		go func() {
			defer close(exited)
			select {
			case <-cfg.Stop:
				// Early only if the writers were still at it: a violation
				// found once their duration was over stopped nothing.
				select {
				case <-stop:
				case <-writersDone:
				default:
					early = true
				}
				stopWriters()
			case <-quit:
			}
		}()
		defer func() { close(quit); <-exited; res.StoppedEarlyByStop = early }()
	}
	if cfg.MemoryCeiling > 0 {
		quit, watched := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(watched)
			res.StoppedForMemory = watchMemory(cfg.MemoryCeiling, quit, stopWriters)
		}()
		defer func() { close(quit); <-watched }()
	}
	// Readers follow the chats until the writers are done.
	waitReaders := startReaders(ctx, writersDone, stop, &cfg, target, rec, chats)
	interval := cfg.Interval()
	var ramp *Ramp
	if len(cfg.Stages) > 0 {
		ramp = NewRamp(cfg.Stages)
	}
	start := rec.At(res.Started)
	writers := make([]*writer, cfg.Writers)
	var wg sync.WaitGroup
	for i := range writers {
		writers[i] = newWriter(i, &cfg, target, rec, lat, chats)
		writers[i].acked = acked
		ops := 0
		if cfg.Ops > 0 {
			ops = cfg.Ops / cfg.Writers
			if i < cfg.Ops%cfg.Writers {
				ops++
			}
			if ops == 0 {
				continue
			}
		}
		wg.Add(1)
		var p pace // nil: closed loop
		switch {
		case ramp != nil:
			p = rampedPace{ramp: ramp, start: start, w: i, n: cfg.Writers}
		case interval > 0:
			p = steadyPace{first: start + int64(cfg.writerPhase(i)), interval: interval}
		}
		go func(w *writer, ops int) {
			defer wg.Done()
			w.run(ctx, stop, ops, start, p)
		}(writers[i], ops)
	}
	wg.Wait()
	close(writersDone)
	res.Readers = waitReaders()
	if interval > 0 || ramp != nil {
		for _, w := range writers {
			if w != nil {
				res.Lateness.add(w.lateness)
			}
		}
	}
}

func recordFinalState(ctx context.Context, t target.Target, chats []string, rec *history.Recorder, res *Result) error {
	// The walk hands items over in batches to encoders on every core:
	// after a long run each line's strings are cache misses, which one
	// goroutine would take one at a time. Each batch is written after the
	// one before it, so the file lists the final state in the walk's
	// order (each chat's messages in sequence order, which the check then
	// need not sort). Encoded batches come back for the walk to fill again.
	type job struct {
		finals        []history.Final
		before, after chan struct{} // the batch before is written; this one is
	}
	batches := make(chan job, runtime.GOMAXPROCS(0))
	spare := make(chan []history.Final, 2*runtime.GOMAXPROCS(0)+1)
	var encoders sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		encoders.Add(1)
		go func() {
			defer encoders.Done()
			for j := range batches {
				next := rec.RecordFinalBatch(j.finals, func() { <-j.before })
				close(j.after)
				select {
				case spare <- next:
				default: // the walk has all it can use: let it go
				}
			}
		}()
	}
	written := make(chan struct{})
	close(written)
	batch := make([]history.Final, 0, finalBatch)
	send := func() {
		j := job{finals: batch, before: written, after: make(chan struct{})}
		written = j.after
		batches <- j
	}
	add := func(f history.Final) {
		if batch = append(batch, f); len(batch) == finalBatch {
			send()
			select {
			case batch = <-spare:
			default:
				batch = make([]history.Final, 0, finalBatch)
			}
		}
	}
	var read TablesRead
	v := read.Visitor(func(f history.Final) {
		switch f.Table {
		case history.TableCounters:
			res.Allocations += int64(f.Value)
		case history.TableMessages:
			res.Persisted++
		}
		add(f)
	})
	err := store.Walk(ctx, t, chats, v)
	send()
	close(batches)
	encoders.Wait()
	res.CountersRead, res.MessagesRead = read.read&store.CountersTable != 0, read.read&store.MessagesTable != 0
	if err != nil {
		return fmt.Errorf("reading final state: %w", err)
	}
	return read.Record(rec)
}

// FinalVisitor hands each item of a store's state to add as the final line
// that records it.
func FinalVisitor(add func(history.Final)) store.StateVisitor {
	return store.StateVisitor{
		Counter: func(c store.Counter) {
			add(history.Final{Table: history.TableCounters, Chat: c.Chat, Value: c.Value, Missing: c.Missing})
		},
		Message: func(m store.Message) {
			f := history.Final{Table: history.TableMessages, Chat: m.Chat, Seq: m.Seq, MessageID: m.MessageID, Key: m.Key, Sender: m.Sender}
			if !m.ContentUnknown {
				// Hashed as the writers hash what they send, so the check
				// finds a message stored with other content.
				f.PayloadHash = target.PayloadHash(m.Content)
			}
			add(f)
		},
		Idempotency: func(r store.IdempotencyRecord) {
			add(history.Final{Table: history.TableIdempotency, Chat: r.Chat, Key: r.Key, Seq: r.Seq, MessageID: r.MessageID, Sender: r.Sender})
		},
	}
}

// finalBatch is how many final lines an encoder takes at a time.
const finalBatch = 4096

// recordEvents writes what the topic holds for this run's chats: shards of
// one run (or other runs) may share the topic, and their events are theirs.
func recordEvents(ctx context.Context, tail *kafka.Tail, chats []string, rec *history.Recorder, res *Result) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	events, err := tail.Finish(ctx)
	if err != nil {
		return err
	}
	mine := make(map[string]bool, len(chats))
	for _, c := range chats {
		mine[c] = true
	}
	// In batches, as the final state: a line at a time took a shard's
	// lock and, for the check, a copy of its own.
	batch := make([]history.Final, 0, finalBatch)
	for e := range events.All() {
		if !mine[e.Chat] {
			continue
		}
		res.Events++
		batch = append(batch, history.Final{Table: history.TableEvents, Chat: e.Chat, Seq: e.Seq, MessageID: e.MessageID, Partition: e.Partition, Offset: e.Offset})
		if len(batch) == finalBatch {
			batch = rec.RecordFinalBatch(batch, nil)
		}
	}
	rec.RecordFinalBatch(batch, nil)
	// The topic was read: no events for this run's chats is an answer.
	return rec.RecordTableRead(history.TableEvents, int(res.Events))
}

// jsonString encodes s as a JSON string, for the header's extra fields.
func jsonString(s string) string { return string(jsonstr.Append(nil, s)) }
