package postgres

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestClusterServesQueriesAndCleansUp(t *testing.T) {
	c, err := Start(context.Background())
	if err != nil {
		t.Fatalf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN())
	if err != nil {
		t.Fatalf("connect %s: %v", c.DSN(), err)
	}
	var who string
	var n int
	if err := conn.QueryRow(ctx, "SELECT current_user, 40 + 2").Scan(&who, &n); err != nil {
		t.Fatalf("query: %v", err)
	}
	_ = conn.Close(ctx)
	if who != Superuser || n != 42 {
		t.Errorf("got user %q and %d, want %q and 42", who, n, Superuser)
	}
	dir := c.dir
	if err := c.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory %s still there after Stop (stat: %v)", dir, err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// Halt is a crash: connections break and committed data survives Resume.
func TestHaltBreaksConnectionsAndResumeKeepsData(t *testing.T) {
	c := startForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE TABLE t (v int); INSERT INTO t VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Halt(); err != nil {
		t.Fatalf("halt: %v", err)
	}
	if _, err := conn.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("a query on a halted server succeeded")
	}
	if err := c.Halt(); err == nil {
		t.Error("Halt of a halted server did not report it")
	}
	if err := c.Resume(ctx); err != nil {
		t.Fatalf("resume: %v", err)
	}
	conn2, err := pgx.Connect(ctx, c.DSN())
	if err != nil {
		t.Fatalf("connect after resume: %v", err)
	}
	defer conn2.Close(context.Background())
	var v int
	if err := conn2.QueryRow(ctx, "SELECT v FROM t").Scan(&v); err != nil || v != 7 {
		t.Fatalf("after resume got %d, %v; want 7", v, err)
	}
}

func TestFindBinHonoursEnvAndExplainsMisses(t *testing.T) {
	t.Setenv(EnvBin, t.TempDir())
	_, err := FindBin()
	if err == nil {
		t.Fatal("an empty CHATSEQ_PG_BIN was accepted")
	}
	if !strings.Contains(err.Error(), ".ci/install-postgres") || !strings.Contains(err.Error(), EnvBin) {
		t.Errorf("error does not say how to install: %v", err)
	}
	if _, err := Start(context.Background()); err == nil {
		t.Error("Start succeeded without binaries")
	}
}
