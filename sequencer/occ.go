package sequencer

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/chatseq/chatseq/store"
)

// Strategy is how step 3 allocates.
type Strategy string

const (
	// TwoPhase is ADR-004's choice: atomic ADD, then a separate persist
	// transaction (gaps on failure).
	TwoPhase Strategy = "two-phase"
	// Optimistic is ADR-004 option B: read the counter, then one
	// transaction conditional on it still being N that sets N+1 and writes
	// the message; retried with backoff on conflict.
	Optimistic Strategy = "occ"
)

// ParseStrategy accepts "" (two-phase), "two-phase" or "occ".
func ParseStrategy(s string) (Strategy, bool) {
	switch Strategy(s) {
	case "", TwoPhase:
		return TwoPhase, true
	case Optimistic:
		return Optimistic, true
	}
	return "", false
}

const (
	occMaxAttempts = 64
	occBaseBackoff = 50 * time.Microsecond
	occMaxBackoff  = 20 * time.Millisecond
)

// errOCCExhausted: every optimistic attempt lost to a concurrent writer.
var errOCCExhausted = errors.New("optimistic allocation: every attempt conflicted")

// persistOptimistic replaces steps 3 and 4 with option B's loop. The
// allocation is traced at the commit that made it, spanning the read.
func (p *persistCall) persistOptimistic() error {
	backoff := occBaseBackoff
	for attempt := 1; attempt <= occMaxAttempts; attempt++ {
		p.out.Attempts = attempt
		start := p.tr.Now()
		c, err := p.st().GetCounter(p.ctx, p.req.Chat, true)
		if err != nil {
			return readFailed(err) // earlier attempts were cancelled: nothing written
		}
		if c.Missing {
			return definite(CodeCounterMissing, store.ErrCounterMissing)
		}
		seq := c.Value + 1
		p.now = p.core.cfg.Now()
		msg, items := p.persistItems(seq)
		items = append(items, store.TxItem{
			PutCounter: &store.Counter{Chat: p.req.Chat, Value: seq},
			Condition:  store.IfCounterEquals, Expected: c.Value,
		})
		if p.req.Faults.CrashInPersist {
			if p.req.Faults.CrashInPersistCommitted {
				p.out.Steps.Transactions++
				if p.st().TransactWrite(p.ctx, items) == nil {
					p.out.Steps.Committed = true
					p.tr.Allocated(p.req.Chat, seq, start, p.tr.Now())
				}
			}
			return unknown(CodeCrashInPersist, nil)
		}
		err = p.st().TransactWrite(p.ctx, items)
		end := p.tr.Now()
		p.out.Timings.Persist += end - start
		p.out.Steps.Transactions++
		if err == nil {
			p.out.Steps.Committed = true
			p.out.Allocated = seq
			p.tr.Allocated(p.req.Chat, seq, start, end)
			p.out.Result = Result{Seq: seq, MessageID: msg.MessageID}
			if p.req.Faults.CrashAfterPersist {
				return unknown(CodeCrashAfterPersist, nil)
			}
			return p.publish(msg)
		}
		var canceled *store.TransactionCanceledError
		if !errors.As(err, &canceled) {
			return classifyStoreError(err)
		}
		if canceled.ConditionFailedAt(0) {
			return p.persistFailed(err)
		}
		// The counter moved: another writer won this round.
		p.out.Steps.Conflicts++
		time.Sleep(time.Duration(rand.Int64N(int64(backoff))))
		backoff = min(2*backoff, occMaxBackoff)
	}
	return unknown(CodeStoreError, errOCCExhausted)
}
