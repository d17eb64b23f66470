package cmd

import (
	"fmt"
	"net"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/serve"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

func newServeCommand() *cobra.Command {
	var (
		o        = serve.Options{RepublishOnReplay: true, Seed: 1}
		target   string
		broken   string
		variant  string
		strategy string
		brokers  string
		store    storeopen.Options
		live     metricsFlag
	)
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve a target through chatseq's chat sequencing HTTP API (docs/http-api.md)",
		Long: `serve puts a target (memory by default, dynamodb, dynamodb-local, postgres,
ledger), or one of its variants (--broken, --variant), behind chatseq's
HTTP API, the reference implementation 'chatseq bench --target http'
drives. It prints where it listens and serves until interrupted.

Callers name themselves with the X-User-Id header (the user a gateway in
front of it authenticated): a send's sender is that user, and only a chat's
members read it. With Kafka (--kafka embedded, or --brokers) it also
pushes: a device at /v1/push (WebSocket) receives its user's chats'
messages from the topic, and its acks are kept as delivery_state
(docs/http-api.md, "The push channel"). The test hooks are off unless
--test-hooks (or CHATSEQ_SERVE_TEST_HOOKS=1, which bench --serve sets)
turns them on.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.PushMaxConnections < 1 {
				return badInput("--push-max-connections must be at least 1, got %d", o.PushMaxConnections)
			}
			if err := checkListen(o.Listen); err != nil {
				return usageError{err}
			}
			if !targets.Known(target) || target == "http" {
				return badInput("--target: unknown target %q (known: %s)", target, strings.Join(servable(), ", "))
			}
			if err := refuseIgnoredFlags(c.Flags(), []string{target}); err != nil {
				return err
			}
			// As bench checks them: a bad --kafka exited 5, once the
			// target was opened, and --partitions 0 was taken.
			if err := serve.CheckKafka(o.Kafka); err != nil {
				return usageError{err}
			}
			if o.Partitions < 1 {
				return badInput("--partitions must be at least 1, got %d", o.Partitions)
			}
			chosen, note, err := targets.SelectVariant(target, broken, variant, targets.FlagSpelling)
			if err != nil {
				return usageError{err}
			}
			if note != "" {
				c.PrintErrln("note: " + note)
			}
			s, ok := sequencer.ParseStrategy(strategy)
			if !ok {
				return badInput("--strategy must be two-phase or occ, got %q", strategy)
			}
			if err := store.Validate(); err != nil {
				return usageError{err}
			}
			o.Target, o.Variant, o.Strategy, o.Open.Store = target, sequencer.Variant(chosen), s, store
			for _, b := range strings.Split(brokers, ",") {
				if b = strings.TrimSpace(b); b != "" {
					o.Brokers = append(o.Brokers, b)
				}
			}
			if gateway.IsVariant(chosen) && len(o.Brokers) == 0 && o.Kafka == serve.KafkaOff {
				return badInput("--broken %s breaks the push channel, which needs the events topic: give --kafka embedded or --brokers", chosen)
			}
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if o.Metrics, err = live.start(ctx, c.ErrOrStderr()); err != nil {
				return err
			}
			o.Metrics.SetPhase("serving")
			o.TestHooks = o.TestHooks || httpapi.TestHooksAsked()
			srv, err := serve.Start(ctx, o)
			if err != nil {
				return fmt.Errorf("serve --target %s: %w", target, err)
			}
			if warning := httpapi.Exposed(srv.Addr, o.TestHooks); warning != "" {
				fmt.Fprintln(c.ErrOrStderr(), warning)
			}
			out := c.OutOrStdout()
			// bench --serve reads this line to learn where it listens.
			fmt.Fprintln(out, httpapi.ListeningLine(srv.Describe, srv.Addr, srv.Volatile))
			fmt.Fprintln(out, "  "+contractLine(srv.HTTPContract()))
			if o.TestHooks {
				fmt.Fprintln(out, "  test hooks on: counter reads, resets and deletes, Chatseq-Faults and Chatseq-Race, POST /v1/test/settle and /v1/test/kafka_outage (for chatseq's runs only)")
			}
			if len(srv.Brokers) > 0 {
				fmt.Fprintf(out, "  publishing to Kafka %s, topic %s\n", strings.Join(srv.Brokers, ","), srv.Topic)
			}
			fmt.Fprintln(out, "  "+srv.PushLine())
			return srv.Wait(ctx)
		},
	}
	fl := c.Flags()
	fl.StringVar(&target, "target", storeopen.Memory, "design to serve: "+strings.Join(servable(), ", "))
	fl.StringVar(&o.Listen, "listen", httpapi.DefaultListen, "address to listen on (port 0: any free port); beyond loopback it warns: the "+httpapi.HeaderUser+" header is trusted as the caller's identity")
	fl.BoolVar(&o.TestHooks, "test-hooks", false, "answer the test hooks chatseq's runs use (counter read, reset and delete; the Chatseq-Faults and Chatseq-Race headers; POST /v1/test/settle and /v1/test/kafka_outage), which a client could use to overwrite acknowledged messages; bench --serve turns them on ("+httpapi.TestHooksEnv+"=1)")
	live.register(fl)
	fl.StringVar(&broken, "broken", "", "serve a deliberately broken variant of the target, a bug an invariant must catch: "+variantHelp(false))
	fl.StringVar(&variant, "variant", "", "serve another design of the target, one that keeps a promise the design as written breaks: "+variantHelp(true))
	fl.StringVar(&strategy, "strategy", "two-phase", "ADR-004's allocation: two-phase or occ")
	fl.BoolVar(&o.RepublishOnReplay, "republish-on-replay", true, "publish again when a retry is answered from the idempotency record (ADR-004 §10)")
	fl.StringVar(&o.Kafka, "kafka", serve.KafkaOff, "step 5's Kafka: off, or embedded (an in-process cluster whose address serve prints)")
	fl.StringVar(&brokers, "brokers", "", "comma-separated brokers of a real Kafka cluster to publish to (overrides --kafka)")
	fl.StringVar(&o.Topic, "topic", "", "Kafka topic (default: the target's)")
	fl.Int32Var(&o.Partitions, "partitions", 8, "partitions when serve creates the topic")
	fl.StringVar(&o.Open.DSN, "dsn", "", "PostgreSQL connection string for --target postgres (default: a throwaway local cluster)")
	fl.StringVar(&o.Open.Schema, "schema", "", "for --target postgres: a schema to use and keep (created when missing), so a restarted server finds its rows (default: a fresh one, dropped on exit)")
	fl.IntVar(&o.PushMaxConnections, "push-max-connections", gateway.DefaultMaxDevices, "the most devices the push channel (/v1/push, on with --kafka embedded or --brokers) holds at once; more are refused 503 push.too_many_connections")
	fl.IntVar(&o.Connections, "connections", 16, "the target's connection pool, where it has one (postgres)")
	addStoreFlags(fl, &store)
	_ = fl.MarkHidden("store")
	return c
}

// servable lists the targets serve can put behind the API: all but the
// http client itself.
func servable() []string {
	var names []string
	for _, n := range targets.Names() {
		if n != "http" {
			names = append(names, n)
		}
	}
	return names
}

// contractLine states what the served API promises of the fields a run
// driving it over HTTP states, and the flags that state what differs from
// chatseq's API as bench --target http assumes it. Driven by --url without
// them, a run judges the service by a contract it does not keep (the
// ledger's per-sender keys under key_scope chat fail
// idempotency_guarantee); bench --serve reads the line and adopts it.
func contractLine(served history.Contract) string {
	assumed := httptarget.DefaultAPI().Contract.WithDefaults(false)
	var flags []string
	for _, cf := range serviceStatedFields() {
		if v := *cf.Of(&served); v != *cf.Of(&assumed) {
			flags = append(flags, "--"+cf.Flag+" "+v)
		}
	}
	line := httptarget.StatedContract(served)
	if len(flags) == 0 {
		return line + "; bench --target http states it unasked"
	}
	return line + "; drive it with bench --target http " + strings.Join(flags, " ") + " (bench --serve adopts it)"
}

// checkListen refuses a --listen that is no host:port before anything
// starts: it was found only when listening failed, and exited 5.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return fmt.Errorf("--listen %q is not a host:port to listen on (%v), e.g. %s", addr, err, httpapi.DefaultListen)
	}
	return nil
}
