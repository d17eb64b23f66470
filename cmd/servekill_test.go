package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/fixtures/postgres"
	"github.com/chatseq/chatseq/internal/evidence"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/report"
	pgtarget "github.com/chatseq/chatseq/targets/postgres"
)

// deliveryInvariants are the push channel's, which the delivery plane's
// runs must judge (not n/a).
var deliveryInvariants = []string{
	checker.NameEventualVisibility, checker.NameIdenticalOrder,
	checker.NameDeliveryStateConsistency, checker.NamePushAuthorization,
	checker.NameStreamContinuity,
}

// The delivery plane through every nemesis, as a user runs it: chatseq
// serve over a store that outlives its process (PostgreSQL, the design
// whose sequence is drawn inside the transaction, so no commit lands
// below a sequence a catch-up passed) and a Kafka that does too, whose
// topic feeds /v1/push and which the run reads back; bench --target http --serve kills and restarts it, drops every
// device's connection on a clock, and a scheduled kafka_outage fails the
// served server's produces (its test hook). Every device reconnects,
// catches up by sync and settles: the run passes with the five delivery
// invariants judged, and the kills and the outage landed. Before the
// outage reached the server, bench refused the schedule ("Kafka
// is off"); before --schedule kept --kill-every's kills, the run had none.
func TestServedDeliveryPlaneSurvivesKillsDropsAndAKafkaOutage(t *testing.T) {
	dsn := postgres.StartForTest(t).DSN()
	// The topic outlives the killed server, as a real cluster does: the
	// run reads it back (the final events table stream_continuity judges
	// against); an embedded one of the served process would restart empty.
	cluster, err := embedded.Start(pgtarget.Topic, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	brokers := strings.Join(cluster.Brokers(), ",")
	evidence.Rerun(t, evidence.Default, func(n int) string {
		serveArgs := fmt.Sprintf("--brokers %s --topic "+pgtarget.Topic+" --target postgres --variant sequence-in-tx --dsn %s --schema pushkill%d --listen 127.0.0.1:%d", brokers, dsn, n, closedPort(t))
		code, out, errOut := run(t, "bench", "--target", "http", "--serve", serveSelf(serveArgs), "--key-scope", "sender",
			"--brokers", brokers, "--topic", pgtarget.Topic, "--kill-every", "1500ms", "--receivers", "2", "--drop-connections-every", "700ms",
			"--schedule", "{fault: kafka_outage, at: 2s, for: 700ms}",
			"--duration", "4s", "--writers", "4", "--chats", "6", "--seed", fmt.Sprint(n),
			"--require", strings.Join(deliveryInvariants, ","),
			"--history", filepath.Join(t.TempDir(), "h.jsonl"), "--format", "json")
		if code != ExitOK {
			t.Fatalf("exit %d, want %d (PASS):\nstdout:\n%s\nstderr:\n%s", code, ExitOK, out, errOut)
		}
		var b report.Bench
		if err := json.Unmarshal([]byte(out), &b); err != nil {
			t.Fatalf("the JSON report: %v\n%s", err, out)
		}
		for _, name := range deliveryInvariants {
			if r, ok := b.Check.Result(name); !ok || r.Status != checker.Pass {
				t.Errorf("%s: %+v (judged: %v), want PASS", name, r, ok)
			}
		}
		if b.ServerKafkaOutages != 1 {
			t.Errorf("server Kafka outages %d, want the schedule's 1", b.ServerKafkaOutages)
		}
		if b.Receivers == nil || b.Receivers.Drops == 0 || b.Receivers.Reconnects == 0 {
			t.Errorf("receivers %+v: want connections dropped and devices reconnected", b.Receivers)
		}
		if b.ServerKills == 0 {
			return "no kill of the server landed before the writers stopped"
		}
		return ""
	})
}
