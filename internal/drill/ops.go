package drill

import (
	"context"
	"sync"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// recorder is what the drill's operations share: the core, the history and
// the observer that the controller waits on.
type recorder struct {
	core *sequencer.Core
	rec  *history.Recorder
	obs  *observer
	chat string
	live *metrics.Recorder // nil: no --metrics-addr
}

// outcome is one completed persist, as the client saw it.
type outcome struct {
	kind  history.Kind
	code  string
	seq   uint64
	dedup bool
	time  int64 // the completion's time on the recorder's clock
}

// persist records one persist attempt by process pid: invoke, the core's
// allocate traces, then ok/fail/info.
func (r *recorder) persist(ctx context.Context, pid int, req sequencer.Request) outcome {
	req.Chat = r.chat
	if req.Content == "" {
		req.Content = "message " + req.Key
	}
	req.PayloadHash = target.PayloadHash(req.Content)
	r.rec.Record(&history.Event{
		Kind: history.KindInvoke, Process: pid, F: history.FPersist, Chat: req.Chat,
		Key: req.Key, Sender: req.Sender, PayloadHash: req.PayloadHash,
	})
	out, err := r.core.Persist(ctx, req, history.ProcessTracer{Rec: r.rec, Process: pid})
	ev := history.Event{Process: pid, F: history.FPersist, Chat: req.Chat, Key: req.Key}
	ev.Kind, ev.Error = target.Completion(err)
	if ev.Kind == history.KindOK {
		ev.Seq, ev.MessageID, ev.Dedup = out.Seq, out.MessageID, out.Dedup
	}
	o := outcome{kind: ev.Kind, code: ev.Error, seq: ev.Seq, dedup: ev.Dedup}
	o.time = r.rec.Record(&ev)
	op := metrics.PersistOp(ev.Kind, ev.Error, out, req.Faults.Any(), 0)
	r.live.Record(&op)
	r.obs.saw(o)
	return o
}

// sync records one sync of the drill's chat after `after`.
func (r *recorder) sync(ctx context.Context, pid int, after uint64, limit int) (history.Kind, uint64) {
	r.rec.Record(&history.Event{
		Kind: history.KindInvoke, Process: pid, F: history.FSync, Chat: r.chat, After: after, Limit: limit,
	})
	msgs, err := r.core.Sync(ctx, r.chat, after, limit)
	ev := history.Event{Process: pid, F: history.FSync, Chat: r.chat}
	last := after
	ev.Kind, ev.Error = target.Completion(err)
	if ev.Kind == history.KindOK {
		ev.Sync = target.SyncResultOf(msgs)
		for _, m := range msgs {
			last = max(last, m.Seq)
		}
	}
	r.rec.Record(&ev)
	r.live.Record(&metrics.Op{Sync: true, Outcome: metrics.OutcomeOf(ev.Kind), Code: ev.Error, Chat: -1})
	return ev.Kind, last
}

// observer is what the controller learns from completions while the load
// runs: when the first counter_missing came back and how many new messages
// were acknowledged (in all, and since the recovery was written). A trigger
// runs inside the completion that satisfies its condition, so the drill can
// pause or stop writers within one operation of a target, however fast the
// store.
type observer struct {
	mu           sync.Mutex
	acks         int
	since        int64 // acks completed after this time count in acksSince; -1: not yet
	acksSince    int
	firstMissing int64 // -1 until a counter_missing completion
	triggers     []*trigger
}

type trigger struct {
	cond  func(*observer) bool
	fire  func()
	fired chan struct{}
}

func newObserver() *observer {
	return &observer{since: -1, firstMissing: -1}
}

func (o *observer) saw(out outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if out.kind == history.KindOK && !out.dedup {
		o.acks++
		if o.since >= 0 && out.time > o.since {
			o.acksSince++
		}
	}
	if out.code == sequencer.CodeCounterMissing && o.firstMissing < 0 {
		o.firstMissing = out.time
	}
	o.runTriggers()
}

// runTriggers fires, once each, the triggers whose condition now holds; mu
// is held.
func (o *observer) runTriggers() {
	kept := o.triggers[:0]
	for _, t := range o.triggers {
		if !t.cond(o) {
			kept = append(kept, t)
			continue
		}
		if t.fire != nil {
			t.fire()
		}
		close(t.fired)
	}
	clear(o.triggers[len(kept):])
	o.triggers = kept
}

// countFrom starts counting acks that complete after t.
func (o *observer) countFrom(t int64) {
	o.mu.Lock()
	o.since, o.acksSince = t, 0
	o.mu.Unlock()
}

// when runs fire (if not nil; under the observer's lock, so it must not
// block) as soon as cond holds, and waits for that or ctx's end.
func (o *observer) when(ctx context.Context, cond func(*observer) bool, fire func()) error {
	t := &trigger{cond: cond, fire: fire, fired: make(chan struct{})}
	o.mu.Lock()
	o.triggers = append(o.triggers, t)
	o.runTriggers()
	o.mu.Unlock()
	select {
	case <-t.fired:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
