package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

func scheduleConfig(t *testing.T, seed int64, concurrentDuplicate float64) bench.Config {
	cfg := bench.DefaultConfig()
	cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration, cfg.Seed = 4, 5, 800, 0, seed
	cfg.Faults = bench.FaultRates{CrashAfterAllocate: 0.05, CrashInPersist: 0.05, CrashAfterPersist: 0.05, PublishFail: 0.05}
	cfg.DuplicateAfterOK, cfg.ConcurrentDuplicate, cfg.SyncRatio = 0.1, concurrentDuplicate, 0.1
	// Each key names the op that planned it (w<writer>-m<op>) and the
	// writer that sends it: a key sent to another chat, or by another
	// member, by a later op would not (TestAKeyAcrossChatsIsANewMessageOfItsChat,
	// TestAKeyAcrossSendersIsOneMessageUnderChatScope), nor an odd key
	// (TestOddKeysAreNewMessages).
	cfg.KeyAcrossChats, cfg.KeyAcrossSenders, cfg.OddKeys = 0, 0, 0
	cfg.KafkaOff = true
	cfg.HistoryPath = filepath.Join(t.TempDir(), "h.jsonl")
	return cfg
}

// runSchedule runs cfg and returns, per process in order, what it sent:
// operations, chats, keys and the crashes it met — not what was answered.
func runSchedule(t *testing.T, cfg bench.Config) (map[int][]string, *history.History) {
	t.Helper()
	if _, err := bench.Run(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	for _, e := range h.Events {
		switch e.Kind {
		case history.KindInvoke:
			out[e.Process] = append(out[e.Process], fmt.Sprintf("%s %s %s", e.F, e.Chat, e.Key))
		case history.KindInfo:
			out[e.Process] = append(out[e.Process], "crash "+e.Error)
		}
	}
	return out, h
}

// Without racing twins, nothing but the seed decides what any process
// sends: two runs are identical process by process.
func TestSameSeedSameSchedule(t *testing.T) {
	a, _ := runSchedule(t, scheduleConfig(t, 7, 0))
	b, _ := runSchedule(t, scheduleConfig(t, 7, 0))
	for pid := range a {
		if !reflect.DeepEqual(a[pid], b[pid]) {
			t.Fatalf("process %d differs between two runs of seed 7:\n%v\n%v", pid, a[pid], b[pid])
		}
	}
	if len(a) != len(b) {
		t.Fatalf("the runs have different processes: %d vs %d", len(a), len(b))
	}
	if c, _ := runSchedule(t, scheduleConfig(t, 8, 0)); reflect.DeepEqual(a, c) {
		t.Fatal("seeds 7 and 8 gave the same schedule")
	}
}

// With racing twins, which of two concurrent sends wins is the store's
// choice, so retries may differ; every send still follows the seed's plan.
func TestRacedRunsFollowTheirPlan(t *testing.T) {
	cfg := scheduleConfig(t, 11, 0.2)
	_, h := runSchedule(t, cfg)
	persists := 0
	for _, e := range h.Events {
		if e.Kind != history.KindInvoke || e.F != history.FPersist {
			continue
		}
		persists++
		var writer, op int
		if _, err := fmt.Sscanf(strings.Replace(e.Key, "-m", " ", 1), "w%d %d", &writer, &op); err != nil {
			t.Fatalf("line %d: key %q: %v", e.Line, e.Key, err)
		}
		plan := bench.PlanOp(&cfg, writer, op)
		sender := bench.SenderID(writer)
		if plan.Outsider {
			sender = bench.OutsiderID(writer)
		}
		if plan.Sync || bench.ChatID(plan.Chat) != e.Chat || e.Sender != sender {
			t.Fatalf("line %d: sent %s to %s, but writer %d's plan for op %d is %+v", e.Line, e.Key, e.Chat, writer, op, plan)
		}
	}
	if persists < 500 {
		t.Fatalf("only %d persists: the run exercised too little", persists)
	}
	if a, b := bench.PlanOp(&cfg, 2, 40), bench.PlanOp(&cfg, 2, 40); a.Chat != b.Chat || a.Key != b.Key || a.Raced != b.Raced || a.AttemptFaults() != b.AttemptFaults() {
		t.Fatal("PlanOp is not a function of the seed")
	}
}

// A send planned with KeyAcrossChats uses the key its writer last sent to
// another chat: the key is the earlier op's, the chat its own plan's, and
// the correct core takes it as a new message of that chat.
func TestAKeyAcrossChatsIsANewMessageOfItsChat(t *testing.T) {
	cfg := scheduleConfig(t, 5, 0)
	cfg.KeyAcrossChats = 0.3
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.KeysAcrossChats == 0 {
		t.Fatal("no send used a key across chats")
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	chatsOf := map[string]map[string]bool{}
	for _, e := range h.Events {
		if e.Kind == history.KindInvoke && e.F == history.FPersist {
			if chatsOf[e.Key] == nil {
				chatsOf[e.Key] = map[string]bool{}
			}
			chatsOf[e.Key][e.Chat] = true
		}
	}
	across := 0
	for _, chats := range chatsOf {
		if len(chats) > 1 {
			across++
		}
	}
	if across == 0 {
		t.Fatal("no key was sent to two chats")
	}
	rep := checker.Check(h, checker.Options{})
	if rep.ExitCode() != 0 {
		t.Fatalf("the correct core with %d keys sent to two chats: exit %d", across, rep.ExitCode())
	}
}

// A send planned with KeyAcrossSenders is another member of the chat (the
// next writer's user) sending the key and content its writer last sent
// there: under ADR-004's per-chat scope the correct core answers it with
// that message.
func TestAKeyAcrossSendersIsOneMessageUnderChatScope(t *testing.T) {
	cfg := scheduleConfig(t, 5, 0)
	cfg.KeyAcrossSenders = 0.3
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.KeysAcrossSenders == 0 {
		t.Fatal("no send used a key across senders")
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	type chatKey struct{ chat, key string }
	first := map[chatKey]history.Event{} // the key's first invoke in its chat
	across := 0
	for _, e := range h.Events {
		if e.Kind != history.KindInvoke || e.F != history.FPersist {
			continue
		}
		k := chatKey{e.Chat, e.Key}
		f, seen := first[k]
		if !seen {
			first[k] = e
			continue
		}
		if f.Sender == e.Sender {
			continue
		}
		across++
		var writer int
		if _, err := fmt.Sscanf(e.Key, "w%d-", &writer); err != nil {
			t.Fatalf("line %d: key %q: %v", e.Line, e.Key, err)
		}
		if f.Sender != bench.SenderID(writer) || e.Sender != bench.SenderID((writer+1)%cfg.Writers) || e.PayloadHash != f.PayloadHash {
			t.Fatalf("line %d: key %q of writer %d sent by %s with %s after %s sent it with %s (line %d): want the next writer's user, with the same content",
				e.Line, e.Key, writer, e.Sender, e.PayloadHash, f.Sender, f.PayloadHash, f.Line)
		}
	}
	if across == 0 {
		t.Fatal("no key was sent by two senders of one chat")
	}
	rep := checker.Check(h, checker.Options{})
	if rep.ExitCode() != 0 {
		t.Fatalf("the correct core with %d keys sent by two senders: exit %d", across, rep.ExitCode())
	}
}

// Turning --key-across-senders on changes no other decision of a seed:
// it is drawn apart from the plan's random stream.
func TestKeyAcrossSendersLeavesEveryOtherDecision(t *testing.T) {
	off := scheduleConfig(t, 3, 0.1)
	on := off
	on.KeyAcrossSenders = 0.5
	drawn := 0
	for op := range 2000 {
		a, b := bench.PlanOp(&off, 1, op), bench.PlanOp(&on, 1, op)
		if b.KeyAcrossSenders {
			drawn++
		}
		if a.KeyAcrossSenders || a.Sync != b.Sync || a.Chat != b.Chat || a.Key != b.Key || a.Raced != b.Raced ||
			a.DuplicateAfterOK != b.DuplicateAfterOK || a.Outsider != b.Outsider || a.TwinFaults != b.TwinFaults || a.AttemptFaults() != b.AttemptFaults() {
			t.Fatalf("op %d planned %+v with it off and %+v with it on", op, a, b)
		}
	}
	if drawn < 900 || drawn > 1100 {
		t.Fatalf("%d of 2000 ops drawn at probability 0.5", drawn)
	}
}

// Odd keys are new messages: the client's last key in upper case, sent to
// its chat, and long keys that share their first hundred characters. The
// correct core keeps each apart.
func TestOddKeysAreNewMessages(t *testing.T) {
	cfg := scheduleConfig(t, 9, 0)
	cfg.OddKeys = 0.3
	res, err := bench.Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadFile(cfg.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	type chatKey struct{ chat, key string }
	sent := map[chatKey]bool{}
	upper, long := 0, 0
	for _, e := range h.Events {
		if e.Kind != history.KindInvoke || e.F != history.FPersist {
			continue
		}
		sent[chatKey{e.Chat, e.Key}] = true
		switch {
		case len(e.Key) > 100:
			long++
			if len(e.Key) > 128 {
				t.Fatalf("line %d: a key of %d characters, over the API's 128", e.Line, len(e.Key))
			}
		case e.Key != strings.ToLower(e.Key):
			upper++
			if !sent[chatKey{e.Chat, strings.ToLower(e.Key)}] {
				t.Fatalf("line %d: key %q went to %s, where its lower case was never sent", e.Line, e.Key, e.Chat)
			}
		}
	}
	if upper == 0 || long < 2 || res.Counts.OddKeys == 0 {
		t.Fatalf("%d upper-case keys, %d long ones (%d counted): the run sent too few to show anything", upper, long, res.Counts.OddKeys)
	}
	if rep := checker.Check(h, checker.Options{}); rep.ExitCode() != 0 {
		t.Fatalf("the correct core with odd keys: exit %d", rep.ExitCode())
	}
}

// Reads from outside are drawn apart from the plan's stream too, and only
// for syncs: turning them on leaves every other decision of a seed as it
// was.
func TestOutsiderSyncsLeaveEveryOtherDecision(t *testing.T) {
	off := scheduleConfig(t, 5, 0.1)
	off.SyncRatio, off.OutsiderSyncs = 0.3, 0
	on := off
	on.OutsiderSyncs = 0.5
	drawn, syncs := 0, 0
	for op := range 2000 {
		a, b := bench.PlanOp(&off, 2, op), bench.PlanOp(&on, 2, op)
		if b.Sync {
			syncs++
		}
		if b.OutsiderSync {
			drawn++
		}
		if a.OutsiderSync || b.OutsiderSync && !b.Sync || a.Sync != b.Sync || a.Chat != b.Chat || a.Key != b.Key || a.Raced != b.Raced ||
			a.DuplicateAfterOK != b.DuplicateAfterOK || a.Outsider != b.Outsider || a.KeyAcrossSenders != b.KeyAcrossSenders ||
			a.OddKey != b.OddKey || a.TwinFaults != b.TwinFaults || a.AttemptFaults() != b.AttemptFaults() {
			t.Fatalf("op %d planned %+v with it off and %+v with it on", op, a, b)
		}
	}
	if drawn < syncs*4/10 || drawn > syncs*6/10 {
		t.Fatalf("%d of %d syncs drawn at probability 0.5", drawn, syncs)
	}
}
