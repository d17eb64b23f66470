package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/target"
)

// serverKills are the run's faults of the server at work (kill_server,
// and kafka_outage on a remote target).
type serverKills struct {
	wg    sync.WaitGroup
	done  atomic.Int64
	mu    sync.Mutex
	first error
}

// scheduleServerKills kills the target's server at each KillServer fault
// until ctx ends; wait for the kills in flight (the server is up again
// after each) before reading the final state.
func scheduleServerKills(ctx context.Context, t target.Target, cfg Config) (*serverKills, error) {
	if !hasTimed(cfg, target.KillServer) {
		return &serverKills{}, nil
	}
	killer, ok := t.(target.ServerKiller)
	if !ok {
		return nil, fmt.Errorf("target %s cannot kill its server: %s needs bench --target http --serve CMD (or --nemesis-cmd)", cfg.Target, target.KillServer)
	}
	return scheduleOnServer(ctx, cfg, target.KillServer, func(ctx context.Context, _ target.TimedFault) error {
		return killer.KillServer(ctx)
	}), nil
}

// scheduleServerOutages carries the run's kafka_outage faults out on a
// target whose server publishes to a Kafka of its own (a remote one,
// target.KafkaFaulter); an embedded target's outages fail the run's own
// publisher instead (withOutages), and none is scheduled here for it.
func scheduleServerOutages(ctx context.Context, t target.Target, cfg Config) *serverKills {
	faulter, ok := t.(target.KafkaFaulter)
	if !ok || !hasTimed(cfg, target.KafkaOutage) {
		return &serverKills{}
	}
	return scheduleOnServer(ctx, cfg, target.KafkaOutage, func(ctx context.Context, f target.TimedFault) error {
		return faulter.KafkaOutage(ctx, f.For)
	})
}

func hasTimed(cfg Config, kind string) bool {
	for _, f := range cfg.Timed {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// scheduleOnServer does fault at each of the run's timed faults of kind,
// on the run's clock, until ctx ends.
func scheduleOnServer(ctx context.Context, cfg Config, kind string, fault func(context.Context, target.TimedFault) error) *serverKills {
	k := &serverKills{}
	for _, f := range cfg.Timed {
		if f.Kind != kind {
			continue
		}
		k.wg.Add(1)
		go func(f target.TimedFault) {
			defer k.wg.Done()
			timer := time.NewTimer(f.At)
			defer timer.Stop()
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			if err := fault(context.WithoutCancel(ctx), f); err != nil {
				k.mu.Lock()
				if k.first == nil {
					k.first = err
				}
				k.mu.Unlock()
				return
			}
			k.done.Add(1)
		}(f)
	}
	return k
}

// wait returns how many kills were carried out, and the first that
// failed (the server did not come back).
func (k *serverKills) wait() (int, error) {
	k.wg.Wait()
	return int(k.done.Load()), k.first
}
