package bench_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/kafka/embedded"
)

// A topic that cannot be read back after the writers (the cluster gone)
// leaves a judged run, as one whose final state was not all read: the
// operations and the tables read judged, the events' invariants unknown,
// the run saying why. It was an error (bench exit 5): the finished run
// thrown away with no verdict, as a topic whose relay wrote transactions
// did after a minute's wait.
func TestATopicThatCannotBeReadBackLeavesAJudgedRun(t *testing.T) {
	cluster, err := embedded.Start("gone", 2)
	if err != nil {
		t.Fatal(err)
	}
	var closeOnce sync.Once
	defer closeOnce.Do(cluster.Close)
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration = 4, 3, 300, 0
	cfg.Brokers, cfg.Topic, cfg.Partitions = cluster.Brokers(), "gone", 2
	cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
	cfg.Phase = func(name string) {
		if name == bench.PhaseEvents {
			closeOnce.Do(cluster.Close)
		}
	}
	res, err := bench.Run(context.Background(), cfg, nil)
	t.Logf("history: %s", cfg.HistoryPath)
	if err != nil {
		t.Fatalf("run: %v; want a run judged without its events", err)
	}
	if !strings.Contains(res.FinalStateUnread, "the topic was not read back") {
		t.Fatalf("FinalStateUnread %q; want the read-back's failure named", res.FinalStateUnread)
	}
	rep, _, err := checker.CheckFile(cfg.HistoryPath, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rep.Result(checker.NameEventCompleteness); r.Status == checker.Pass {
		t.Fatalf("event_completeness %+v; want it not passed (the topic was not read)", r)
	}
	if r, _ := rep.Result(checker.NameSequenceUniqueness); r.Status != checker.Unknown || !strings.Contains(r.Detail, "over the operations alone") {
		t.Fatalf("sequence_uniqueness %+v; want the operations judged, the file cut short", r)
	}
	if rep.ExitCode() != 3 {
		t.Fatalf("exit %d; want 3 (unknown: the final state was not all read)", rep.ExitCode())
	}
}
