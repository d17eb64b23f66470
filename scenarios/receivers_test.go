package scenarios

import (
	"strings"
	"testing"
	"time"
)

// receivers: and drop_connections_every: reach the run's configuration,
// and thresholds may name the receivers' figures and latencies.
func TestReceiversDecode(t *testing.T) {
	sc, err := Decode([]byte(`name: r
writers: 2
chats: 3
duration: 3s
receivers: 4
drop_connections_every: 250ms
variant: sync-watermark
thresholds:
  - fan_out.p99 < 5s
  - full_visibility.max < 10s
  - fully_visible > 0
  - receiver_drops >= 1
  - receiver_duplicates >= 0
expect: pass
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config()
	if cfg.Receivers != 4 || cfg.DropConnectionsEvery != 250*time.Millisecond {
		t.Fatalf("config receivers %d, drops every %s; want 4, 250ms", cfg.Receivers, cfg.DropConnectionsEvery)
	}
	if len(sc.Thresholds) != 5 {
		t.Fatalf("%d thresholds, want 5", len(sc.Thresholds))
	}
}

// Every bad receivers value is an error at its line.
func TestReceiversBadValues(t *testing.T) {
	head := "name: r\nwriters: 2\nchats: 3\nduration: 1s\nexpect: pass\n"
	for _, c := range []struct {
		src       string
		line      int
		fragments []string
	}{
		{head + "receivers: -1\n", 6, []string{"receivers"}},
		{head + "receivers: two\n", 6, []string{"receivers"}},
		{head + "receivers: 1001\n", 6, []string{"receivers", "1000"}},
		{head + "receivers: 2\ndrop_connections_every: 5\n", 7, []string{"drop_connections_every", "needs a unit"}},
		{head + "receivers: 2\ndrop_connections_every: 0s\n", 7, []string{"drop_connections_every", "positive"}},
		{head + "receivers: 2\ndrop_connections_every: soon\n", 7, []string{"drop_connections_every", "not a duration"}},
		{head + "drop_connections_every: 1s\n", 6, []string{"give receivers: N too"}},
		{head + "receivers: 0\ndrop_connections_every: 1s\n", 7, []string{"give receivers: N too"}},
		{head + "receivers: 2\nkafka: off\n", 6, []string{"receivers", "kafka: off"}},
		{"name: r\nwriters: 2\nchats: 200\nduration: 1s\nexpect: pass\nreceivers: 600\n", 6, []string{"120000 devices", "100000"}},
		{head + "thresholds:\n  - fan_out.p99 < 1s\n", 7, []string{"fan_out.p99", "only receivers"}},
		{head + "thresholds:\n  - receiver_drops > 0\n", 7, []string{"receiver_drops", "only receivers"}},
		{head + "thresholds:\n  - fan_out.p99 < 3\n", 7, []string{"fan_out.p99"}},
		{head + "broken: gateway-foreign-push\n", 6, []string{"gateway-foreign-push", "give receivers: N too"}},
	} {
		wantError(t, decodeErrors(t, c.src), c.line, c.fragments...)
	}
}

// drop_connections_for and the slow commit reach the run's configuration;
// each bad value is an error at its line.
func TestLateCommitKeys(t *testing.T) {
	sc, err := Decode([]byte(`name: r
writers: 2
chats: 3
duration: 3s
receivers: 4
drop_connections_every: 300ms
drop_connections_for: 150ms
faults:
  slow_commit: 0.02
  slow_commit_delay: 120ms
expect: pass
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config()
	if cfg.DropConnectionsFor != 150*time.Millisecond || cfg.Faults.SlowCommit != 0.02 || cfg.Faults.SlowCommitDelay != 120*time.Millisecond {
		t.Fatalf("offline %s, slow commit %g for %s; want 150ms, 0.02 for 120ms", cfg.DropConnectionsFor, cfg.Faults.SlowCommit, cfg.Faults.SlowCommitDelay)
	}
	head := "name: r\nwriters: 2\nchats: 3\nduration: 1s\nexpect: pass\n"
	for _, c := range []struct {
		src       string
		line      int
		fragments []string
	}{
		{head + "receivers: 2\ndrop_connections_every: 1s\ndrop_connections_for: 0s\n", 8, []string{"drop_connections_for", "positive"}},
		{head + "drop_connections_for: 1s\n", 6, []string{"drop_connections_for", "give receivers: N"}},
		{head + "receivers: 2\ndrop_connections_for: 1s\n", 7, []string{"drop_connections_for", "give drop_connections_every too"}},
		{head + "receivers: 2\ndrop_connections_every: 300ms\ndrop_connections_for: 15s\n", 8, []string{"drop_connections_for 15s", "shorter than drop_connections_every 300ms"}},
		{head + "receivers: 2\ndrop_connections_for: 300ms\ndrop_connections_every: 300ms\n", 7, []string{"drop_connections_for 300ms", "shorter"}},
		{head + "faults:\n  slow_commit: 2\n", 7, []string{"slow_commit"}},
		{head + "faults:\n  slow_commit_delay: 0s\n", 7, []string{"slow_commit_delay", "positive"}},
		{head + "target: ledger\nfaults:\n  slow_commit: 0.1\n", 8, []string{"slow_commit", "ADR-004's core only"}},
		// The devices' last connections need target.LastConnectionOpen
		// to be judged (stream_completeness): a nemesis or a scheduled
		// drop or kill that leaves them less is refused, not run.
		{head + "receivers: 2\ndrop_connections_every: 300ms\n", 7, []string{"drop_connections_every 300ms never strikes in a 1s run", "at least 2.3s"}},
		{strings.Replace(head, "1s", "3s", 1) + "receivers: 2\nschedule:\n  - {fault: drop_connections, at: 1500ms, for: 10ms}\n", 8, []string{"drop_connections at 1.5s ends the receivers' connections less than 2s before the 3s run's end", "by 990ms"}},
	} {
		wantError(t, decodeErrors(t, c.src), c.line, c.fragments...)
	}
}

// duplicate_late and duplicate_late_after reach the run's configuration;
// a bad value is an error at its line.
func TestDuplicateLateKeys(t *testing.T) {
	sc, err := Decode([]byte("name: r\nduration: 3s\nduplicate_late: 5%\nduplicate_late_after: 500ms\nexpect: pass\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg := sc.Config(); cfg.DuplicateLate != 0.05 || cfg.DuplicateLateAfter != 500*time.Millisecond {
		t.Fatalf("duplicate_late %g after %s, want 0.05 after 500ms", cfg.DuplicateLate, cfg.DuplicateLateAfter)
	}
	if sc, _ := Decode([]byte("name: r\nduration: 3s\nduplicate_late: 5%\nexpect: pass\n"), "x.yaml"); sc.Config().DuplicateLateAfter != time.Second {
		t.Errorf("duplicate_late_after's default: %s, want 1s", sc.Config().DuplicateLateAfter)
	}
	head := "name: r\nduration: 3s\nexpect: pass\n"
	wantError(t, decodeErrors(t, head+"duplicate_late: 2\n"), 4, "duplicate_late")
	wantError(t, decodeErrors(t, head+"duplicate_late_after: 0s\n"), 4, "duplicate_late_after", "positive")
}
