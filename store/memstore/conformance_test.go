package memstore

import (
	"testing"

	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/storetest"
)

// The embedded store must pass the same conformance suite as DynamoDB
// (store/dynamostore runs it against DynamoDB Local).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return New() })
}
