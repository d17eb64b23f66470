package sequencer

import (
	"context"
	"runtime"

	"github.com/chatseq/chatseq/store"
)

// ackThenPersist is the AckBeforePersist variant: the client is answered
// before the transaction commits, and a crash during the commit loses an
// acknowledged message.
func (p *persistCall) ackThenPersist(msg store.Message, items []store.TxItem) error {
	p.out.Result = Result{Seq: msg.Seq, MessageID: msg.MessageID}
	lost := p.req.Faults.CrashInPersist && !p.req.Faults.CrashInPersistCommitted
	p.out.Steps.Transactions, p.out.Steps.Committed = 1, !lost // it commits after the ACK
	ctx := context.WithoutCancel(p.ctx)
	// The call's storage is reused once it returns: the goroutine takes
	// copies and nothing of p.
	items, core := ownItems(items), p.core
	core.background.Add(1)
	go func() {
		defer core.background.Done()
		runtime.Gosched()
		if !lost {
			_ = core.cfg.Store.TransactWrite(ctx, items)
		}
	}()
	return nil
}

// ownItems deep-copies transaction items for a write that outlives the call.
func ownItems(items []store.TxItem) []store.TxItem {
	owned := make([]store.TxItem, len(items))
	for i, it := range items {
		owned[i] = it
		if it.PutIdempotency != nil {
			rec := *it.PutIdempotency
			owned[i].PutIdempotency = &rec
		}
		if it.PutMessage != nil {
			msg := *it.PutMessage
			owned[i].PutMessage = &msg
		}
		if it.PutCounter != nil {
			c := *it.PutCounter
			owned[i].PutCounter = &c
		}
	}
	return owned
}

// reallocateOnRetry is the RetryReallocates variant: a retry gets a fresh
// sequence and overwrites the idempotency record.
func (p *persistCall) reallocateOnRetry() error {
	seq, err := p.allocate()
	if err != nil {
		return err
	}
	p.now = p.core.cfg.Now()
	msg, items := p.persistItems(seq)
	p.out.Steps.Transactions++
	if err := p.st().TransactWrite(p.ctx, items); err != nil {
		return classifyStoreError(err)
	}
	p.out.Steps.Committed = true
	p.out.Result = Result{Seq: seq, MessageID: msg.MessageID}
	return p.publish(msg)
}
