// Package recovery is ADR-004's "Counter Recovery Procedure" as code over
// store.Store: find the highest persisted sequence, recreate a missing
// counter at that value with attribute_not_exists(chat_id), and refuse to
// touch a counter that exists. Plan only reads; Apply is the one write.
//
// What the procedure cannot know: the counter held the last *allocated*
// sequence, and the messages table only shows the last *persisted* one. A
// sequence allocated before the deletion and never persisted is handed out
// again after recovery (harmless only if its allocating request can no longer
// commit), and one still in flight when the counter is recreated lands on a
// sequence the recovered counter will hand out again (a duplicate). That is
// why the runbook demands "no active writes", which this package cannot
// check: callers quiesce writers first (see package drill).
package recovery

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatseq/chatseq/store"
)

// Action is what a plan would do.
type Action string

const (
	// PutCounter recreates the missing counter at Proposal.Value,
	// conditional on attribute_not_exists(chat_id).
	PutCounter Action = "put_counter"
	// Nothing: the counter exists; the runbook does not apply.
	Nothing Action = "nothing"
)

// Proposal is what Plan found and what Apply would write. (The function is
// Plan; a Go package cannot also have a type of that name.)
type Proposal struct {
	Chat string
	// MaxSequence is the highest persisted sequence (0 for a chat with no
	// messages), read with a strongly consistent descending query.
	MaxSequence uint64
	// Counter is the counter item as read (Missing when it is gone).
	Counter store.Counter
	Action  Action
	// Value is the counter value Apply writes (MaxSequence) for PutCounter.
	Value uint64
	// Reason says why, in the runbook's terms, for the operator.
	Reason string
}

// ErrCounterExists: the counter is there and not below the highest persisted
// sequence, so there is nothing to recover; the runbook refuses to overwrite
// a live counter (its value may be ahead of the messages, which is normal:
// gaps).
var ErrCounterExists = errors.New("counter exists")

// InconsistentCounterError is the runbook's InconsistentCounterError: a
// counter exists below the highest persisted sequence, so the next
// allocations would re-issue persisted sequences. It is reported, never
// repaired automatically: which value is right is a human decision.
type InconsistentCounterError struct {
	Chat        string
	Counter     uint64
	MaxSequence uint64
}

func (e *InconsistentCounterError) Error() string {
	return fmt.Sprintf("inconsistent counter: chat %q: counter exists with value %d but the highest persisted sequence is %d (the next %d allocations would re-issue persisted sequences)",
		e.Chat, e.Counter, e.MaxSequence, e.MaxSequence-e.Counter)
}

// Plan reads the chat's highest persisted sequence and its counter and says
// what the runbook would do. It writes nothing. With the counter present it
// returns the proposal together with ErrCounterExists (counter ≥ max) or an
// *InconsistentCounterError (counter < max).
func Plan(ctx context.Context, st store.Store, chat string) (Proposal, error) {
	if chat == "" {
		return Proposal{}, errors.New("recovery: empty chat id")
	}
	max, err := MaxPersisted(ctx, st, chat)
	if err != nil {
		return Proposal{}, err
	}
	// Read the counter after the messages: a counter recreated meanwhile is
	// then seen, and a message landing after the query is what the runbook's
	// "no active writes" prerequisite rules out.
	c, err := st.GetCounter(ctx, chat, true)
	if err != nil {
		return Proposal{}, fmt.Errorf("recovery: read counter of %q: %w", chat, err)
	}
	p := Proposal{Chat: chat, MaxSequence: max, Counter: c, Action: Nothing}
	switch {
	case c.Missing:
		p.Action, p.Value = PutCounter, max
		p.Reason = fmt.Sprintf("counter missing; highest persisted sequence is %d, so the counter is recreated at %d and the next send gets %d", max, max, max+1)
		return p, nil
	case c.Value < max:
		p.Reason = fmt.Sprintf("counter exists at %d, below the highest persisted sequence %d: inconsistent, not written", c.Value, max)
		return p, &InconsistentCounterError{Chat: chat, Counter: c.Value, MaxSequence: max}
	default:
		p.Reason = fmt.Sprintf("counter exists at %d (highest persisted sequence %d): nothing to recover", c.Value, max)
		return p, ErrCounterExists
	}
}

// MaxPersisted is the runbook's step 1: the highest persisted sequence of
// chat (Query, descending, limit 1), 0 when it has no messages. The store's
// query is strongly consistent; the ADR's is not (see docs/dynamodb.md).
func MaxPersisted(ctx context.Context, st store.Store, chat string) (uint64, error) {
	msgs, err := st.QueryMessages(ctx, store.Query{Chat: chat, Descending: true, Limit: 1})
	if err != nil {
		return 0, fmt.Errorf("recovery: query highest sequence of %q: %w", chat, err)
	}
	if len(msgs) == 0 {
		return 0, nil
	}
	return msgs[0].Seq, nil
}
