package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/chatseq/chatseq/localserver/dynamodblocal"
)

// newDynamoDBLocalCommand starts and stops a DynamoDB Local of the user's
// own, for the commands that need tables to outlive one run (setup,
// bench --store dynamodb, recover, teardown).
func newDynamoDBLocalCommand() *cobra.Command {
	port := 8000
	c := &cobra.Command{
		Use:   "dynamodb-local",
		Short: "Start or stop a DynamoDB Local of your own on localhost, for setup, bench --store dynamodb and recover",
		Long: `dynamodb-local start runs the DynamoDB Local that .ci/install-dynamodb-local
installed (in memory) on localhost:--port, in the background, and returns
once it answers; dynamodb-local stop stops it. Its tables last until then,
so 'chatseq setup', 'bench --store dynamodb', 'recover' and 'teardown' can
work on them with --endpoint http://localhost:PORT.

(bench --store dynamodb-local needs none of this: it starts a throwaway
DynamoDB Local of its own.)

Exit status: 0 done, 2 bad flags or nothing to stop, 5 it would not start.`,
		Args: cobra.NoArgs,
	}
	c.PersistentFlags().IntVar(&port, "port", port, "localhost port DynamoDB Local listens on")
	start := &cobra.Command{
		Use:   "start",
		Short: "Start DynamoDB Local in the background and wait until it answers",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if port < 1 || port > 65535 {
				return badInput("--port must be 1 to 65535, got %d", port)
			}
			jarDir, err := dynamodblocal.Find()
			if err != nil {
				return err
			}
			fmt.Fprintf(c.ErrOrStderr(), "starting DynamoDB Local (java -jar %s/%s, in memory) on port %d…\n", jarDir, dynamodblocal.JarName, port)
			endpoint, logPath, err := dynamodblocal.StartDetached(c.Context(), jarDir, port)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "DynamoDB Local ready at %s (log %s); 'chatseq dynamodb-local stop --port %d' stops it\n", endpoint, logPath, port)
			return nil
		},
	}
	stop := &cobra.Command{
		Use:   "stop",
		Short: "Stop the DynamoDB Local that 'dynamodb-local start' started",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			err := dynamodblocal.StopDetached(port)
			if errors.Is(err, dynamodblocal.ErrNotStarted) {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "DynamoDB Local on port %d stopped\n", port)
			return nil
		},
	}
	c.AddCommand(start, stop)
	return c
}
