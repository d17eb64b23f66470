package bench

import (
	"fmt"
	"testing"
	"time"
)

type retryAfterErr time.Duration

func (e retryAfterErr) Error() string             { return "retry later" }
func (e retryAfterErr) RetryDelay() time.Duration { return time.Duration(e) }

// Every attempt asks for its error's Retry-After: an attempt without an
// error costs no allocation, and a wrapped Retry-After is still found
// and capped.
func TestRetryDelay(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = retryDelay(nil) }); n != 0 {
		t.Errorf("retryDelay(nil) allocates %.0f times", n)
	}
	for _, c := range []struct {
		err  error
		want time.Duration
	}{
		{nil, 0},
		{fmt.Errorf("wrapped: %w", retryAfterErr(time.Second)), time.Second},
		{retryAfterErr(-time.Second), 0},
		{retryAfterErr(time.Hour), maxRetryAfter},
		{fmt.Errorf("plain"), 0},
	} {
		if got := retryDelay(c.err); got != c.want {
			t.Errorf("retryDelay(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
