// Package serve assembles chatseq serve: it opens a registered target,
// starts the Kafka its step 5 publishes to (an embedded cluster, or
// brokers it is given) and puts the target behind httpapi's server.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/closers"
	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/kafka/embedded"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
)

// Kafka modes of a served target's step 5.
const (
	KafkaOff      = "off"
	KafkaEmbedded = "embedded"
)

// Options say which target to serve and how.
type Options struct {
	Target   string // a registered target name
	Open     targets.Options
	Variant  sequencer.Variant
	Strategy sequencer.Strategy
	// RepublishOnReplay: ADR-004 §10's republish on a replay.
	RepublishOnReplay bool
	// Kafka is KafkaOff or KafkaEmbedded, unless Brokers names a cluster.
	Kafka      string
	Brokers    []string
	Topic      string // "": the target's own
	Partitions int32
	// Connections is the target's connection pool, where it has one.
	Connections int
	Listen      string
	Seed        int64
	// Metrics, if set, counts every send and sync for live metrics.
	Metrics *metrics.Exporter
	// TestHooks turns on the test hooks (httpapi.Server.WithTestHooks).
	TestHooks bool
	// PushMaxConnections caps the push channel's devices (0: the
	// gateway's default); the channel runs whenever Kafka does.
	PushMaxConnections int
}

// Serving is a running server.
type Serving struct {
	Addr     string // where it listens
	Describe string // the target, as reports name it
	// Contract is what the served target promises (HTTPContract: what
	// its API promises, which a run driving it states).
	Contract history.Contract
	Brokers  []string // the Kafka it publishes to, nil when off
	Topic    string
	// Volatile: the target's state lives in this process, so a restart
	// starts it empty (targets.Opened.Volatile).
	Volatile bool
	// Push is how the server pushes; nil without Kafka (no push channel).
	Push    *PushInfo
	srv     *http.Server
	done    chan error
	closers closers.Stack
}

// Start opens the target, starts its Kafka publisher and listens. Close
// stops it.
func Start(ctx context.Context, o Options) (_ *Serving, err error) {
	s := &Serving{done: make(chan error, 1)}
	defer func() {
		if err != nil {
			s.closers.Close()
		}
	}()
	opened, err := targets.Open(ctx, o.Target, o.Open)
	if err != nil {
		return nil, err
	}
	s.closers.Push(opened.Close)
	s.Describe, s.Topic, s.Contract, s.Volatile = opened.Describe, opened.Topic, opened.Contract, opened.Volatile
	if o.Topic != "" {
		s.Topic = o.Topic
	}
	if s.Topic == "" {
		s.Topic = sequencer.Topic
	}
	pub, err := s.startKafka(ctx, o)
	if err != nil {
		return nil, err
	}
	cfg := bench.DefaultConfig()
	cfg.Target, cfg.Variant, cfg.Strategy = o.Target, o.Variant, o.Strategy
	cfg.RepublishOnReplay, cfg.Topic, cfg.Seed = o.RepublishOnReplay, s.Topic, o.Seed
	cfg.Writers = max(o.Connections, 1)
	cfg.KafkaOff = pub == nil
	cfg.Faults = bench.FaultRates{} // faults come with each request (Chatseq-Faults)
	env := cfg.TargetEnv(nil, func() time.Duration { return 0 })
	var outage func(time.Duration) // the Kafka outage hook; nil without Kafka
	if pub != nil {
		op := &outagePublisher{inner: pub}
		env.Publisher, outage = op, op.outage
	}
	target, err := opened.Factory(ctx, env)
	if err != nil {
		return nil, err
	}
	s.closers.Push(func() error {
		// A last relay pass before exit, bounded: with the database or
		// Kafka gone it would wait out the relay's own two minutes, and
		// what it leaves stays in the outbox for the next relay.
		settle, cancel := context.WithTimeout(context.Background(), closeSettleTimeout)
		_ = target.Settle(settle)
		cancel()
		return target.Close()
	})
	push, err := s.startPush(ctx, o, target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, err
	}
	s.Addr = ln.Addr().String()
	live := o.Metrics.NewRecorder(0)
	s.closers.Push(func() error { live.Close(); return nil })
	// The API refuses a non-member's send whatever the design: where the
	// design reads no membership, the server reads it.
	checksNone := s.Contract.SendMembership == history.SendMembershipUnchecked
	api := httpapi.NewServer(target).CountInto(live).WithTestHooks(o.TestHooks).WithPush(push).WithKafkaOutage(outage).WithSendMembership(checksNone)
	// Before the target closes: devices get their 1001 and stop acking.
	s.closers.Push(func() error {
		drain, cancel := context.WithTimeout(context.Background(), drainPushFor)
		defer cancel()
		api.DrainPush(drain)
		return nil
	})
	s.srv = httpapi.NewHTTPServer(api.Handler())
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// CheckKafka is the error of a --kafka that is neither off nor embedded,
// nil for those (--brokers names a cluster instead).
func CheckKafka(mode string) error {
	if mode == KafkaOff || mode == KafkaEmbedded {
		return nil
	}
	return fmt.Errorf("--kafka must be %s or %s (or give --brokers), got %q", KafkaOff, KafkaEmbedded, mode)
}

func (s *Serving) startKafka(ctx context.Context, o Options) (*kafka.Publisher, error) {
	brokers := o.Brokers
	if len(brokers) == 0 {
		switch o.Kafka {
		case KafkaOff, "":
			return nil, nil
		case KafkaEmbedded:
			cluster, err := embedded.Start(s.Topic, max(o.Partitions, 1))
			if err != nil {
				return nil, err
			}
			s.closers.Push(func() error { cluster.Close(); return nil })
			brokers = cluster.Brokers()
		default:
			return nil, CheckKafka(o.Kafka)
		}
	}
	pub, err := kafka.NewPublisher(ctx, brokers, s.Topic, max(o.Partitions, 1))
	if err != nil {
		return nil, err
	}
	s.closers.Push(func() error { pub.Close(); return nil })
	s.Brokers = brokers
	return pub, nil
}

// drainPushFor bounds how long a shutdown waits for push connections to
// close.
const drainPushFor = 3 * time.Second

// Wait returns when the server stops: ctx ends (a clean shutdown) or it
// fails.
func (s *Serving) Wait(ctx context.Context) error {
	select {
	case err := <-s.done:
		return err
	case <-ctx.Done():
		return s.Close()
	}
}

// closeSettleTimeout bounds the target's last settle when serve stops.
const closeSettleTimeout = 10 * time.Second

// Close stops listening, lets requests in flight finish briefly, then
// closes the target.
func (s *Serving) Close() error {
	var err error
	if s.srv != nil {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err = s.srv.Shutdown(shut); errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
	}
	return errors.Join(err, s.closers.Close())
}

// HTTPContract is what the server's API promises of the fields a run
// driving it over HTTP states (history.ContractField.MappingStates): the
// target's, but that the API refuses a non-member's send and read whatever
// the design reads (send_membership and read_membership checked) and
// subscribes a device before its 101 (stream_start at-connect).
func (s *Serving) HTTPContract() history.Contract {
	c := s.Contract
	c.SendMembership, c.StreamStart = history.SendMembershipChecked, history.StreamStartAtConnect
	c.ReadMembership = history.ReadMembershipChecked
	var stated history.Contract
	for _, f := range history.ContractFields {
		if f.MappingStates {
			*f.Of(&stated) = *f.Of(&c)
		}
	}
	return stated.WithDefaults(false)
}
