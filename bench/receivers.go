package bench

import (
	"cmp"
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/target"
)

// Receivers are the delivery plane's clients (bench --receivers): each
// chat gets Config.Receivers members of its own besides the writers, one
// device each, connected to the target's push channel (in process for an
// embedded target, GET /v1/push for a service). What they see is recorded
// with the history's receiver lines, so the check judges the four
// delivery invariants.

// ReceiverUser is the k-th receiving member of chat.
func ReceiverUser(chat string, k int) string { return chat + "-m" + strconv.Itoa(k) }

// ReceiverCounts are what the devices did and saw.
type ReceiverCounts struct {
	Devices int `json:"devices"`
	// Outsiders are the outsider and anonymous devices besides them
	// (--outsider-devices, --anonymous-devices), users of no chat;
	// Refused their handshakes the service refused. Their connects,
	// pushes and foreign messages count with the devices'.
	Outsiders  int   `json:"outsiders"`
	Refused    int64 `json:"refused"`
	StateReads int64 `json:"state_reads"` // their reads of a chat's delivery_state, answered or refused
	Connects   int64 `json:"connects"`
	Drops      int64 `json:"drops"`      // connections the nemesis dropped (--drop-connections-every)
	Reconnects int64 `json:"reconnects"` // after a drop or a connection the service ended
	Ended      int64 `json:"ended"`      // connections the service ended (closed or broke off)
	DialErrors int64 `json:"dial_errors"`
	Pushes     int64 `json:"pushes"`   // push lines: a streamed frame's chat, or a catch-up page
	Received   int64 `json:"received"` // messages received, duplicates included
	// Deliveries are first receipts: (device, message) pairs; CaughtUp
	// those a catch-up sync brought rather than the stream (all of them:
	// a push channel that streams nothing).
	Deliveries int64 `json:"deliveries"`
	CaughtUp   int64 `json:"caught_up"`
	// CreatedAhead are first receipts whose created_at came after the
	// receipt (the service's clock ahead of chatseq's, or not the
	// message's creation): their fan-out is not measured, where it was
	// taken as 1 ns, a perfect figure any threshold accepted.
	CreatedAhead int64 `json:"created_ahead"`
	// CreatedOutside are first receipts of a message a writer created
	// whose created_at fell outside its send (before the persist was
	// sent, or after its ok came on chatseq's clock): the service's clock
	// is off. Their fan-out is timed from the send's nearer end, not
	// from created_at (a clock 300 ms ahead took 300 ms off every figure
	// and passed fan_out.p99 < 100ms over 300 ms of real fan-out).
	CreatedOutside int64 `json:"created_outside"`
	Duplicates     int64 `json:"duplicates"`
	OutOfOrder     int64 `json:"out_of_order"` // first receipts below a sequence the device already had
	Foreign        int64 `json:"foreign"`      // messages of a chat the device's user is not a member of
	Acks           int64 `json:"acks"`
	CatchUps       int64 `json:"catch_ups"` // §4 catch-ups of a chat (after each connect, and the settle)
	GapSyncs       int64 `json:"gap_syncs"` // syncs that settled a gap in the reorder buffer
	SyncErrors     int64 `json:"sync_errors"`
	// CatchUpsCut are catch-ups cut short because the service paged for
	// ever (a full page not past the one before, or more messages than
	// the chat can hold); the device caught that chat up no more.
	CatchUpsCut int64 `json:"catch_ups_cut"`
	// PushesCut are messages pushed on a connection past the most their
	// chat can hold (a service that pushes for ever): counted, neither
	// recorded nor shown.
	PushesCut int64 `json:"pushes_cut"`
	// FullyVisible are the messages every device of their chat received.
	FullyVisible int64 `json:"fully_visible"`
	// StreamOwing are the devices that settled with messages their open
	// connection had not streamed, only a sync brought, after waiting for
	// the stream (5 s at most): a push channel holding messages back, as
	// stream_completeness judges.
	StreamOwing int64 `json:"stream_owing"`
}

// receiverTally adds up the devices' counts and latencies while they run.
type receiverTally struct {
	connects, drops, reconnects, dialErrors              atomic.Int64
	pushes, received, deliveries, duplicates, outOfOrder atomic.Int64
	foreign, acks, catchUps, gapSyncs, syncErrors        atomic.Int64
	catchUpsCut, pushesCut, ended                        atomic.Int64
	fullyVisible, caughtUp, createdAhead, createdOutside atomic.Int64
	streamOwing, refused, stateReads                     atomic.Int64

	perChat int // devices of each chat
	shards  [histShards]visibilityShard

	// The latencies over time: receipts are dated from start (unix
	// nanoseconds, set when the writers start; a receipt before it counts
	// in the first interval) in intervals of every.
	start   atomic.Int64
	every   time.Duration
	observe *metrics.Delivery // the live metrics (nil: not exported)

	dropMu  sync.Mutex
	strikes []DropWindow // the nemesis' drops, in order
}

// DeliveryInterval is the fan-out and full-visibility latencies of the
// receipts in one interval of the run (dated by receipt, since the
// writers started; the settle's fall in the intervals after the writers').
type DeliveryInterval struct {
	Start, Length time.Duration
	FanOut, Full  *hdrhistogram.PackedHistogram
}

// DropWindow is one strike of the connection nemesis
// (--drop-connections-every), since the writers started: every device was
// told to drop at Start, and the last of them had reconnected and caught
// up at End.
type DropWindow struct {
	Start, End time.Duration
}

// maxDeliveryIntervals bounds the latency series a run keeps: a longer
// run's intervals are merged.
const maxDeliveryIntervals = MaxFineIntervals

// visibilityShard holds the histograms and, for a share of the chats, how
// many devices have each message not yet fully visible.
type visibilityShard struct {
	mu      sync.Mutex
	fanOut  *hdrhistogram.Histogram
	full    *hdrhistogram.Histogram
	waiting map[string]map[uint64]int
	// sent are the send windows of the shard's chats' messages, by
	// sequence, until the message is fully visible (or sendWindowsKept
	// sequences later: one fully visible before its ok came).
	sent map[string]map[uint64]sendWindow
	// The share of the latency series this shard recorded, by interval;
	// nil where it recorded nothing.
	fanSeries, fullSeries []*hdrhistogram.PackedHistogram
}

var visibilitySeed = maphash.MakeSeed()

func newReceiverTally(perChat int, every time.Duration, observe *metrics.Delivery) *receiverTally {
	t := &receiverTally{perChat: perChat, every: every, observe: observe}
	for i := range t.shards {
		t.shards[i] = visibilityShard{fanOut: newHistogram(), full: newHistogram(), waiting: map[string]map[uint64]int{}, sent: map[string]map[uint64]sendWindow{}}
	}
	return t
}

// firstReceipt is a device's first receipt of (chat, seq), created at
// created (zero: unknown) and received at now: its fan-out latency, and
// the message's full-visibility latency when it was the chat's last
// device to receive it.
func (t *receiverTally) firstReceipt(chat string, seq uint64, created, now time.Time) {
	t.deliveries.Add(1)
	sh := &t.shards[maphash.String(visibilitySeed, chat)%histShards]
	i := t.intervalAt(now)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if w, ok := sh.sent[chat][seq]; ok {
		created = w.created(created, &t.createdOutside)
	}
	lat := int64(-1)
	switch {
	case created.IsZero():
	case created.After(now):
		t.createdAhead.Add(1)
	default:
		lat = max(now.Sub(created).Nanoseconds(), histLowest)
	}
	if lat > 0 {
		_ = sh.fanOut.RecordValue(min(lat, histHighest))
		_ = seriesAt(&sh.fanSeries, i).RecordValue(min(lat, histHighest))
	}
	seen := sh.waiting[chat]
	if seen == nil {
		seen = map[uint64]int{}
		sh.waiting[chat] = seen
	}
	n := seen[seq] + 1
	last := n >= t.perChat
	if lat > 0 {
		t.observe.Receipt(time.Duration(lat), last)
	}
	if !last {
		seen[seq] = n
		return
	}
	delete(seen, seq)
	delete(sh.sent[chat], seq)
	t.fullyVisible.Add(1)
	if lat > 0 {
		_ = sh.full.RecordValue(min(lat, histHighest))
		_ = seriesAt(&sh.fullSeries, i).RecordValue(min(lat, histHighest))
	}
}

// sendWindow is when a writer sent the persist that created a message
// and when its ok came, on this process's clock: the message was created
// in between, whatever the service's clock wrote in its created_at.
type sendWindow struct{ invoke, ack time.Time }

// sendWindowsKept bounds a chat's send windows: a message fully visible
// before its ok came keeps its window until the chat's sequence is this
// far past it.
const sendWindowsKept = 4096

// created is when the message was created as far as chatseq can tell:
// createdAt (the service's) where it falls in the window, else the
// window's nearer end (the ok, for a message without one), counted in
// outside.
func (w sendWindow) created(createdAt time.Time, outside *atomic.Int64) time.Time {
	switch {
	case createdAt.IsZero():
		return w.ack
	case createdAt.Before(w.invoke):
		outside.Add(1)
		return w.invoke
	case createdAt.After(w.ack):
		outside.Add(1)
		return w.ack
	}
	return createdAt
}

// acked notes a new message's send window, the first ok's for its
// sequence; receipts from then on are timed against it.
func (t *receiverTally) acked(chat string, seq uint64, invoke, ack time.Time) {
	sh := &t.shards[maphash.String(visibilitySeed, chat)%histShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	windows := sh.sent[chat]
	if windows == nil {
		windows = map[uint64]sendWindow{}
		sh.sent[chat] = windows
	}
	if _, ok := windows[seq]; !ok {
		windows[seq] = sendWindow{invoke: invoke, ack: ack}
	}
	if seq > sendWindowsKept {
		delete(windows, seq-sendWindowsKept)
	}
	// And swept: over gaps (a sequence stepping by 3, or by 65,536)
	// sequence-4096 misses the windows in between, and each one whose
	// message was fully visible before its ok was kept for the whole run.
	if len(windows) > 2*sendWindowsKept && seq > sendWindowsKept {
		for s := range windows {
			if s < seq-sendWindowsKept {
				delete(windows, s)
			}
		}
	}
}

// begin dates the latency series from now: the writers start.
func (t *receiverTally) begin(now time.Time) { t.start.Store(now.UnixNano()) }

// intervalAt is the interval of the latency series a receipt at now
// falls in.
func (t *receiverTally) intervalAt(now time.Time) int {
	start := t.start.Load()
	if start == 0 || now.UnixNano() < start {
		return 0
	}
	return int((now.UnixNano() - start) / int64(t.every))
}

// since is now on the series' clock.
func (t *receiverTally) since(now time.Time) time.Duration {
	start := t.start.Load()
	if start == 0 {
		return 0
	}
	return max(0, time.Duration(now.UnixNano()-start))
}

// seriesAt is interval i's histogram of a shard's series, made on first use.
func seriesAt(s *[]*hdrhistogram.PackedHistogram, i int) *hdrhistogram.PackedHistogram {
	for len(*s) <= i {
		*s = append(*s, nil)
	}
	if (*s)[i] == nil {
		(*s)[i] = NewIntervalHistogram()
	}
	return (*s)[i]
}

// dropped starts a drop window at now and returns its index.
func (t *receiverTally) dropped(now time.Time) int {
	at := t.since(now)
	t.dropMu.Lock()
	defer t.dropMu.Unlock()
	t.strikes = append(t.strikes, DropWindow{Start: at, End: at})
	return len(t.strikes) - 1
}

// recovered says a device dropped in window i had reconnected and caught
// up at now.
func (t *receiverTally) recovered(i int, now time.Time) {
	at := t.since(now)
	t.dropMu.Lock()
	defer t.dropMu.Unlock()
	if i >= 0 && i < len(t.strikes) {
		t.strikes[i].End = max(t.strikes[i].End, at)
	}
}

// dropWindows are the nemesis' strikes so far.
func (t *receiverTally) dropWindows() []DropWindow {
	t.dropMu.Lock()
	defer t.dropMu.Unlock()
	return slices.Clone(t.strikes)
}

// series merges the shards' latencies over time into intervals of at
// least every, at most maxDeliveryIntervals of them.
func (t *receiverTally) series() []DeliveryInterval {
	n := 0
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		n = max(n, len(sh.fanSeries), len(sh.fullSeries))
		sh.mu.Unlock()
	}
	if n == 0 {
		return nil
	}
	k := (n + maxDeliveryIntervals - 1) / maxDeliveryIntervals
	out := make([]DeliveryInterval, (n+k-1)/k)
	for j := range out {
		out[j] = DeliveryInterval{
			Start: time.Duration(j*k) * t.every, Length: time.Duration(k) * t.every,
			FanOut: NewIntervalHistogram(), Full: NewIntervalHistogram(),
		}
	}
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		for x, h := range sh.fanSeries {
			if h != nil {
				out[x/k].FanOut.Merge(h)
			}
		}
		for x, h := range sh.fullSeries {
			if h != nil {
				out[x/k].Full.Merge(h)
			}
		}
		sh.mu.Unlock()
	}
	return out
}

func (t *receiverTally) counts(devices, outsiders int) ReceiverCounts {
	return ReceiverCounts{
		Devices: devices, Outsiders: outsiders, Refused: t.refused.Load(), StateReads: t.stateReads.Load(), Connects: t.connects.Load(), Drops: t.drops.Load(), Reconnects: t.reconnects.Load(),
		DialErrors: t.dialErrors.Load(), Pushes: t.pushes.Load(), Received: t.received.Load(),
		Deliveries: t.deliveries.Load(), Duplicates: t.duplicates.Load(), OutOfOrder: t.outOfOrder.Load(),
		CaughtUp: t.caughtUp.Load(), CreatedAhead: t.createdAhead.Load(), CreatedOutside: t.createdOutside.Load(),
		Foreign: t.foreign.Load(), Acks: t.acks.Load(), CatchUps: t.catchUps.Load(), GapSyncs: t.gapSyncs.Load(),
		SyncErrors: t.syncErrors.Load(), CatchUpsCut: t.catchUpsCut.Load(), PushesCut: t.pushesCut.Load(), Ended: t.ended.Load(), FullyVisible: t.fullyVisible.Load(), StreamOwing: t.streamOwing.Load(),
	}
}

// histograms merges the shards' fan-out and full-visibility latencies.
func (t *receiverTally) histograms() (fanOut, full *hdrhistogram.Histogram) {
	fanOut, full = newHistogram(), newHistogram()
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		fanOut.Merge(sh.fanOut)
		full.Merge(sh.full)
		sh.mu.Unlock()
	}
	return fanOut, full
}

// receivers are the run's devices while they run.
type receivers struct {
	ch      gateway.Channel
	devices []*device
	// outsiders are the outsider and anonymous devices: dialled with the
	// devices and settled with them, owed nothing, never struck by the
	// nemesis.
	outsiders []*device
	tally     *receiverTally
	settle    chan struct{}
	ready     sync.WaitGroup // a device each, until its first connect and catch-up
	// firstDials: a device each, until its first handshake ended;
	// connected: one of them connected; firstRefusal: the first
	// handshake's error when none did.
	firstDials   sync.WaitGroup
	connected    atomic.Bool
	refusalMu    sync.Mutex
	firstRefusal error
	wg           sync.WaitGroup
	stopNem      chan struct{}
	nemDone      chan struct{}
	// writersEnd is when a --duration run's writers stop (unix ns; 0:
	// not known, or not started): the nemesis strikes no later than one
	// interval before it (writersStart).
	writersEnd atomic.Int64
	// The scheduled drop_connections and slow_receivers faults.
	stopSched, schedDone chan struct{}
}

// chatMembers are each chat's members: the writers and its receivers.
func chatMembers(cfg *Config, chats []string) map[string][]string {
	out := make(map[string][]string, len(chats))
	for _, c := range chats {
		m := make([]string, 0, cfg.Writers+cfg.Receivers)
		for w := range cfg.Writers {
			m = append(m, SenderID(w))
		}
		for k := range cfg.Receivers {
			m = append(m, ReceiverUser(c, k))
		}
		out[c] = m
	}
	return out
}

// newOutsider is a device of user, a member of no chat, on ch: an
// outsider device, or, anonymous, one whose handshake names no user.
func newOutsider(user string, anonymous bool, ch gateway.Channel, rec *history.Recorder, tally *receiverTally) *device {
	d := newDevice(user, nil, ch, rec, tally, 1)
	d.outsider, d.anonymous = true, anonymous
	return d
}

// recordJoins writes a join line for every member of every chat: members
// from the start, before the first operation.
func recordJoins(rec *history.Recorder, chats []string, members map[string][]string) {
	for _, c := range chats {
		for _, u := range members[c] {
			rec.RecordReceiver(&history.Receiver{Kind: history.KindJoin, Chat: c, User: u})
		}
	}
}

// startReceivers connects every device (each catches up first) and
// starts the connection nemesis; Settle ends them.
func startReceivers(ctx context.Context, cfg *Config, ch gateway.Channel, rec *history.Recorder, chats []string) *receivers {
	r := &receivers{ch: ch, tally: newReceiverTally(cfg.Receivers, IntervalFor(cfg), cfg.Metrics.Delivery()), settle: make(chan struct{})}
	for _, c := range chats {
		for k := range cfg.Receivers {
			r.devices = append(r.devices, newDevice(ReceiverUser(c, k), []string{c}, ch, rec, r.tally, cfg.SyncLimit))
		}
	}
	dials := make(chan struct{}, maxConcurrentDials)
	_, readsState := ch.(gateway.StateReaderAs)
	for k := range cfg.OutsiderDevices {
		d := newOutsider(OutsiderDeviceUser(k), false, ch, rec, r.tally)
		if readsState && cfg.outsiderStateReads && len(chats) > 0 {
			d.stateChat = chats[k%len(chats)]
		}
		r.outsiders = append(r.outsiders, d)
	}
	if gateway.Anonymous(ch) != nil {
		for k := range cfg.AnonymousDevices {
			r.outsiders = append(r.outsiders, newOutsider(AnonymousDeviceUser(k), true, ch, rec, r.tally))
		}
	}
	for _, d := range r.outsiders {
		// The writers wait for them as for the devices, so that what
		// they send reaches them too; a refusal is their connect.
		r.ready.Add(1)
		d.dials, d.ready = dials, sync.OnceFunc(r.ready.Done)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			d.run(ctx, r.settle)
		}()
	}
	for _, d := range r.devices {
		r.ready.Add(1)
		r.firstDials.Add(1)
		d.dials, d.ready = dials, sync.OnceFunc(r.ready.Done)
		d.firstDial = func(err error) {
			defer r.firstDials.Done()
			if err == nil {
				r.connected.Store(true)
				return
			}
			r.refusalMu.Lock()
			if r.firstRefusal == nil {
				r.firstRefusal = err
			}
			r.refusalMu.Unlock()
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			d.run(ctx, r.settle)
		}()
	}
	if every := cfg.DropConnectionsEvery; every > 0 {
		r.stopNem, r.nemDone = make(chan struct{}), make(chan struct{})
		go func() {
			defer close(r.nemDone)
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-r.stopNem:
					return
				case <-ctx.Done():
					return
				case now := <-tick.C:
					// The last strike leaves each device's last connection
					// an interval, and LastConnectionOpen after it is back.
					if end := r.writersEnd.Load(); end != 0 && now.Add(max(every, cfg.DropConnectionsFor+target.LastConnectionOpen)).UnixNano() > end {
						continue
					}
					r.dropAll(now, cfg.DropConnectionsFor)
				}
			}
		}()
	}
	return r
}

// writersStart says the writers started at start and, for a --duration
// run, stop after it. The connection nemesis then strikes no later than
// one interval, and no later than target.LastConnectionOpen after the
// devices are back, before their end, so each device's last connection
// before its settle is open while messages are still sent, long enough
// for stream_completeness to judge: a strike at the very end (a duration
// that is a multiple of the interval) left none, and one under 2 s before
// it a connection too short to owe anything (push channels streaming one
// frame in twenty, or each chat to its first device only, passed; found
// by outside testers).
func (r *receivers) writersStart(start time.Time, d time.Duration) {
	r.tally.begin(start)
	if d > 0 {
		r.writersEnd.Store(start.Add(d).UnixNano())
	}
}

// maxConcurrentDials bounds the handshakes in flight: ten thousand at
// once time out on a busy service and retry as a herd.
const maxConcurrentDials = 256

// readyWait bounds how long the writers wait for n devices to connect
// and catch up; past it they start anyway, and Settle names a device that
// never connected.
func readyWait(n int) time.Duration { return time.Minute + time.Duration(n)*10*time.Millisecond }

// waitReady waits until every device has connected and caught up once
// (or given up), so that the writers send to connected receivers; at
// most readyWait, or until ctx ends.
//
// Once every device's first handshake has failed, it waits no more, and
// its error names the first failure: a push channel no device can open
// (a handshake answered 200, a wrong Sec-WebSocket-Accept, one that
// hangs) let the whole run go, to fail with no verdict after it (and a
// hanging handshake held the writers back a minute first). It is also an
// error when no device has connected by the end of the wait.
func (r *receivers) waitReady(ctx context.Context) error {
	done, failed := make(chan struct{}), make(chan struct{})
	go func() {
		r.ready.Wait()
		close(done)
	}()
	go func() {
		r.firstDials.Wait()
		if !r.connected.Load() {
			close(failed)
		}
	}()
	t := time.NewTimer(readyWait(len(r.devices)))
	defer t.Stop()
	select {
	case <-done:
	case <-failed:
	case <-t.C:
	case <-ctx.Done():
		return nil
	}
	if len(r.devices) == 0 || r.connected.Load() {
		return nil
	}
	r.refusalMu.Lock()
	defer r.refusalMu.Unlock()
	if r.firstRefusal == nil {
		return fmt.Errorf("receivers: no device connected to the push channel within %s", readyWait(len(r.devices)))
	}
	return fmt.Errorf("receivers: no device could connect to the push channel, so the run would judge no delivery; the first handshake: %w", r.firstRefusal)
}

// abandon stops the devices of a run that will not go on: they stop
// dialling, and record nothing more.
func (r *receivers) abandon() {
	r.stopFaults()
	close(r.settle)
	r.wg.Wait()
}

// stopFaults stops the connection nemesis and the scheduled faults on
// the devices, and waits until they have.
func (r *receivers) stopFaults() {
	if r.stopNem != nil {
		close(r.stopNem)
		<-r.nemDone
	}
	if r.stopSched != nil {
		close(r.stopSched)
		<-r.schedDone
	}
}

// Settle stops the nemesis, waits until the service has offered every
// device what it published, and has each device settle; it returns the
// devices' counts.
func (r *receivers) Settle(ctx context.Context) (ReceiverCounts, error) {
	r.stopFaults()
	err := r.ch.Quiesce(ctx)
	close(r.settle)
	r.wg.Wait()
	if err != nil {
		err = fmt.Errorf("receivers: %w", err)
	}
	counts := r.tally.counts(len(r.devices), len(r.outsiders))
	for _, d := range r.devices {
		if !d.connected {
			return counts, fmt.Errorf("receivers: device %s never connected to the push channel: %v", d.id, d.dialErr)
		}
	}
	return counts, err
}

// recordDeliveryState writes the final delivery_state table of chats and
// its table_read line.
func recordDeliveryState(ctx context.Context, ch gateway.Channel, chats []string, rec *history.Recorder) error {
	n := 0
	for _, c := range chats {
		rows, err := ch.DeliveryStates(ctx, c)
		if err != nil {
			return fmt.Errorf("reading delivery_state of %s: %w", c, err)
		}
		for _, row := range rows {
			rec.RecordReceiver(&history.Receiver{Kind: history.KindFinal, Chat: c, User: row.UserID, Seq: row.LastAckedSequence})
			n++
		}
	}
	return rec.RecordTableRead(history.TableDeliveryState, n)
}

// dropAll drops every device's connection at now, each offline for
// offline, as one drop window.
func (r *receivers) dropAll(now time.Time, offline time.Duration) {
	w := r.tally.dropped(now)
	for _, d := range r.devices {
		d.dropNow(w, offline)
	}
}

// scheduleFaults strikes the devices at the scheduled drop_connections
// and slow_receivers faults, timed from now (the writers' start), until
// Settle.
func (r *receivers) scheduleFaults(ctx context.Context, timed []target.TimedFault) {
	var mine []target.TimedFault
	for _, f := range timed {
		if slices.Contains(target.ReceiverKinds(), f.Kind) {
			mine = append(mine, f)
		}
	}
	if len(mine) == 0 {
		return
	}
	slices.SortStableFunc(mine, func(a, b target.TimedFault) int { return cmp.Compare(a.At, b.At) })
	r.stopSched, r.schedDone = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(r.schedDone)
		for _, f := range mine {
			t := time.NewTimer(time.Until(start.Add(f.At)))
			select {
			case <-r.stopSched:
				t.Stop()
				return
			case <-ctx.Done():
				t.Stop()
				return
			case now := <-t.C:
				if f.Kind == target.DropConnections {
					r.dropAll(now, f.For)
					continue
				}
				for _, d := range r.devices {
					d.pauseNow(f.For)
				}
			}
		}
	}()
}
