package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/recovery"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/dynamostore"
	"github.com/chatseq/chatseq/storeopen"
)

type recoverFlags struct {
	store       storeopen.Options
	chat        string
	apply       bool
	allowRemote bool
}

func newRecoverCommand() *cobra.Command {
	var f recoverFlags
	c := &cobra.Command{
		Use:   "recover --chat ID",
		Short: "Recreate a chat's missing counter (ADR-004's counter recovery runbook); dry run unless --apply",
		Long: `recover runs ADR-004's "Counter Recovery Procedure" for one chat on DynamoDB:
it reads the highest persisted sequence (strongly consistent, descending,
limit 1) and the counter. If the counter is missing it would put it back at
that sequence with attribute_not_exists(chat_id); by default it only prints
what it would write and why. --apply writes.

The runbook requires that nothing writes to the chat while it runs: a send
that allocated its sequence before the counter vanished and commits after the
recovery gets a sequence the recovered counter hands out again (see 'chatseq
drill unsafe-recovery'). Stop or drain the ingest path for the chat first.

It refuses a counter that exists. It writes only to localhost, 127.0.0.1 or
[::1] unless --allow-remote is given, and then only with a non-empty
--table-prefix.

Exit status: 0 recovered (or, dry run, recoverable), 1 the counter exists
below the highest persisted sequence or writes are still landing, 2 bad flags
or nothing to recover (the counter exists), 5 the store could not be read or
written.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runRecover(c, &f) },
	}
	fl := c.Flags()
	addStoreFlags(fl, &f.store)
	dynamoDBByDefault(c)
	fl.StringVar(&f.chat, "chat", "", "the chat whose counter to recover (required)")
	fl.BoolVar(&f.apply, "apply", false, "write the counter (default: dry run, print what would be written)")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow an endpoint other than localhost, 127.0.0.1 or [::1] (real AWS included); needs a non-empty --table-prefix")
	return c
}

// dynamoDBByDefault makes --store default to dynamodb for commands that only
// make sense on tables that persist (setup, teardown, recover).
func dynamoDBByDefault(c *cobra.Command) {
	fl := c.Flags().Lookup("store")
	fl.DefValue = storeopen.DynamoDB
	fl.Usage = "store: dynamodb (the only one this command works on)"
	_ = fl.Value.Set(storeopen.DynamoDB)
}

// requireDynamoDB explains why the other kinds make no sense for what.
func requireDynamoDB(o storeopen.Options, what string) error {
	switch o.Kind {
	case storeopen.DynamoDB:
	case storeopen.DynamoDBLocal:
		return badInput("--store dynamodb-local starts a throwaway DynamoDB Local with fresh tables, so there is nothing to %s; for a DynamoDB Local you run yourself use --store dynamodb --endpoint http://localhost:8000", what)
	case storeopen.Memory:
		return badInput("--store memory keeps nothing between runs, so there is nothing to %s; use --store dynamodb", what)
	}
	if err := o.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}

func runRecover(c *cobra.Command, f *recoverFlags) error {
	if f.chat == "" {
		return badInput("recover: --chat is required")
	}
	if err := requireDynamoDB(f.store, "recover"); err != nil {
		return err
	}
	st, describe, err := openGuarded(c.Context(), f.store, f.allowRemote)
	if err != nil {
		return err
	}
	defer st.Close()

	out := c.OutOrStdout()
	ctx := c.Context()
	p, err := recovery.Plan(ctx, st, f.chat)
	printPlan(out, p, describe)
	if err != nil {
		return recoverExit(c, err)
	}
	if !f.apply {
		fmt.Fprintln(out, "dry run: nothing written. Make sure nothing writes to the chat, then rerun with --apply.")
		return nil
	}
	res, err := recovery.Apply(ctx, st, p)
	switch {
	case err != nil && res.Written:
		fmt.Fprintf(out, "written: %s counter = %d\n", f.chat, res.Value)
		return recoverExit(c, err)
	case err != nil:
		return recoverExit(c, err)
	case res.Written:
		fmt.Fprintf(out, "written: %s counter = %d; the next send gets %d. Verify with a test message (runbook: post-recovery verification).\n", f.chat, res.Value, res.Value+1)
	default:
		fmt.Fprintf(out, "not written: another process recreated the counter meanwhile, at %d (highest persisted %d), which is consistent.\n", res.Value, res.MaxSequence)
	}
	return nil
}

func printPlan(out io.Writer, p recovery.Proposal, describe string) {
	if p.Chat == "" { // the reads failed
		return
	}
	counter := "missing"
	if !p.Counter.Missing {
		counter = fmt.Sprint(p.Counter.Value)
	}
	fmt.Fprintf(out, "chat %q on %s\n  highest persisted sequence: %d\n  counter: %s\n", p.Chat, describe, p.MaxSequence, counter)
	if p.Action == recovery.PutCounter {
		fmt.Fprintf(out, "would put: sequence_counter = %d if attribute_not_exists(chat_id), with recovered_at and recovered_from_sequence for the audit trail\n", p.Value)
	}
	fmt.Fprintf(out, "why: %s\n", p.Reason)
	if p.Action == recovery.PutCounter && p.MaxSequence == 0 {
		// The runbook cannot tell a chat without messages from a chat id
		// that does not exist.
		fmt.Fprintln(out, "warning: the chat has no messages; if the chat id is mistyped this creates a counter for a chat that does not exist")
	}
}

// recoverExit maps a refusal to recover's exit status: an existing counter
// is the wrong input (2); a counter below the max or writes still landing
// are correctness problems in the data (1, message on stderr).
func recoverExit(c *cobra.Command, err error) error {
	var inconsistent *recovery.InconsistentCounterError
	var landing *recovery.WritesLandingError
	switch {
	case errors.Is(err, recovery.ErrCounterExists):
		return badInput("refusing to recover: the counter exists, so there is nothing to recover (the runbook never overwrites a live counter)")
	case errors.As(err, &inconsistent), errors.As(err, &landing):
		fmt.Fprintln(c.ErrOrStderr(), "chatseq: recover:", err)
		return exitError{ExitViolation}
	}
	return fmt.Errorf("recover: %w", err)
}

// openGuarded opens --store dynamodb behind the remote guard: the endpoint
// is checked as configured (flag, then AWS_ENDPOINT_URL_DYNAMODB and
// AWS_ENDPOINT_URL) before any client exists, and again as the SDK resolved
// it (a profile's endpoint_url) before anything is read or written.
func openGuarded(ctx context.Context, o storeopen.Options, allowRemote bool) (store.Store, string, error) {
	declared := firstSet(o.Endpoint, os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), os.Getenv("AWS_ENDPOINT_URL"))
	if err := recovery.CheckTarget(declared, allowRemote, o.TablePrefix); err != nil {
		return nil, "", usageError{err}
	}
	client, err := dynamostore.NewClient(ctx, dynamostore.ClientOptions{
		Endpoint: o.Endpoint, Region: o.Region, Profile: o.Profile, MaxAttempts: o.MaxAttempts,
	})
	if err != nil {
		return nil, "", err
	}
	resolved := aws.ToString(client.Options().BaseEndpoint)
	if err := recovery.CheckTarget(resolved, allowRemote, o.TablePrefix); err != nil {
		return nil, "", usageError{err}
	}
	where := "AWS region " + client.Options().Region
	if resolved != "" {
		where = resolved
	}
	return dynamostore.New(client, dynamostore.Prefixed(o.TablePrefix)), "dynamodb at " + where + ", tables " + o.TablePrefix + "*", nil
}

func firstSet(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
