package dynamostore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/chatseq/chatseq/localserver/dynamodblocal"
)

// One DynamoDB Local per test binary (a JVM start costs seconds), with tables
// under a random prefix; tests and benchmarks share them through these.
var (
	testServer *dynamodblocal.Server
	testClient *dynamodb.Client
	testTables TableNames
)

func TestMain(m *testing.M) {
	code, err := runWithDynamoDBLocal(m)
	if err != nil {
		// Fail, never skip: an unchecked DynamoDB store drifts silently.
		fmt.Fprintf(os.Stderr, "FAIL: dynamostore tests need DynamoDB Local: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

func runWithDynamoDBLocal(m *testing.M) (int, error) {
	jarDir, err := dynamodblocal.Find()
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	testServer, err = dynamodblocal.Start(ctx, jarDir)
	if err != nil {
		return 0, err
	}
	defer testServer.Stop()

	testClient, err = NewClient(ctx, ClientOptions{Endpoint: testServer.Endpoint()})
	if err != nil {
		return 0, err
	}
	testTables = Prefixed(randomPrefix())
	if err := CreateTables(ctx, testClient, testTables); err != nil {
		return 0, err
	}
	code := m.Run()
	if err := DeleteTables(context.Background(), testClient, testTables); err != nil {
		return code, err
	}
	return code, nil
}

func randomPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:]) + "_"
}
