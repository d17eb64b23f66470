// Package core is ADR-004's sequencing core (package sequencer) over a
// store, as a target the runner drives, with the run's store fault
// windows applied to the store.
package core

import (
	"context"

	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
	"github.com/chatseq/chatseq/target"
)

// Factory is ADR-004's sequencing core over st (nil: a fresh embedded
// store).
func Factory(st store.Store) target.Factory {
	return func(ctx context.Context, env target.Env) (target.Target, error) {
		if st == nil {
			st = memstore.New()
		}
		now, switched := variantWindows(env)
		core, err := sequencer.New(sequencer.Config{
			Store: storeWindows(env, st), Variant: env.Variant, VariantNow: now, Switched: switched, Strategy: env.Strategy,
			RepublishOnReplay: env.RepublishOnReplay, Publisher: env.Publisher,
		})
		if err != nil {
			return nil, err
		}
		return &coreTarget{Core: core, st: st}, nil
	}
}

// coreTarget adapts sequencer.Core; chat set-up and faults go to the store
// directly, outside any latency window.
type coreTarget struct {
	*sequencer.Core
	st store.Store
}

func (t *coreTarget) CreateChat(ctx context.Context, chat string, members []string) error {
	return t.st.CreateChat(ctx, chat, members)
}

// IsMember is step 2's membership read, for a server that lets only
// members read a chat.
func (t *coreTarget) IsMember(ctx context.Context, chat, user string) (bool, error) {
	return t.st.IsMember(ctx, chat, user)
}

func (t *coreTarget) SetCounter(ctx context.Context, chat string, v uint64) error {
	return t.st.PutCounter(ctx, store.Counter{Chat: chat, Value: v}, store.Unconditional)
}

func (t *coreTarget) DeleteCounter(ctx context.Context, chat string) error {
	return t.st.DeleteCounter(ctx, chat)
}

func (t *coreTarget) Settle(context.Context) error { t.Wait(); return nil }

func (t *coreTarget) Dump(ctx context.Context, chats []string) (store.State, error) {
	return t.st.Dump(ctx, chats)
}

// Walk streams the final state (see store.Walker).
func (t *coreTarget) Walk(ctx context.Context, chats []string, v store.StateVisitor) error {
	return store.Walk(ctx, t.st, chats, v)
}

// Close leaves the store to its owner.
func (t *coreTarget) Close() error { return nil }

// variantWindows is the core's variant as the run's variant_on windows
// switch it (sequencer.Config.VariantNow), and every variant they switch
// on; nil, nil without such a window.
func variantWindows(env target.Env) (func() sequencer.Variant, []sequencer.Variant) {
	var windows []target.TimedFault
	var switched []sequencer.Variant
	for _, f := range env.Timed {
		if f.Kind == target.VariantOn {
			windows = append(windows, f)
			switched = append(switched, sequencer.Variant(f.Variant))
		}
	}
	if len(windows) == 0 {
		return nil, nil
	}
	base, elapsed := env.Variant, env.Elapsed
	return func() sequencer.Variant {
		el := elapsed()
		for _, w := range windows {
			if w.Active(el) {
				return sequencer.Variant(w.Variant)
			}
		}
		return base
	}, switched
}
