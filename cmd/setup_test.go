package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/chatseq/chatseq/fixtures/dynamodblocal"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/dynamostore"
)

// setup, teardown, recover and the drills on --store dynamodb, against one
// DynamoDB Local for all (a JVM start costs seconds).
func TestDynamoDBCommandsOnDynamoDBLocal(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	srv := dynamodblocal.StartForTest(t)
	endpoint := srv.Endpoint()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	client, err := dynamostore.NewClient(ctx, dynamostore.ClientOptions{Endpoint: endpoint})
	if err != nil {
		t.Fatal(err)
	}
	conn := func(prefix string, args ...string) []string {
		return append(args, "--endpoint", endpoint, "--table-prefix", prefix)
	}

	t.Run("setup-then-teardown", func(t *testing.T) {
		// A neighbour's tables, which teardown must leave alone.
		if err := dynamostore.CreateTables(ctx, client, dynamostore.Prefixed("other_")); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := chatseq(t, conn("s1_", "setup")...)
		if code != ExitOK {
			t.Fatalf("setup: exit %d, %s", code, errOut)
		}
		for _, name := range tableList(dynamostore.Prefixed("s1_")) {
			if status := tableStatus(t, client, name); status != types.TableStatusActive {
				t.Errorf("%s is %q after setup, want ACTIVE", name, status)
			}
			if !strings.Contains(out, name+" ") || !strings.Contains(out, "(created)") {
				t.Errorf("setup output does not report %s created:\n%s", name, out)
			}
		}
		if code, out, _ := chatseq(t, conn("s1_", "setup")...); code != ExitOK || strings.Count(out, "already there") != 4 {
			t.Errorf("second setup: exit %d\n%s", code, out)
		}

		code, out, errOut = chatseq(t, conn("s1_", "teardown")...)
		if code != ExitOK {
			t.Fatalf("teardown: exit %d, %s", code, errOut)
		}
		for _, name := range tableList(dynamostore.Prefixed("s1_")) {
			if status := tableStatus(t, client, name); status != "" {
				t.Errorf("%s still exists (%s) after teardown", name, status)
			}
			if !strings.Contains(out, "deleted "+name+"\n") {
				t.Errorf("teardown did not print that it deleted %s:\n%s", name, out)
			}
		}
		for _, name := range tableList(dynamostore.Prefixed("other_")) {
			if status := tableStatus(t, client, name); status != types.TableStatusActive {
				t.Errorf("teardown of s1_ touched %s (now %q)", name, status)
			}
		}
		if code, out, _ := chatseq(t, conn("s1_", "teardown")...); code != ExitOK || !strings.Contains(out, "nothing deleted") {
			t.Errorf("second teardown: exit %d\n%s", code, out)
		}
	})

	tables := dynamostore.Prefixed("r_")
	if err := dynamostore.CreateTables(ctx, client, tables); err != nil {
		t.Fatal(err)
	}
	st := dynamostore.New(client, tables)
	core, err := sequencer.New(sequencer.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	// chatWithDeletedCounter makes a chat with n messages and no counter.
	chatWithDeletedCounter := func(t *testing.T, chat string, n int) {
		t.Helper()
		if err := core.CreateChat(ctx, chat, []string{"alice"}); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := core.Persist(ctx, sequencer.Request{Chat: chat, Key: fmt.Sprint(i), Sender: "alice", Content: "m"}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.DeleteCounter(ctx, chat); err != nil {
			t.Fatal(err)
		}
	}
	counter := func(t *testing.T, chat string) store.Counter {
		t.Helper()
		c, err := st.GetCounter(ctx, chat, true)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	t.Run("recover-dry-run-writes-nothing-then-apply", func(t *testing.T) {
		chatWithDeletedCounter(t, "c-recover", 5)
		code, out, errOut := chatseq(t, conn("r_", "recover", "--chat", "c-recover")...)
		if code != ExitOK {
			t.Fatalf("dry run: exit %d, %s", code, errOut)
		}
		for _, want := range []string{"highest persisted sequence: 5", "counter: missing", "would put: sequence_counter = 5", "dry run: nothing written"} {
			if !strings.Contains(out, want) {
				t.Errorf("dry run output lacks %q:\n%s", want, out)
			}
		}
		if c := counter(t, "c-recover"); !c.Missing {
			t.Fatalf("the dry run wrote the counter (%d)", c.Value)
		}

		code, out, errOut = chatseq(t, conn("r_", "recover", "--chat", "c-recover", "--apply")...)
		if code != ExitOK || !strings.Contains(out, "written: c-recover counter = 5") {
			t.Fatalf("apply: exit %d, %s\n%s", code, errOut, out)
		}
		if c := counter(t, "c-recover"); c.Missing || c.Value != 5 {
			t.Fatalf("counter after apply: %+v, want 5", c)
		}
		next, err := core.Persist(ctx, sequencer.Request{Chat: "c-recover", Key: "after", Sender: "alice", Content: "m"}, nil)
		if err != nil || next.Seq != 6 {
			t.Fatalf("first send after recovery: seq %d, %v; want 6", next.Seq, err)
		}

		// The counter exists now: refused, exit 2, untouched.
		code, _, errOut = chatseq(t, conn("r_", "recover", "--chat", "c-recover", "--apply")...)
		if code != ExitBadInput || !strings.Contains(errOut, "counter exists") {
			t.Errorf("recover of a live counter: exit %d, %s", code, errOut)
		}
		if c := counter(t, "c-recover"); c.Value != 6 {
			t.Errorf("counter %d after a refused recovery, want 6", c.Value)
		}
	})

	t.Run("recover-reports-a-counter-below-the-max", func(t *testing.T) {
		chatWithDeletedCounter(t, "c-low", 4)
		if err := st.PutCounter(ctx, store.Counter{Chat: "c-low", Value: 2}, store.Unconditional); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := chatseq(t, conn("r_", "recover", "--chat", "c-low", "--apply")...)
		if code != ExitViolation || !strings.Contains(errOut, "inconsistent counter") {
			t.Errorf("exit %d, %s; want 1 and the inconsistency", code, errOut)
		}
		if c := counter(t, "c-low"); c.Value != 2 {
			t.Errorf("counter %d, want 2 untouched", c.Value)
		}
	})

	t.Run("drills-on-store-dynamodb", func(t *testing.T) {
		dir := t.TempDir()
		code, out, errOut := chatseq(t, conn("r_", "drill", "counter-recovery", "--store", "dynamodb", "--writers", "3",
			"--warmup", "20", "--after", "20", "--format", "json", "--history", filepath.Join(dir, "d.jsonl"))...)
		var d drillJSON
		if err := json.Unmarshal([]byte(out), &d); err != nil || code != ExitOK || !d.Passed {
			t.Fatalf("counter-recovery: exit %d, %v, %s\n%s", code, err, errOut, out)
		}
		code, _, errOut = chatseq(t, conn("r_", "drill", "unsafe-recovery", "--store", "dynamodb", "--case", "racing-writer",
			"--writers", "3", "--warmup", "20", "--after", "20", "--history", filepath.Join(dir, "u.jsonl"))...)
		if code != ExitOK {
			t.Fatalf("unsafe-recovery: exit %d, %s", code, errOut)
		}
	})
}

// tableStatus is the table's status, "" when it does not exist.
func tableStatus(t *testing.T, client *dynamodb.Client, name string) types.TableStatus {
	t.Helper()
	out, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var notFound *types.ResourceNotFoundException
	if errors.As(err, &notFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Table.TableStatus
}
