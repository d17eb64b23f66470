package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/fixtures/kfakecluster"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/closers"
	"github.com/chatseq/chatseq/kafka"
	"github.com/chatseq/chatseq/metrics"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/targets"
)

// DefaultListen is where chatseq serve listens unless told otherwise.
const DefaultListen = "127.0.0.1:8480"

// TestHooksEnv, set to 1 in chatseq serve's environment, turns its test
// hooks on as --test-hooks does: bench --serve sets it for the command it
// starts, which may be any shell command.
const TestHooksEnv = "CHATSEQ_SERVE_TEST_HOOKS"

// TestHooksAsked reports whether the environment asks for the test hooks.
func TestHooksAsked() bool { return os.Getenv(TestHooksEnv) == "1" }

// Exposed says why a server listening at addr can be reached beyond this
// machine ("" when it listens on loopback only): it trusts HeaderUser as
// its authentication, and its test hooks, when on, reach inside the design.
func Exposed(addr string, hooks bool) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() || host == "localhost" {
		return ""
	}
	msg := "WARNING: chatseq serve listens on " + addr + ", beyond loopback: it takes the " + HeaderUser + " header as the caller's identity without checking it, so whoever reaches it can act as any user"
	if hooks {
		msg += ", and its test hooks (--test-hooks) let anyone reset or delete counters, which overwrites acknowledged messages, and inject faults"
	}
	return msg + ". Listen on 127.0.0.1, or put it behind a gateway that authenticates callers and sets " + HeaderUser + "."
}

// Kafka modes of a served target's step 5.
const (
	KafkaOff      = "off"
	KafkaEmbedded = "embedded"
)

// ServeOptions say which target to serve and how.
type ServeOptions struct {
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
	// TestHooks turns on the test hooks (Server.WithTestHooks).
	TestHooks bool
}

// Serving is a running server.
type Serving struct {
	Addr     string // where it listens
	Describe string // the target, as reports name it
	// Contract is what the served target promises; its KeyScope is what
	// bench --target http --key-scope must say to judge it.
	Contract history.Contract
	Brokers  []string // the Kafka it publishes to, nil when off
	Topic    string
	// Volatile: the target's state lives in this process, so a restart
	// starts it empty (targets.Opened.Volatile).
	Volatile bool
	srv      *http.Server
	done     chan error
	closers  closers.Stack
}

// Start opens the target, starts its Kafka publisher and listens. Close
// stops it.
func Start(ctx context.Context, o ServeOptions) (_ *Serving, err error) {
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
	env := bench.TargetEnv{Config: cfg, Elapsed: func() time.Duration { return 0 }}
	if pub != nil {
		env.Publisher = pub
	}
	target, err := opened.Factory(ctx, env)
	if err != nil {
		return nil, err
	}
	s.closers.Push(func() error {
		_ = target.Settle(context.Background())
		return target.Close()
	})
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, err
	}
	s.Addr = ln.Addr().String()
	live := o.Metrics.NewRecorder(0)
	s.closers.Push(func() error { live.Close(); return nil })
	s.srv = newHTTPServer(NewServer(target).CountInto(live).WithTestHooks(o.TestHooks).Handler(), serverTimeouts)
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

func (s *Serving) startKafka(ctx context.Context, o ServeOptions) (*kafka.Publisher, error) {
	brokers := o.Brokers
	if len(brokers) == 0 {
		switch o.Kafka {
		case KafkaOff, "":
			return nil, nil
		case KafkaEmbedded:
			cluster, err := kfakecluster.Start(s.Topic, max(o.Partitions, 1))
			if err != nil {
				return nil, err
			}
			s.closers.Push(func() error { cluster.Close(); return nil })
			brokers = cluster.Brokers()
		default:
			return nil, fmt.Errorf("--kafka must be %s or %s, got %q", KafkaOff, KafkaEmbedded, o.Kafka)
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

// timeouts bound how long one connection may hold the server: a client that
// sends its headers or body slowly, or never, or keeps a connection open
// without asking anything, is cut off rather than kept for good.
type timeouts struct {
	header, read, write, idle time.Duration
}

// serverTimeouts are generous for any honest client: a body is at most 1 MB
// (maxBody) and a sync page at most a thousand messages.
var serverTimeouts = timeouts{header: 10 * time.Second, read: 30 * time.Second, write: 2 * time.Minute, idle: 2 * time.Minute}

func newHTTPServer(h http.Handler, t timeouts) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: t.header, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle}
}
