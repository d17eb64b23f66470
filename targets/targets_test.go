package targets

import (
	"context"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

func TestOpenMemoryIsADR004OnTheEmbeddedStore(t *testing.T) {
	o, err := Open(context.Background(), "memory", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if !o.Fresh || o.Contract.Gaps != history.GapsAllowed || o.Contract.KeyReuse != history.KeyReuseReturnOriginal || o.Topic == "" {
		t.Fatalf("memory target %+v", o)
	}
}

func TestUnknownTargetNamesTheKnownOnes(t *testing.T) {
	_, err := Open(context.Background(), "oracle", Options{})
	if err == nil || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("got %v, want an error listing the known targets", err)
	}
	if Known("oracle") || !Known("dynamodb-local") {
		t.Fatal("Known disagrees with the registry")
	}
}
