package sequencer

import (
	"errors"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/store/memstore"
)

func TestNotAMemberIsDefinite(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(0)
	_, err := f.core.Persist(f.ctx, Request{Chat: "A", Key: "k", Sender: "mallory"}, nil)
	var serr *Error
	if !errors.As(err, &serr) || serr.Code != CodeNotAMember || !serr.Definite {
		t.Fatalf("got %v, want a definite not_a_member", err)
	}
	if f.counter() != 0 {
		t.Fatalf("a rejected sender allocated a sequence")
	}
}

func TestPublishFailureLeavesMessagePersistedAndRetryRepublishes(t *testing.T) {
	f := newFixture(t, Config{RepublishOnReplay: true})
	f.chatAt(0)
	_, err := f.persist("k", FaultPlan{PublishFails: true})
	var serr *Error
	if !errors.As(err, &serr) || serr.Code != CodePublishFailed || serr.Definite {
		t.Fatalf("got %v, want unknown-outcome publish_failed (the message is persisted)", err)
	}
	if got := f.messageSeqs(); !equalSeqs(got, []uint64{1}) {
		t.Fatalf("messages %v, want [1]", got)
	}
	out, err := f.persist("k", FaultPlan{})
	if err != nil || out.Seq != 1 || !out.Dedup {
		t.Fatalf("retry got %+v, %v; want cached 1", out.Result, err)
	}
	if len(f.pub.events) != 1 || f.pub.events[0].Seq != 1 || f.pub.events[0].MessageID != out.MessageID {
		t.Fatalf("events %+v: the retry should have published the persisted message", f.pub.events)
	}
}

// ADR-004 §7's pseudocode answers a retry from step 1 without publishing:
// after a failed publish the event never reaches Kafka.
func TestPseudocodeReplayNeverPublishes(t *testing.T) {
	f := newFixture(t, Config{RepublishOnReplay: false})
	f.chatAt(0)
	_, _ = f.persist("k", FaultPlan{PublishFails: true})
	if _, err := f.persist("k", FaultPlan{}); err != nil {
		t.Fatal(err)
	}
	if len(f.pub.events) != 0 {
		t.Fatalf("events %+v, want none: the pseudocode does not republish", f.pub.events)
	}
}

func TestCrashInPersistCommitsOrNot(t *testing.T) {
	for _, committed := range []bool{false, true} {
		f := newFixture(t, Config{})
		f.chatAt(0)
		_, err := f.persist("k", FaultPlan{CrashInPersist: true, CrashInPersistCommitted: committed})
		var serr *Error
		if !errors.As(err, &serr) || serr.Code != CodeCrashInPersist || serr.Definite {
			t.Fatalf("got %v, want unknown-outcome crash_in_persist", err)
		}
		out, err := f.persist("k", FaultPlan{})
		if err != nil {
			t.Fatal(err)
		}
		if committed && (out.Seq != 1 || !out.Dedup) {
			t.Fatalf("commit landed: retry got %+v, want cached 1", out.Result)
		}
		if !committed && (out.Seq != 2 || out.Dedup) {
			t.Fatalf("commit lost: retry got %+v, want new sequence 2", out.Result)
		}
	}
}

func TestCrashAfterPersistRetryReturnsCached(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(0)
	if _, err := f.persist("k", FaultPlan{CrashAfterPersist: true}); err == nil {
		t.Fatal("a crash after persist answered ok")
	}
	out, err := f.persist("k", FaultPlan{})
	if err != nil || out.Seq != 1 || !out.Dedup {
		t.Fatalf("retry got %+v, %v; want cached 1", out.Result, err)
	}
}

func TestUnknownVariantRejected(t *testing.T) {
	if _, err := New(Config{Store: nil}); err == nil {
		t.Fatal("a core without a store was accepted")
	}
	f := newFixture(t, Config{})
	if _, err := New(Config{Store: f.store, Variant: "no-such"}); err == nil {
		t.Fatal("an unknown variant was accepted")
	}
}

// racy-counter and ack-before-persist break steps that occ does not have:
// under it they would run a correct core labelled broken.
func TestVariantsWithoutTheirStepUnderOCCRejected(t *testing.T) {
	st := memstore.New()
	for _, v := range []Variant{RacyCounter, AckBeforePersist} {
		_, err := New(Config{Store: st, Variant: v, Strategy: Optimistic})
		if err == nil || !strings.Contains(err.Error(), string(v)) || !strings.Contains(err.Error(), "use strategy two-phase") {
			t.Errorf("%s under occ: got %v, want an error naming it", v, err)
		}
		if _, err := New(Config{Store: st, Variant: v, Strategy: TwoPhase}); err != nil {
			t.Errorf("%s under two-phase: %v", v, err)
		}
	}
	for _, v := range []Variant{Correct, UnconditionalIdempotency, RetryReallocates} {
		if _, err := New(Config{Store: st, Variant: v, Strategy: Optimistic}); err != nil {
			t.Errorf("%q under occ: %v", v, err)
		}
	}
}

func TestRetryReallocatesAnswersANewSequence(t *testing.T) {
	f := newFixture(t, Config{Variant: RetryReallocates})
	f.chatAt(0)
	first, _ := f.persist("k", FaultPlan{})
	again, err := f.persist("k", FaultPlan{})
	if err != nil || again.Seq == first.Seq {
		t.Fatalf("the broken retry path answered %+v, %v; it should allocate anew", again.Result, err)
	}
}

// A stale step-1 read sends a retry to step 4, whose condition must answer
// the original; the broken unconditional put persists the message twice.
func TestStaleIdempotencyReadIsCaughtByTheCondition(t *testing.T) {
	f := newFixture(t, Config{})
	f.chatAt(0)
	first, _ := f.persist("k", FaultPlan{})
	again, err := f.persist("k", FaultPlan{StaleIdempotencyRead: true})
	if err != nil || again.Seq != first.Seq || !again.Dedup || again.Allocated != 2 {
		t.Fatalf("stale retry got %+v (allocated %d), %v; want the cached %d with 2 a gap", again.Result, again.Allocated, err, first.Seq)
	}

	broken := newFixture(t, Config{Variant: UnconditionalIdempotency})
	broken.chatAt(0)
	first, _ = broken.persist("k", FaultPlan{})
	again, _ = broken.persist("k", FaultPlan{StaleIdempotencyRead: true})
	if again.Seq == first.Seq || len(broken.messageSeqs()) != 2 {
		t.Fatalf("unconditional put answered %d then %d with messages %v: expected a duplicate persist", first.Seq, again.Seq, broken.messageSeqs())
	}
}

// A key reused with other content is answered with the original, and a
// replay that publishes again publishes the original's content: its
// retry's content under the original's id reached every subscriber
// (identical_order failed bench --receivers --reuse-key on the embedded
// target).
func TestReplayOfAReusedKeyRepublishesTheStoredContent(t *testing.T) {
	f := newFixture(t, Config{RepublishOnReplay: true})
	f.chatAt(0)
	first, err := f.core.Persist(f.ctx, Request{Chat: "A", Key: "k", Sender: "alice", Content: "original", PayloadHash: "h-original"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.core.Persist(f.ctx, Request{Chat: "A", Key: "k", Sender: "alice", Content: "other", PayloadHash: "h-other"}, nil)
	if err != nil || !out.Dedup || out.MessageID != first.MessageID {
		t.Fatalf("reused key: %+v, %v; want the original answered", out.Result, err)
	}
	if n := len(f.pub.events); n != 2 || f.pub.events[1].MessageID != first.MessageID || f.pub.events[1].Content != "original" {
		t.Fatalf("events %+v: the replay must publish the stored content", f.pub.events)
	}
}
