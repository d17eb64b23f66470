package dynamostore

import (
	"testing"

	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/storetest"
)

// The conformance suite against DynamoDB Local, all subtests sharing one
// Store (the suite gives every subtest its own chats).
func TestConformance(t *testing.T) {
	s := New(testClient, testTables)
	storetest.Run(t, func(t *testing.T) store.Store { return s })
}
