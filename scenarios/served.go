package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/internal/closers"
	"github.com/chatseq/chatseq/internal/proc"
	"github.com/chatseq/chatseq/kafka/embedded"
	pgserver "github.com/chatseq/chatseq/localserver/postgres"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
	pgtarget "github.com/chatseq/chatseq/targets/postgres"
)

// servedPartitions are the partitions of the topic a served scenario's
// Kafka holds.
const servedPartitions = 4

// servedRun is what a served scenario (serve: true) drives: chatseq
// serve in a process of its own, started by the http target (--serve)
// with its test hooks, which kill_server faults SIGKILL and restart.
// What must outlive a kill lives here, in the runner's process: the
// store (a throwaway PostgreSQL for target postgres, unless Options.DSN
// names one) and the Kafka the server publishes to and the run reads back
// (an embedded cluster, unless kafka: off). A design whose state lives in
// the served process (memory) runs too, but its kills are refused
// (targets.Opened.CheckKills).
type servedRun struct {
	reach   targets.Options
	brokers []string
	cleanup closers.Stack // what startServed started, stopped last first
}

// serveCommand is chatseq serve with args, as a shell command.
func (o Options) serveCommand(args []string) (string, error) {
	if o.ServeCommand == nil {
		return "", errors.New("serve: true needs chatseq's own binary to start chatseq serve, which chatseq run gives (Options.ServeCommand)")
	}
	return o.ServeCommand(args), nil
}

// startServed readies what cfg's design needs to be served, and turns
// cfg into the run over HTTP that drives it.
func startServed(ctx context.Context, sc *Scenario, cfg *bench.Config, opts Options) (_ *servedRun, err error) {
	s := &servedRun{}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	args := []string{"--target", cfg.Target}
	if cfg.Variant != "" {
		flag := "--broken"
		if sc.Design {
			flag = "--variant"
		}
		args = append(args, flag, string(cfg.Variant))
	}
	if cfg.Strategy != "" && cfg.Strategy != sequencer.TwoPhase {
		args = append(args, "--strategy", string(cfg.Strategy))
	}
	if !cfg.RepublishOnReplay {
		args = append(args, "--republish-on-replay=false")
	}
	if cfg.Target == pgtarget.Name {
		// The rows outlive a kill: a cluster of the runner's (or the
		// user's --dsn) and a schema the restarted server finds again.
		dsn := opts.DSN
		if dsn == "" {
			c, err := pgserver.Start(ctx)
			if err != nil {
				return nil, fmt.Errorf("serve: a throwaway PostgreSQL for the served design did not start: %w", err)
			}
			s.cleanup.Push(c.Stop)
			dsn = c.DSN()
		}
		args = append(args, "--dsn", dsn, "--schema", "scn_served_"+strconv.FormatInt(time.Now().UnixNano(), 36))
	}
	port, err := proc.FreePort()
	if err != nil {
		return nil, fmt.Errorf("serve: no port to listen on: %w", err)
	}
	// A fixed port: the restarted server must listen where the run sends.
	args = append(args, "--listen", "127.0.0.1:"+strconv.Itoa(port))
	if !cfg.KafkaOff {
		// The topic outlives the killed server, as a real cluster does:
		// the push channel of the restarted one and the run read it.
		c, err := embedded.Start(sequencer.Topic, servedPartitions)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		s.cleanup.Push(func() error { c.Close(); return nil })
		s.brokers = c.Brokers()
		args = append(args, "--brokers", strings.Join(s.brokers, ","), "--topic", sequencer.Topic)
	}
	command, err := opts.serveCommand(args)
	if err != nil {
		return nil, err
	}
	s.reach = targets.Options{Serve: command}
	cfg.Target, cfg.Variant, cfg.Strategy, cfg.RepublishOnReplay = httptarget.Name, "", sequencer.TwoPhase, true
	return s, nil
}

// close stops what startServed started, last first.
func (s *servedRun) close() error { return s.cleanup.Close() }
