package dynamostore

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestPrefixedNamesTheADRTables(t *testing.T) {
	got := Prefixed("run1_")
	want := TableNames{
		Counters: "run1_chat_counters", Messages: "run1_messages",
		Idempotency: "run1_idempotency_keys", Memberships: "run1_chat_memberships",
	}
	if got != want {
		t.Fatalf("Prefixed = %+v, want %+v", got, want)
	}
}

func TestCreateTablesIsIdempotentAndSetsSchemaAndTTL(t *testing.T) {
	ctx := context.Background()
	// The tables TestMain created: creating them again must be accepted.
	if err := CreateTables(ctx, testClient, testTables); err != nil {
		t.Fatalf("second CreateTables: %v", err)
	}
	wantKeys := map[string][]string{
		testTables.Counters:    {"chat_id HASH S"},
		testTables.Messages:    {"chat_id HASH S", "sequence RANGE N"},
		testTables.Idempotency: {"chat_id HASH S", "client_message_id RANGE S"},
		testTables.Memberships: {"chat_id HASH S", "user_id RANGE S"},
	}
	for table, want := range wantKeys {
		out, err := testClient.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		d := out.Table
		if d.TableStatus != types.TableStatusActive {
			t.Errorf("%s status %s, want ACTIVE", table, d.TableStatus)
		}
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("%s billing mode %+v, want PAY_PER_REQUEST", table, d.BillingModeSummary)
		}
		attrTypes := map[string]string{}
		for _, a := range d.AttributeDefinitions {
			attrTypes[aws.ToString(a.AttributeName)] = string(a.AttributeType)
		}
		var got []string
		for _, k := range d.KeySchema {
			name := aws.ToString(k.AttributeName)
			got = append(got, name+" "+string(k.KeyType)+" "+attrTypes[name])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s key schema %v, want %v", table, got, want)
		}
	}
	ttl, err := testClient.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(testTables.Idempotency)})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d == nil || aws.ToString(d.AttributeName) != "ttl" || d.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Fatalf("idempotency_keys TTL = %+v, want ENABLED on ttl", d)
	}
}

func TestDeleteTablesRemovesThemAndToleratesAbsence(t *testing.T) {
	ctx := context.Background()
	tables := Prefixed(randomPrefix())
	if err := CreateTables(ctx, testClient, tables); err != nil {
		t.Fatal(err)
	}
	if err := DeleteTables(ctx, testClient, tables); err != nil {
		t.Fatalf("DeleteTables: %v", err)
	}
	out, err := testClient.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{tables.Counters, tables.Messages, tables.Idempotency, tables.Memberships} {
		if slices.Contains(out.TableNames, name) {
			t.Errorf("table %s still listed after DeleteTables", name)
		}
	}
	if err := DeleteTables(ctx, testClient, tables); err != nil {
		t.Fatalf("DeleteTables of absent tables: %v", err)
	}
}
