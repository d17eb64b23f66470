package httpapi_test

import (
	"testing"

	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/sequencer"
)

func TestFaultsHeaderRoundTrips(t *testing.T) {
	plans := []sequencer.FaultPlan{
		{},
		{StaleIdempotencyRead: true, CrashInPersist: true, CrashInPersistCommitted: true},
		{CrashBeforeAllocate: true, PublishFails: true},
		{StoreError: sequencer.StoreFault{Kind: sequencer.StoreInternalError, Call: sequencer.CallTransact, Applied: true}},
		{CrashAfterAllocate: true, CrashAfterPersist: true, StoreError: sequencer.StoreFault{Kind: sequencer.StoreThrottled, Call: sequencer.CallMembership}},
	}
	for _, p := range plans {
		h := httpapi.FormatFaults(p)
		got, err := httpapi.ParseFaults(h)
		if err != nil || got != p {
			t.Errorf("%+v → %q → %+v, %v", p, h, got, err)
		}
	}
	for _, bad := range []string{"meteor", "store=throttled", "store=flood/lookup", "store=throttled/lookup/twice", "store=throttled/nowhere"} {
		if _, err := httpapi.ParseFaults(bad); err == nil {
			t.Errorf("ParseFaults(%q) accepted it", bad)
		}
	}
}

// FuzzParseFaults: any header is refused or read, never a panic, and
// what is read formats back to a header that reads the same.
func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"", "stale_read", "crash_in_persist,crash_in_persist_committed", "store=internal_error/transact/applied", "x,,y", "store=/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		p, err := httpapi.ParseFaults(h)
		if err != nil {
			return
		}
		again, err := httpapi.ParseFaults(httpapi.FormatFaults(p))
		if err != nil || again != p {
			t.Fatalf("%q read as %+v, formatted %q, read again as %+v, %v", h, p, httpapi.FormatFaults(p), again, err)
		}
	})
}
