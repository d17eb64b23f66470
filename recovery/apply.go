package recovery

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatseq/chatseq/store"
)

// Result is what Apply did.
type Result struct {
	Chat string
	// Written is true when this call created the counter; false when another
	// process had recreated it first (and at a value not below the max).
	Written bool
	// Value is the counter's value after the call.
	Value uint64
	// MaxSequence is the highest persisted sequence Apply compared against.
	MaxSequence uint64
}

// WritesLandingError: the highest persisted sequence moved between Plan and
// Apply, so messages are still being written to the chat — the runbook's
// prerequisite "no active writes" does not hold. Nothing was written.
type WritesLandingError struct {
	Chat             string
	Planned, Current uint64
}

func (e *WritesLandingError) Error() string {
	return fmt.Sprintf("chat %q: the highest persisted sequence moved from %d to %d since the plan: writes are still landing (the runbook requires no active writes); nothing written, quiesce writers and plan again",
		e.Chat, e.Planned, e.Current)
}

// Apply carries out a PutCounter proposal: it re-reads the highest persisted
// sequence (refusing if it moved), puts the counter at that value with
// attribute_not_exists(chat_id), and handles the condition failure as the
// ADR does — another process recreated the counter: accept it unless it is
// below the max (InconsistentCounterError). After writing it reads the max
// once more: a message that landed meanwhile means an in-flight persist
// raced the recovery, which is reported as an InconsistentCounterError with
// Result.Written true.
func Apply(ctx context.Context, st store.Store, p Proposal) (Result, error) {
	res := Result{Chat: p.Chat, MaxSequence: p.MaxSequence}
	switch {
	case p.Action == Nothing:
		return res, ErrCounterExists
	case p.Action != PutCounter:
		return res, fmt.Errorf("recovery: unknown action %q", p.Action)
	case p.Value != p.MaxSequence:
		// The runbook restores exactly the highest persisted sequence; a
		// lower value re-issues persisted sequences, a higher one is a guess.
		return res, fmt.Errorf("recovery: proposal would write %d but the highest persisted sequence is %d", p.Value, p.MaxSequence)
	}
	max, err := MaxPersisted(ctx, st, p.Chat)
	if err != nil {
		return res, err
	}
	if max != p.MaxSequence {
		return res, &WritesLandingError{Chat: p.Chat, Planned: p.MaxSequence, Current: max}
	}

	err = st.PutCounter(ctx, store.Counter{Chat: p.Chat, Value: p.Value}, store.IfAbsent)
	if errors.Is(err, store.ErrConditionFailed) {
		return recreatedMeanwhile(ctx, st, res)
	}
	if err != nil {
		return res, fmt.Errorf("recovery: put counter of %q: %w", p.Chat, err)
	}
	res.Written, res.Value = true, p.Value

	after, err := MaxPersisted(ctx, st, p.Chat)
	if err != nil {
		return res, err
	}
	if after > p.Value {
		res.MaxSequence = after
		return res, &InconsistentCounterError{Chat: p.Chat, Counter: p.Value, MaxSequence: after}
	}
	return res, nil
}

// recreatedMeanwhile is the runbook's ConditionalCheckFailedException branch:
// the counter was recreated by another process; verify it is not below the
// highest persisted sequence, read afresh (the ADR compares with the value
// it read before its put, which may be stale by now).
func recreatedMeanwhile(ctx context.Context, st store.Store, res Result) (Result, error) {
	c, err := st.GetCounter(ctx, res.Chat, true)
	if err != nil {
		return res, fmt.Errorf("recovery: re-read counter of %q: %w", res.Chat, err)
	}
	if c.Missing {
		// The ADR's code would fail on existing['Item'] here.
		return res, fmt.Errorf("recovery: chat %q: the counter was recreated by another process and deleted again before it could be read; plan again", res.Chat)
	}
	max, err := MaxPersisted(ctx, st, res.Chat)
	if err != nil {
		return res, err
	}
	res.Value, res.MaxSequence = c.Value, max
	if c.Value < max {
		return res, &InconsistentCounterError{Chat: res.Chat, Counter: c.Value, MaxSequence: max}
	}
	return res, nil
}
