package store

import "context"

// StateVisitor receives a store's state item by item: every counter of the
// chats asked for, every message and every idempotency record, a table at
// a time (the stores here hand counters first; the http target reads its
// messages first, so that a counter read after them is at least every
// sequence they hold).
type StateVisitor struct {
	Counter     func(Counter)
	Message     func(Message)
	Idempotency func(IdempotencyRecord)
	// TablesRead, if set, is told once, after every item, which tables
	// were read (State.Read), empty ones included.
	TablesRead func(Tables)
}

// Read tells v's TablesRead, if any, which tables were read.
func (v StateVisitor) Read(t Tables) {
	if v.TablesRead != nil {
		v.TablesRead(t)
	}
}

// Walker is a store that can hand its state over item by item instead of
// building a State: after a long run on the embedded store, a State of
// millions of items costs as much memory as the store itself.
type Walker interface {
	Walk(ctx context.Context, chats []string, v StateVisitor) error
}

// Dumper reads the final state of some chats: a Store, or anything built
// on one (a bench target).
type Dumper interface {
	Dump(ctx context.Context, chats []string) (State, error)
}

// Walk streams the state of chats from d, through Walk when d is a Walker
// and from Dump otherwise.
func Walk(ctx context.Context, d Dumper, chats []string, v StateVisitor) error {
	if w, ok := d.(Walker); ok {
		return w.Walk(ctx, chats, v)
	}
	state, err := d.Dump(ctx, chats)
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
	v.Read(s.Read)
}
