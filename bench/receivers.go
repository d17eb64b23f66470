package bench

import (
	"context"
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
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
	Devices    int   `json:"devices"`
	Connects   int64 `json:"connects"`
	Drops      int64 `json:"drops"`      // connections the nemesis dropped (--drop-connections-every)
	Reconnects int64 `json:"reconnects"` // after a drop or a connection the service ended
	DialErrors int64 `json:"dial_errors"`
	Pushes     int64 `json:"pushes"`   // push lines: a streamed frame's chat, or a catch-up page
	Received   int64 `json:"received"` // messages received, duplicates included
	// Deliveries are first receipts: (device, message) pairs.
	Deliveries int64 `json:"deliveries"`
	Duplicates int64 `json:"duplicates"`
	OutOfOrder int64 `json:"out_of_order"` // first receipts below a sequence the device already had
	Foreign    int64 `json:"foreign"`      // messages of a chat the device's user is not a member of
	Acks       int64 `json:"acks"`
	CatchUps   int64 `json:"catch_ups"` // §4 catch-ups of a chat (after each connect, and the settle)
	GapSyncs   int64 `json:"gap_syncs"` // syncs that settled a gap in the reorder buffer
	SyncErrors int64 `json:"sync_errors"`
	// FullyVisible are the messages every device of their chat received.
	FullyVisible int64 `json:"fully_visible"`
}

// receiverTally adds up the devices' counts and latencies while they run.
type receiverTally struct {
	connects, drops, reconnects, dialErrors              atomic.Int64
	pushes, received, deliveries, duplicates, outOfOrder atomic.Int64
	foreign, acks, catchUps, gapSyncs, syncErrors        atomic.Int64
	fullyVisible                                         atomic.Int64

	perChat int // devices of each chat
	shards  [histShards]visibilityShard
}

// visibilityShard holds the histograms and, for a share of the chats, how
// many devices have each message not yet fully visible.
type visibilityShard struct {
	mu      sync.Mutex
	fanOut  *hdrhistogram.Histogram
	full    *hdrhistogram.Histogram
	waiting map[string]map[uint64]int
}

var visibilitySeed = maphash.MakeSeed()

func newReceiverTally(perChat int) *receiverTally {
	t := &receiverTally{perChat: perChat}
	for i := range t.shards {
		t.shards[i] = visibilityShard{fanOut: newHistogram(), full: newHistogram(), waiting: map[string]map[uint64]int{}}
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
	lat := int64(-1)
	if !created.IsZero() {
		lat = max(now.Sub(created).Nanoseconds(), histLowest)
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if lat > 0 {
		_ = sh.fanOut.RecordValue(min(lat, histHighest))
	}
	seen := sh.waiting[chat]
	if seen == nil {
		seen = map[uint64]int{}
		sh.waiting[chat] = seen
	}
	n := seen[seq] + 1
	if n < t.perChat {
		seen[seq] = n
		return
	}
	delete(seen, seq)
	t.fullyVisible.Add(1)
	if lat > 0 {
		_ = sh.full.RecordValue(min(lat, histHighest))
	}
}

func (t *receiverTally) counts(devices int) ReceiverCounts {
	return ReceiverCounts{
		Devices: devices, Connects: t.connects.Load(), Drops: t.drops.Load(), Reconnects: t.reconnects.Load(),
		DialErrors: t.dialErrors.Load(), Pushes: t.pushes.Load(), Received: t.received.Load(),
		Deliveries: t.deliveries.Load(), Duplicates: t.duplicates.Load(), OutOfOrder: t.outOfOrder.Load(),
		Foreign: t.foreign.Load(), Acks: t.acks.Load(), CatchUps: t.catchUps.Load(), GapSyncs: t.gapSyncs.Load(),
		SyncErrors: t.syncErrors.Load(), FullyVisible: t.fullyVisible.Load(),
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
	tally   *receiverTally
	settle  chan struct{}
	wg      sync.WaitGroup
	stopNem chan struct{}
	nemDone chan struct{}
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
	r := &receivers{ch: ch, tally: newReceiverTally(cfg.Receivers), settle: make(chan struct{})}
	for _, c := range chats {
		for k := range cfg.Receivers {
			r.devices = append(r.devices, newDevice(ReceiverUser(c, k), []string{c}, ch, rec, r.tally, cfg.SyncLimit))
		}
	}
	for _, d := range r.devices {
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
				case <-tick.C:
					for _, d := range r.devices {
						d.dropNow()
					}
				}
			}
		}()
	}
	return r
}

// Settle stops the nemesis, waits until the service has offered every
// device what it published, and has each device settle; it returns the
// devices' counts.
func (r *receivers) Settle(ctx context.Context) (ReceiverCounts, error) {
	if r.stopNem != nil {
		close(r.stopNem)
		<-r.nemDone
	}
	err := r.ch.Quiesce(ctx)
	close(r.settle)
	r.wg.Wait()
	if err != nil {
		err = fmt.Errorf("receivers: %w", err)
	}
	for _, d := range r.devices {
		if !d.connected {
			return r.tally.counts(len(r.devices)), fmt.Errorf("receivers: device %s never connected to the push channel: %v", d.id, d.dialErr)
		}
	}
	return r.tally.counts(len(r.devices)), err
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
