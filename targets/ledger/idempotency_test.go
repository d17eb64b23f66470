package ledger

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
)

// newTarget builds a cluster for direct calls.
func newTarget(t *testing.T, lc Config, variant Variant, chats ...string) *target {
	t.Helper()
	cfg := bench.DefaultConfig()
	cfg.Variant = variantOf(variant)
	tgt, err := Factory(lc)(context.Background(), cfg.TargetEnv(nil, func() time.Duration { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tgt.Close() })
	for _, c := range chats {
		if err := tgt.CreateChat(context.Background(), c, nil); err != nil {
			t.Fatal(err)
		}
	}
	return tgt.(*target)
}

func send(tgt *target, chat, sender, key, content string, faults sequencer.FaultPlan) (sequencer.Result, error) {
	out, err := tgt.Persist(context.Background(), sequencer.Request{Chat: chat, Sender: sender, Key: key, Content: content, Faults: faults}, nil)
	return out.Result, err
}

func writeOK(t *testing.T, tgt *target, chat, sender, key, content string) sequencer.Result {
	t.Helper()
	r, err := send(tgt, chat, sender, key, content, sequencer.FaultPlan{})
	if err != nil {
		t.Fatalf("write %s/%s/%s: %v", chat, sender, key, err)
	}
	return r
}

// concurrentMisses sends n writes of one key at once, each missing the
// leader cache (the ADR's race: all are proposed), and returns how many
// messages the chat ends with.
func concurrentMisses(t *testing.T, tgt *target, n int) (results []sequencer.Result, messages int) {
	t.Helper()
	results = make([]sequencer.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = send(tgt, "c", "alice", "k", "hello", sequencer.FaultPlan{StaleIdempotencyRead: true})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	st, err := tgt.Dump(context.Background(), []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	return results, len(st.Messages)
}

// The ADR's race: concurrent writes of one key all miss the leader cache
// and are all proposed. The state machine's own key table applies the
// first and answers the rest with its result.
func TestApplyTimeDedupStopsTheCacheRace(t *testing.T) {
	tgt := newTarget(t, DefaultConfig(), AsDesigned, "c")
	results, messages := concurrentMisses(t, tgt, 6)
	if messages != 1 {
		t.Fatalf("%d messages for one key, want 1", messages)
	}
	fresh := 0
	for _, r := range results {
		if r.Seq != results[0].Seq || r.MessageID != results[0].MessageID {
			t.Fatalf("answers differ: %+v vs %+v", r, results[0])
		}
		if !r.Dedup {
			fresh++
		}
	}
	if fresh != 1 {
		t.Errorf("%d answers as new, want 1", fresh)
	}
}

// With only the leader's cache (the ADR's steps to the letter) the same
// race double-applies: every proposal becomes a message.
func TestLeaderCacheOnlyDoubleApplies(t *testing.T) {
	tgt := newTarget(t, DefaultConfig(), LeaderCacheOnly, "c")
	_, messages := concurrentMisses(t, tgt, 6)
	if messages != 6 {
		t.Fatalf("%d messages, want 6: every proposal applied", messages)
	}
}

// The cache lives in the leader's memory: after the leader crashes, a
// retry reaches a leader whose cache never saw the key. Apply-time dedup
// still answers it with the original.
func TestRetryAfterLeaderCrashMeetsColdCache(t *testing.T) {
	for _, tc := range []struct {
		variant  Variant
		messages int
	}{{AsDesigned, 1}, {LeaderCacheOnly, 2}} {
		name := string(tc.variant)
		if name == "" {
			name = "as-designed"
		}
		t.Run(name, func(t *testing.T) {
			tgt := newTarget(t, DefaultConfig(), tc.variant, "c")
			first := writeOK(t, tgt, "c", "alice", "k", "hello")
			old := tgt.cl.leader()
			if err := tgt.cl.crash(old.index); err != nil {
				t.Fatal(err)
			}
			nd, err := tgt.cl.waitLeader(context.Background(), 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, cache, _ := nd.live(); cache.len() != 0 {
				t.Fatalf("the new leader's cache holds %d entries before any write", cache.len())
			}
			retry := writeOK(t, tgt, "c", "alice", "k", "hello")
			st, err := tgt.Dump(context.Background(), []string{"c"})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Messages) != tc.messages {
				t.Fatalf("%d messages after the retry, want %d", len(st.Messages), tc.messages)
			}
			if tc.variant == AsDesigned && (!retry.Dedup || retry.MessageID != first.MessageID) {
				t.Fatalf("retry got %+v, want the original %+v", retry, first)
			}
		})
	}
}

// Same key and payload: the cached result; same key, other payload:
// idempotency_key_reused, definite (not retryable); the rejection holds at
// apply time too, when the cache missed.
func TestReusedKeyIsRejected(t *testing.T) {
	tgt := newTarget(t, DefaultConfig(), AsDesigned, "c")
	first := writeOK(t, tgt, "c", "alice", "k", "hello")
	if again := writeOK(t, tgt, "c", "alice", "k", "hello"); !again.Dedup || again.MessageID != first.MessageID {
		t.Fatalf("retry got %+v, want %+v", again, first)
	}
	for _, stale := range []bool{false, true} {
		_, err := send(tgt, "c", "alice", "k", "other", sequencer.FaultPlan{StaleIdempotencyRead: stale})
		var se *sequencer.Error
		if !errors.As(err, &se) || se.Code != CodeKeyReused || !se.Definite {
			t.Fatalf("reuse (cache missed: %v) got %v, want a definite %s", stale, err, CodeKeyReused)
		}
	}
}

// Keys are scoped (chat, sender, key): the same key from two senders is
// two messages, and each sender's retry gets its own.
func TestKeysAreScopedPerSender(t *testing.T) {
	tgt := newTarget(t, DefaultConfig(), AsDesigned, "c")
	a := writeOK(t, tgt, "c", "alice", "k", "same")
	b := writeOK(t, tgt, "c", "bob", "k", "same")
	if a.Seq == b.Seq || b.Dedup {
		t.Fatalf("two senders' key k: %+v and %+v, want two messages", a, b)
	}
	if r := writeOK(t, tgt, "c", "bob", "k", "same"); r.MessageID != b.MessageID {
		t.Fatalf("bob's retry got %+v, want %+v", r, b)
	}
}

// After the TTL a key counts as new, in the cache and the state machine
// alike (log time, so every node expires it at the same entry).
func TestExpiredKeyIsNew(t *testing.T) {
	lc := DefaultConfig()
	lc.IdempotencyTTL = 150 * time.Millisecond
	tgt := newTarget(t, lc, AsDesigned, "c")
	first := writeOK(t, tgt, "c", "alice", "k", "hello")
	time.Sleep(200 * time.Millisecond)
	second := writeOK(t, tgt, "c", "alice", "k", "other content")
	if second.Dedup || second.Seq != first.Seq+1 {
		t.Fatalf("after expiry got %+v, want a new message after %+v", second, first)
	}
}
