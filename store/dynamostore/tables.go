package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// tableWait bounds waiting for a table to become ACTIVE or go away; on AWS
// this takes seconds to a minute, on DynamoDB Local it is immediate.
const tableWait = 5 * time.Minute

type keyAttr struct {
	name string
	typ  types.ScalarAttributeType
}

type tableSpec struct {
	name      string
	hash      keyAttr
	rangeKey  *keyAttr
	ttlOnAttr string
}

func specs(t TableNames) []tableSpec {
	chatID := keyAttr{attrChatID, types.ScalarAttributeTypeS}
	return []tableSpec{
		{name: t.Counters, hash: chatID},
		{name: t.Messages, hash: chatID, rangeKey: &keyAttr{attrSequence, types.ScalarAttributeTypeN}},
		{name: t.Idempotency, hash: chatID, rangeKey: &keyAttr{attrClientMessageID, types.ScalarAttributeTypeS}, ttlOnAttr: attrTTL},
		{name: t.Memberships, hash: chatID, rangeKey: &keyAttr{attrUserID, types.ScalarAttributeTypeS}},
	}
}

// CreateTables creates the four tables on demand (PAY_PER_REQUEST, as
// ADR-004 recommends for the MVP), waits until each is ACTIVE, and enables TTL
// on idempotency_keys.ttl. Tables that already exist are accepted, so it is
// safe to call before every run.
func CreateTables(ctx context.Context, client *dynamodb.Client, tables TableNames) error {
	for _, spec := range specs(tables) {
		if err := createTable(ctx, client, spec); err != nil {
			return err
		}
	}
	for _, spec := range specs(tables) {
		waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
			o.MinDelay = time.Second // the default 20 s is far too slow for tests
		})
		if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(spec.name)}, tableWait); err != nil {
			return fmt.Errorf("dynamostore: wait for table %s to be ACTIVE: %w", spec.name, err)
		}
		if spec.ttlOnAttr != "" {
			if err := enableTTL(ctx, client, spec.name, spec.ttlOnAttr); err != nil {
				return err
			}
		}
	}
	return nil
}

func createTable(ctx context.Context, client *dynamodb.Client, spec tableSpec) error {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(spec.name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(spec.hash.name), AttributeType: spec.hash.typ},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(spec.hash.name), KeyType: types.KeyTypeHash},
		},
	}
	if spec.rangeKey != nil {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String(spec.rangeKey.name), AttributeType: spec.rangeKey.typ})
		in.KeySchema = append(in.KeySchema,
			types.KeySchemaElement{AttributeName: aws.String(spec.rangeKey.name), KeyType: types.KeyTypeRange})
	}
	_, err := client.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if errors.As(err, &inUse) {
		return nil // already there (or being created): the waiter decides
	}
	if err != nil {
		return fmt.Errorf("dynamostore: create table %s: %w", spec.name, err)
	}
	return nil
}

func enableTTL(ctx context.Context, client *dynamodb.Client, table, attr string) error {
	desc, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("dynamostore: describe TTL of %s: %w", table, err)
	}
	if d := desc.TimeToLiveDescription; d != nil && aws.ToString(d.AttributeName) == attr &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		return nil // enabling it again is a ValidationException
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(attr),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("dynamostore: enable TTL on %s.%s: %w", table, attr, err)
	}
	return nil
}

// DeleteTables deletes the four tables and waits until they are gone; absent
// tables are fine.
func DeleteTables(ctx context.Context, client *dynamodb.Client, tables TableNames) error {
	var errs []error
	var deleted []string
	for _, spec := range specs(tables) {
		_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(spec.name)})
		var notFound *types.ResourceNotFoundException
		switch {
		case errors.As(err, &notFound):
		case err != nil:
			errs = append(errs, fmt.Errorf("dynamostore: delete table %s: %w", spec.name, err))
		default:
			deleted = append(deleted, spec.name)
		}
	}
	for _, name := range deleted {
		waiter := dynamodb.NewTableNotExistsWaiter(client, func(o *dynamodb.TableNotExistsWaiterOptions) {
			o.MinDelay = time.Second
		})
		if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, tableWait); err != nil {
			errs = append(errs, fmt.Errorf("dynamostore: wait for table %s to go: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
