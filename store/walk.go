package store

import "context"

// StateVisitor receives a store's state item by item: every counter of the
// chats asked for, then every message, then every idempotency record.
type StateVisitor struct {
	Counter     func(Counter)
	Message     func(Message)
	Idempotency func(IdempotencyRecord)
}

// Walker is a store that can hand its state over item by item instead of
// building a State: after a long run on the embedded store, a State of
// millions of items costs as much memory as the store itself.
type Walker interface {
	Walk(ctx context.Context, chats []string, v StateVisitor) error
}

// Walk streams the state of chats from st, through Walk when st has it
// and from Dump otherwise.
func Walk(ctx context.Context, st Store, chats []string, v StateVisitor) error {
	if w, ok := st.(Walker); ok {
		return w.Walk(ctx, chats, v)
	}
	state, err := st.Dump(ctx, chats)
	if err != nil {
		return err
	}
	state.Visit(v)
	return nil
}

// Visit hands s to v in StateVisitor's order.
func (s State) Visit(v StateVisitor) {
	for _, c := range s.Counters {
		v.Counter(c)
	}
	for _, m := range s.Messages {
		v.Message(m)
	}
	for _, r := range s.Idempotency {
		v.Idempotency(r)
	}
}
