package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chatseq/chatseq/bench"
)

// delivery_state keeps the highest ack per (chat, user) across a restart
// over a kept schema; a kept schema from before the table gets it; the
// members list as created.
func TestDeliveryStateIsKeptMonotonicInItsTable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	schema := newSchemaName()
	open := func() *target {
		t.Helper()
		tgt, err := Factory(Config{DSN: cluster(t).DSN(), Schema: schema})(ctx, bench.DefaultConfig().TargetEnv(nil, func() time.Duration { return 0 }))
		if err != nil {
			t.Fatal(err)
		}
		return tgt.(*target)
	}
	first := open()
	t.Cleanup(func() { _ = dropSchema(context.Background(), first.pool, schema); first.Close() })
	// A schema kept by a chatseq from before delivery_state.
	if _, err := first.pool.Exec(ctx, "DROP TABLE delivery_state"); err != nil {
		t.Fatal(err)
	}
	if err := first.CreateChat(ctx, "c1", []string{"u2", "u1"}); err != nil {
		t.Fatal(err)
	}
	second := open()
	defer second.Close()
	for _, step := range []struct {
		user      string
		ack, want uint64
	}{{"u1", 5, 5}, {"u1", 2, 5}, {"u1", 7, 7}, {"u2", 1, 1}} {
		got, err := second.RecordAck(ctx, "c1", step.user, step.ack)
		if err != nil || got != step.want {
			t.Fatalf("ack %d by %s stored %d (%v), want %d", step.ack, step.user, got, err, step.want)
		}
	}
	third := open()
	defer third.Close()
	rows, err := third.DeliveryStates(ctx, "c1")
	if err != nil || fmt.Sprint(rows) != "[{c1 u1 7} {c1 u2 1}]" {
		t.Errorf("after a restart: %v (%v), want u1 at 7 and u2 at 1", rows, err)
	}
	members, err := third.Members(ctx, "c1")
	if err != nil || fmt.Sprint(members) != "[u1 u2]" {
		t.Errorf("members %v (%v)", members, err)
	}
}
