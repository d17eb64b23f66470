// Timed scenarios (f-store-errors runs 1.2 s) need the throughput the
// race detector takes away, over HTTP, to meet their thresholds: test.sh
// runs this test without it.

//go:build !race

package httptarget_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatseq/chatseq/scenarios"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// Every shipped ADR-004 scenario, run through chatseq serve and the http
// target, comes out as it does in process.
func TestShippedADR004ScenariosThroughHTTP(t *testing.T) {
	files, err := scenarios.Collect([]string{filepath.Join("..", "..", "scenarios", "adr004")})
	if err != nil {
		t.Fatal(err)
	}
	scs, err := scenarios.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) < 8 {
		t.Fatalf("%d ADR-004 scenarios, want the 8 shipped", len(scs))
	}
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			s := startServer(t, sc.Variant, !sc.KafkaOff)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			o := scenarios.Run(ctx, sc, scenarios.Options{
				OutDir: t.TempDir(), Open: targets.Options{URL: "http://" + s.Addr}, Brokers: s.Brokers,
				Overrides: scenarios.Overrides{Target: httptarget.Name},
			})
			if o.Verdict != scenarios.Pass {
				t.Errorf("%s through HTTP: %s\n%v", sc.Name, o.Verdict, o.Problems)
			}
		})
	}
}
