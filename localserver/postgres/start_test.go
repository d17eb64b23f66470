package postgres

import (
	"testing"

	"github.com/chatseq/chatseq/fixtures/testctx"
)

// startForTest is fixtures/postgres.StartForTest, which these tests cannot
// import (it imports this package): a cluster started within the test's
// own time and stopped when the test ends; missing server binaries fail the
// test, never skip it.
func startForTest(t testing.TB) *Cluster {
	t.Helper()
	ctx, cancel := testctx.Context(t, StartTimeout)
	defer cancel()
	c, err := Start(ctx)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("postgres: stop: %v", err)
		}
	})
	return c
}
