package bench_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
)

// hotChatWithReaders is the run, shortened: 16 writers on one chat,
// 4 readers catching up by cursor, the runner's default faults, Kafka off
// (the race is in the store, not the topic).
func hotChatWithReaders(t *testing.T, seed int64, variant sequencer.Variant) (*bench.Result, *history.History, checker.Report) {
	t.Helper()
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Readers = 16, 1, 4
	cfg.Duration = 600 * time.Millisecond
	cfg.Seed, cfg.Variant, cfg.KafkaOff = seed, variant, true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatalf("the recorded history does not parse: %v", err)
	}
	if res.Readers.Readers != 4 || res.Readers.OK == 0 || res.Readers.Received == 0 {
		t.Fatalf("the readers did not read: %+v", res.Readers)
	}
	return res, h, checker.Check(h, checker.Options{})
}

// ADR-004 as written, under its own contract (clients catch up by
// cursor): a reader's cursor passes a sequence whose message commits
// later, and the reader never receives it.
func TestReadersLoseLateCommitsOnADR004AsWritten(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		_, h, rep := hotChatWithReaders(t, seed, sequencer.Correct)
		if h.Header.Contract.CatchUp != history.CatchUpCursor {
			t.Fatalf("header contract %+v does not say clients catch up by cursor", h.Header.Contract)
		}
		res, ok := rep.Result(checker.NameCatchUpCompleteness)
		if !ok {
			t.Fatalf("catch_up_completeness not judged: %+v", rep.NotApplicable)
		}
		if res.Status != checker.Fail {
			t.Logf("seed %d: catch_up_completeness %s: %s", seed, res.Status, res.Detail)
			continue
		}
		if len(res.Lines) != 3 || !strings.Contains(res.Detail, "never received seq") || rep.Stats.CatchUpMissed == 0 {
			t.Fatalf("the failure names no missed message: %v %s", res.Lines, res.Detail)
		}
		for _, inv := range rep.Invariants {
			if inv.Name != checker.NameCatchUpCompleteness && inv.Status == checker.Fail {
				t.Errorf("%s fails too: %s", inv.Name, inv.Detail)
			}
		}
		t.Logf("seed %d: %s", seed, res.Detail)
		return
	}
	t.Fatal("16 writers on one chat with 4 readers: no reader ever missed a late commit in three seeds")
}

// The watermark keeps the promise: no sync passes a commit in flight, and
// an ACK waits until a sync would return it, so every invariant holds.
func TestSyncWatermarkKeepsCatchUpComplete(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		_, _, rep := hotChatWithReaders(t, seed, sequencer.SyncWatermark)
		if rep.Valid == nil || !*rep.Valid {
			t.Fatalf("seed %d: sync-watermark judged %v: %v", seed, rep.Valid, failing(rep))
		}
		if res, _ := rep.Result(checker.NameCatchUpCompleteness); res.Status != checker.Pass || !strings.Contains(res.Detail, "4 readers") {
			t.Fatalf("seed %d: catch_up_completeness %s: %s", seed, res.Status, res.Detail)
		}
		if rep.Stats.LateCommits != 0 || rep.Stats.CatchUpMissed != 0 {
			t.Fatalf("seed %d: %d late commits, %d missed under the watermark", seed, rep.Stats.LateCommits, rep.Stats.CatchUpMissed)
		}
	}
}

// Without readers the invariant has nothing to judge: today's default run
// keeps its meaning.
func TestNoReadersCatchUpIsNotApplicable(t *testing.T) {
	_, rep := smallRun(t, 1, sequencer.Correct, false)
	for _, na := range rep.NotApplicable {
		if na.Name == checker.NameCatchUpCompleteness {
			return
		}
	}
	t.Fatalf("catch_up_completeness judged without readers: %+v", rep.Invariants)
}

func TestReadersFlagsAreChecked(t *testing.T) {
	cfg := bench.DefaultConfig()
	cfg.Readers = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--readers") {
		t.Errorf("readers -1: %v", err)
	}
	cfg = bench.DefaultConfig()
	cfg.ReaderPoll = -time.Millisecond
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--reader-poll") {
		t.Errorf("reader poll -1ms: %v", err)
	}
}
