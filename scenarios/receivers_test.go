package scenarios

import (
	"testing"
	"time"
)

// receivers: and drop_connections_every: reach the run's configuration,
// and thresholds may name the receivers' figures and latencies.
func TestReceiversDecode(t *testing.T) {
	sc, err := Decode([]byte(`name: r
writers: 2
chats: 3
duration: 1s
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
