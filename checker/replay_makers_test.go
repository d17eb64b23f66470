package checker_test

import (
	"path/filepath"
	"testing"

	"github.com/chatseq/chatseq/checker"
)

// The red team's files (session 36): a key's first send timed out, a
// retry of other content (or sender) was answered as a replay, and the
// message was stored, synced or pushed as the retry sent it; or a send
// invoked after an ok answer of the key sent other content. A replay and
// a send after the key's ok wrote nothing, so the message holds what no
// persist wrote: each file fails the invariant named, where all passed
// while both were counted among the message's makers.
func TestReplaysAndLateSendsMakeNoMessage(t *testing.T) {
	for file, invariant := range map[string]string{
		"replay-content-stored.jsonl":  checker.NameNoPhantomMessages,
		"replay-sender-stored.jsonl":   checker.NameNoPhantomMessages,
		"replay-content-synced.jsonl":  checker.NameSyncCompleteness,
		"replay-content-pushed.jsonl":  checker.NameIdenticalOrder,
		"replay-then-later-send.jsonl": checker.NameNoPhantomMessages,
	} {
		rep, _, err := checker.CheckFile(filepath.Join("testdata", "replay-makers", file), checker.Options{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if r, _ := rep.Result(invariant); r.Status != checker.Fail {
			t.Errorf("%s: %s %s (%s), want a fail", file, invariant, r.Status, r.Detail)
		}
		if rep.ExitCode() != 1 {
			t.Errorf("%s: exit %d, want 1", file, rep.ExitCode())
		}
	}
}
