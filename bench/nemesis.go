package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatseq/chatseq/target"
)

// serverKills are the run's kill_server faults at work.
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
	k := &serverKills{}
	var faults []target.TimedFault
	for _, f := range cfg.Timed {
		if f.Kind == target.KillServer {
			faults = append(faults, f)
		}
	}
	if len(faults) == 0 {
		return k, nil
	}
	killer, ok := t.(target.ServerKiller)
	if !ok {
		return nil, fmt.Errorf("target %s cannot kill its server: %s needs bench --target http --serve CMD (or --nemesis-cmd)", cfg.Target, target.KillServer)
	}
	for _, f := range faults {
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
			if err := killer.KillServer(context.WithoutCancel(ctx)); err != nil {
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
	return k, nil
}

// wait returns how many kills were carried out, and the first that
// failed (the server did not come back).
func (k *serverKills) wait() (int, error) {
	k.wg.Wait()
	return int(k.done.Load()), k.first
}
