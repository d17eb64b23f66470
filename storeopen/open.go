// Package storeopen opens the store a command asks for: the embedded store,
// DynamoDB at any endpoint the SDK accepts, or a DynamoDB Local that chatseq
// starts itself.
package storeopen

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/chatseq/chatseq/internal/closers"
	"github.com/chatseq/chatseq/localserver/dynamodblocal"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/dynamostore"
	"github.com/chatseq/chatseq/store/memstore"
)

// Kinds of store.
const (
	Memory        = "memory"
	DynamoDB      = "dynamodb"
	DynamoDBLocal = "dynamodb-local"
)

// Options say which store and how to reach it.
type Options struct {
	Kind        string
	Endpoint    string // DynamoDB only; empty: the SDK's standard resolution
	Region      string
	Profile     string
	MaxAttempts int    // the SDK retryer's attempts per call; 0: SDK default
	TablePrefix string // DynamoDB table name prefix
	// Status, when set, hears what is being started before a wait a
	// person would otherwise sit through in silence (DynamoDB Local takes
	// seconds to half a minute).
	Status io.Writer
}

// Opened is a store ready to use.
type Opened struct {
	Store store.Store
	// Fresh is true when the store started empty for this run (memory, or
	// a DynamoDB Local chatseq started), so chat ids need no run prefix.
	Fresh bool
	// Describe names the store for reports, never with credentials.
	Describe string
	cleanups closers.Stack
}

// Close releases the store and anything started for it.
func (o *Opened) Close() error { return o.cleanups.Close() }

// Validate names a bad option.
func (o Options) Validate() error {
	switch o.Kind {
	case Memory, DynamoDB, DynamoDBLocal:
	default:
		return fmt.Errorf("--store must be %s, %s or %s, got %q", Memory, DynamoDB, DynamoDBLocal, o.Kind)
	}
	if o.MaxAttempts < 0 {
		return fmt.Errorf("--sdk-max-attempts must not be negative, got %d", o.MaxAttempts)
	}
	if o.Kind != Memory && o.TablePrefix == "" {
		return fmt.Errorf("--table-prefix must not be empty: chatseq only touches prefixed tables")
	}
	return nil
}

// Open opens the store. For DynamoDB the tables must exist (chatseq setup);
// for DynamoDB Local they are created in the server it starts.
func Open(ctx context.Context, o Options) (*Opened, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	switch o.Kind {
	case Memory:
		return &Opened{Store: memstore.New(), Fresh: true, Describe: "embedded"}, nil
	case DynamoDBLocal:
		return openLocal(ctx, o)
	}
	client, err := dynamostore.NewClient(ctx, dynamostore.ClientOptions{
		Endpoint: o.Endpoint, Region: o.Region, Profile: o.Profile, MaxAttempts: o.MaxAttempts,
	})
	if err != nil {
		return nil, err
	}
	desc := "dynamodb"
	if o.Endpoint != "" {
		desc += " at " + o.Endpoint
	}
	return &Opened{Store: dynamostore.New(client, dynamostore.Prefixed(o.TablePrefix)), Describe: desc + ", tables " + o.TablePrefix + "*"}, nil
}

func openLocal(ctx context.Context, o Options) (*Opened, error) {
	jarDir, err := dynamodblocal.Find()
	if err != nil {
		return nil, fmt.Errorf("--store dynamodb-local: %w", err)
	}
	began := time.Now()
	if o.Status != nil {
		fmt.Fprintf(o.Status, "starting DynamoDB Local (java -jar %s, in memory; this can take half a minute)…\n", filepath.Join(jarDir, dynamodblocal.JarName))
	}
	srv, err := dynamodblocal.Start(ctx, jarDir)
	if err != nil {
		return nil, err
	}
	opened := &Opened{Fresh: true, Describe: "DynamoDB Local at " + srv.Endpoint()}
	opened.cleanups.Push(srv.Stop)
	client, err := dynamostore.NewClient(ctx, dynamostore.ClientOptions{Endpoint: srv.Endpoint(), MaxAttempts: o.MaxAttempts})
	if err != nil {
		opened.Close()
		return nil, err
	}
	tables := dynamostore.Prefixed(o.TablePrefix)
	if err := dynamostore.CreateTables(ctx, client, tables); err != nil {
		opened.Close()
		return nil, err
	}
	opened.Store = dynamostore.New(client, tables)
	if o.Status != nil {
		fmt.Fprintf(o.Status, "DynamoDB Local ready at %s with tables %s* (%s)\n", srv.Endpoint(), o.TablePrefix, time.Since(began).Round(100*time.Millisecond))
	}
	return opened, nil
}
