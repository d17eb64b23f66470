package recovery_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/chatseq/chatseq/recovery"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

const chat = "chat-r"

// chatWith creates chat with n persisted messages through the real core and
// returns the store and core.
func chatWith(t *testing.T, n int) (store.Store, *sequencer.Core) {
	t.Helper()
	st := memstore.New()
	core, err := sequencer.New(sequencer.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := core.CreateChat(ctx, chat, []string{"alice"}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		send(t, core, fmt.Sprintf("k%d", i))
	}
	return st, core
}

func send(t *testing.T, core *sequencer.Core, key string) uint64 {
	t.Helper()
	out, err := core.Persist(context.Background(), sequencer.Request{Chat: chat, Key: key, Sender: "alice", Content: key}, nil)
	if err != nil {
		t.Fatalf("persist %s: %v", key, err)
	}
	return out.Seq
}

func counter(t *testing.T, st store.Store) store.Counter {
	t.Helper()
	c, err := st.GetCounter(context.Background(), chat, true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMissingCounterIsRecreatedAtMaxAndNextSendGetsMaxPlusOne(t *testing.T) {
	st, core := chatWith(t, 5)
	ctx := context.Background()
	if err := st.DeleteCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	_, err := core.Persist(ctx, sequencer.Request{Chat: chat, Key: "during", Sender: "alice"}, nil)
	if e := sequencer.AsError(err); e.Code != sequencer.CodeCounterMissing || !e.Definite {
		t.Fatalf("send with the counter gone: got %v, want a definite counter_missing", err)
	}

	p, err := recovery.Plan(ctx, st, chat)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if p.Action != recovery.PutCounter || p.Value != 5 || p.MaxSequence != 5 || !p.Counter.Missing {
		t.Fatalf("Plan = %+v, want put_counter at 5 with the counter missing", p)
	}
	if c := counter(t, st); !c.Missing {
		t.Fatalf("Plan wrote the counter (%d): it must only read", c.Value)
	}
	res, err := recovery.Apply(ctx, st, p)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if !res.Written || res.Value != 5 {
		t.Fatalf("Apply = %+v, want written at 5", res)
	}
	if c := counter(t, st); c.Missing || c.Value != 5 {
		t.Fatalf("counter after Apply = %+v, want 5", c)
	}
	if seq := send(t, core, "after"); seq != 6 {
		t.Fatalf("first send after recovery got seq %d, want max+1 = 6", seq)
	}
}

func TestMissingCounterOfEmptyChatIsRecreatedAtZero(t *testing.T) {
	st, core := chatWith(t, 0)
	ctx := context.Background()
	if err := st.DeleteCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	p, err := recovery.Plan(ctx, st, chat)
	if err != nil || p.Action != recovery.PutCounter || p.Value != 0 {
		t.Fatalf("Plan = %+v, %v; want put_counter at 0", p, err)
	}
	if _, err := recovery.Apply(ctx, st, p); err != nil {
		t.Fatal(err)
	}
	if seq := send(t, core, "first"); seq != 1 {
		t.Fatalf("first send got %d, want 1", seq)
	}
}

func TestExistingCounterIsRefusedAndLeftAlone(t *testing.T) {
	st, core := chatWith(t, 3)
	ctx := context.Background()
	// A gap above the max (an allocation that never persisted) is normal:
	// the counter is ahead of the messages and must not be lowered.
	if _, err := core.Persist(ctx, sequencer.Request{Chat: chat, Key: "crash", Sender: "alice",
		Faults: sequencer.FaultPlan{CrashAfterAllocate: true}}, nil); err == nil {
		t.Fatal("the injected crash did not fail the persist")
	}
	p, err := recovery.Plan(ctx, st, chat)
	if !errors.Is(err, recovery.ErrCounterExists) {
		t.Fatalf("Plan error = %v, want ErrCounterExists", err)
	}
	if p.Action != recovery.Nothing || p.Counter.Value != 4 || p.MaxSequence != 3 {
		t.Fatalf("Plan = %+v, want nothing (counter 4, max 3)", p)
	}
	if _, err := recovery.Apply(ctx, st, p); !errors.Is(err, recovery.ErrCounterExists) {
		t.Fatalf("Apply of a nothing plan = %v, want ErrCounterExists", err)
	}
	if c := counter(t, st); c.Value != 4 {
		t.Fatalf("counter = %d after a refused recovery, want 4 unchanged", c.Value)
	}
}

func TestCounterBelowMaxIsInconsistentAndNotWritten(t *testing.T) {
	st, _ := chatWith(t, 4)
	ctx := context.Background()
	if err := st.PutCounter(ctx, store.Counter{Chat: chat, Value: 2}, store.Unconditional); err != nil {
		t.Fatal(err)
	}
	p, err := recovery.Plan(ctx, st, chat)
	var inc *recovery.InconsistentCounterError
	if !errors.As(err, &inc) || inc.Counter != 2 || inc.MaxSequence != 4 {
		t.Fatalf("Plan error = %v, want InconsistentCounterError{2, 4}", err)
	}
	if p.Action != recovery.Nothing {
		t.Fatalf("Plan action = %s, want nothing", p.Action)
	}
	if _, err := recovery.Apply(ctx, st, p); err == nil {
		t.Fatal("Apply wrote over an inconsistent counter")
	}
	if c := counter(t, st); c.Value != 2 {
		t.Fatalf("counter = %d, want 2 untouched (report, never write)", c.Value)
	}
}

func TestApplyAcceptsACounterRecreatedMeanwhileAtOrAboveMax(t *testing.T) {
	st, _ := chatWith(t, 3)
	ctx := context.Background()
	if err := st.DeleteCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	p, err := recovery.Plan(ctx, st, chat)
	if err != nil {
		t.Fatal(err)
	}
	// Another operator ran the runbook between our plan and our apply.
	if err := st.PutCounter(ctx, store.Counter{Chat: chat, Value: 7}, store.IfAbsent); err != nil {
		t.Fatal(err)
	}
	res, err := recovery.Apply(ctx, st, p)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if res.Written || res.Value != 7 {
		t.Fatalf("Apply = %+v, want not written, value 7 (the other process's)", res)
	}
	if c := counter(t, st); c.Value != 7 {
		t.Fatalf("counter = %d, want 7 untouched", c.Value)
	}
}

func TestApplyReportsACounterRecreatedMeanwhileBelowMax(t *testing.T) {
	st, _ := chatWith(t, 3)
	ctx := context.Background()
	if err := st.DeleteCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	p, err := recovery.Plan(ctx, st, chat)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutCounter(ctx, store.Counter{Chat: chat, Value: 1}, store.IfAbsent); err != nil {
		t.Fatal(err)
	}
	res, err := recovery.Apply(ctx, st, p)
	var inc *recovery.InconsistentCounterError
	if !errors.As(err, &inc) || inc.Counter != 1 || inc.MaxSequence != 3 || res.Written {
		t.Fatalf("Apply = %+v, %v; want InconsistentCounterError{1, 3}, not written", res, err)
	}
	if c := counter(t, st); c.Value != 1 {
		t.Fatalf("counter = %d, want 1 untouched", c.Value)
	}
}

func TestApplyRefusesWhenMessagesLandedSincePlan(t *testing.T) {
	st, _ := chatWith(t, 3)
	ctx := context.Background()
	if err := st.DeleteCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	p, err := recovery.Plan(ctx, st, chat)
	if err != nil {
		t.Fatal(err)
	}
	// An in-flight persist that allocated 4 before the deletion commits.
	commitMessage(t, st, 4, "late")
	_, err = recovery.Apply(ctx, st, p)
	var landing *recovery.WritesLandingError
	if !errors.As(err, &landing) || landing.Planned != 3 || landing.Current != 4 {
		t.Fatalf("Apply = %v, want WritesLandingError 3 -> 4", err)
	}
	if c := counter(t, st); !c.Missing {
		t.Fatalf("Apply wrote %d although writes were landing", c.Value)
	}
}

// landsAfterPut commits a message at max+1 right after the counter put,
// as a persist that allocated before the deletion and was still in flight.
type landsAfterPut struct {
	store.Store
	t *testing.T
}

func (s landsAfterPut) PutCounter(ctx context.Context, c store.Counter, cond store.Condition) error {
	if err := s.Store.PutCounter(ctx, c, cond); err != nil {
		return err
	}
	commitMessage(s.t, s.Store, c.Value+1, "straggler")
	return nil
}

func TestApplyReportsAPersistThatLandedAfterTheCounterWasWritten(t *testing.T) {
	st, _ := chatWith(t, 3)
	ctx := context.Background()
	if err := st.DeleteCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	racy := landsAfterPut{Store: st, t: t}
	p, err := recovery.Plan(ctx, racy, chat)
	if err != nil {
		t.Fatal(err)
	}
	res, err := recovery.Apply(ctx, racy, p)
	var inc *recovery.InconsistentCounterError
	if !errors.As(err, &inc) || inc.Counter != 3 || inc.MaxSequence != 4 || !res.Written {
		t.Fatalf("Apply = %+v, %v; want written and InconsistentCounterError{3, 4}", res, err)
	}
}

func TestApplyRefusesAProposalThatIsNotTheMax(t *testing.T) {
	st, _ := chatWith(t, 3)
	ctx := context.Background()
	if err := st.DeleteCounter(ctx, chat); err != nil {
		t.Fatal(err)
	}
	p, err := recovery.Plan(ctx, st, chat)
	if err != nil {
		t.Fatal(err)
	}
	p.Value = p.MaxSequence - 1 // a stale value, e.g. from a backup
	if _, err := recovery.Apply(ctx, st, p); err == nil {
		t.Fatal("Apply wrote a value below the highest persisted sequence")
	}
	if c := counter(t, st); !c.Missing {
		t.Fatalf("counter written at %d", c.Value)
	}
}

func TestPlanRejectsAnEmptyChat(t *testing.T) {
	if _, err := recovery.Plan(context.Background(), memstore.New(), ""); err == nil {
		t.Fatal("Plan accepted an empty chat id")
	}
}

func commitMessage(t *testing.T, st store.Store, seq uint64, key string) {
	t.Helper()
	msg := store.Message{Chat: chat, Seq: seq, MessageID: "msg_" + key, Sender: "alice", Key: key}
	rec := store.IdempotencyRecord{Chat: chat, Key: key, Seq: seq, MessageID: msg.MessageID, Sender: "alice"}
	if err := st.TransactWrite(context.Background(), []store.TxItem{
		{PutIdempotency: &rec, Condition: store.IfAbsent}, {PutMessage: &msg},
	}); err != nil {
		t.Fatal(err)
	}
}
