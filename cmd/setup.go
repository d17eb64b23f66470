package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/store/dynamostore"
	"github.com/chatseq/chatseq/storeopen"
)

func newSetupCommand() *cobra.Command {
	var o storeopen.Options
	c := &cobra.Command{
		Use:   "setup",
		Short: "Create the four prefixed DynamoDB tables and wait until they are ACTIVE",
		Long: `setup creates chatseq's four tables (<prefix>chat_counters, <prefix>messages,
<prefix>idempotency_keys with TTL on ttl, <prefix>chat_memberships), on demand
(PAY_PER_REQUEST), and waits until each is ACTIVE. Tables that already exist
are kept as they are, so it is safe to run twice. Then run
'chatseq bench --store dynamodb' with the same connection flags.

Exit status: 0 done, 2 bad flags, 5 DynamoDB refused or timed out.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runSetup(c, o) },
	}
	addStoreFlags(c.Flags(), &o)
	dynamoDBByDefault(c)
	return c
}

func newTeardownCommand() *cobra.Command {
	var o storeopen.Options
	c := &cobra.Command{
		Use:   "teardown",
		Short: "Delete the four prefixed DynamoDB tables (no prompt) and wait until they are gone",
		Long: `teardown deletes exactly the four tables 'chatseq setup' creates with the same
--table-prefix, and nothing else, without asking (it is meant for scripts),
waits until they are gone and prints what it deleted. Absent tables are not
an error. The prefix must not be empty.

Exit status: 0 done, 2 bad flags, 5 DynamoDB refused or timed out.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runTeardown(c, o) },
	}
	addStoreFlags(c.Flags(), &o)
	dynamoDBByDefault(c)
	return c
}

func runSetup(c *cobra.Command, o storeopen.Options) error {
	client, tables, err := tableClient(c.Context(), o, "set up")
	if err != nil {
		return err
	}
	existed, err := existingTables(c.Context(), client, tables)
	if err != nil {
		return err
	}
	if err := dynamostore.CreateTables(c.Context(), client, tables); err != nil {
		return err
	}
	out := c.OutOrStdout()
	for _, name := range tableList(tables) {
		verb := "created"
		if existed[name] {
			verb = "already there"
		}
		fmt.Fprintf(out, "%-40s ACTIVE (%s)\n", name, verb)
	}
	return nil
}

func runTeardown(c *cobra.Command, o storeopen.Options) error {
	client, tables, err := tableClient(c.Context(), o, "tear down")
	if err != nil {
		return err
	}
	existed, err := existingTables(c.Context(), client, tables)
	if err != nil {
		return err
	}
	if err := dynamostore.DeleteTables(c.Context(), client, tables); err != nil {
		return err
	}
	out := c.OutOrStdout()
	deleted := 0
	for _, name := range tableList(tables) {
		if existed[name] {
			fmt.Fprintf(out, "deleted %s\n", name)
			deleted++
		}
	}
	if deleted == 0 {
		fmt.Fprintf(out, "no tables with prefix %q: nothing deleted\n", o.TablePrefix)
	}
	return nil
}

// tableClient checks the flags and connects; what names the command for
// the error message.
func tableClient(ctx context.Context, o storeopen.Options, what string) (*dynamodb.Client, dynamostore.TableNames, error) {
	if err := requireDynamoDB(o, what); err != nil {
		return nil, dynamostore.TableNames{}, err
	}
	client, err := dynamostore.NewClient(ctx, dynamostore.ClientOptions{
		Endpoint: o.Endpoint, Region: o.Region, Profile: o.Profile, MaxAttempts: o.MaxAttempts,
	})
	if err != nil {
		return nil, dynamostore.TableNames{}, err
	}
	return client, dynamostore.Prefixed(o.TablePrefix), nil
}

func tableList(t dynamostore.TableNames) []string {
	return []string{t.Counters, t.Messages, t.Idempotency, t.Memberships}
}

// existingTables reports which of the four tables exist (in any status).
func existingTables(ctx context.Context, client *dynamodb.Client, tables dynamostore.TableNames) (map[string]bool, error) {
	existed := map[string]bool{}
	for _, name := range tableList(tables) {
		_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var notFound *types.ResourceNotFoundException
		switch {
		case errors.As(err, &notFound):
		case err != nil:
			return nil, fmt.Errorf("describe table %s: %w", name, err)
		default:
			existed[name] = true
		}
	}
	return existed, nil
}
