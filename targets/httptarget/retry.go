package httptarget

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/chatseq/chatseq/httpapi"
)

// The strategy document's client retry policy for an answer that asks to
// be retried: "exponential backoff with jitter, … max delay 5s, cap at 5
// attempts. Respect Retry-After on 429/503", with the same key.
const (
	// MaxStatusAttempts caps the sends of one message the service keeps
	// answering 503 or 429 (the first send included).
	MaxStatusAttempts = 5
	// MaxRetryWait is the longest a send waits before a retry. A
	// Retry-After beyond it ends the retries instead: a client never
	// retries before the service's Retry-After.
	MaxRetryWait = 5 * time.Second
)

// statusRetry is a run's policy for retrying 503 and 429.
type statusRetry struct {
	attempts int           // sends at most, the first included; 1: no retry
	backoff  time.Duration // the wait before the first retry, doubled for each next
}

// noRetry reads an answer once: a writer's sync or a device's catch-up
// records what it got, as the run's client would see it.
var noRetry = statusRetry{attempts: 1}

// readBackRetry is how the final state is read back: chatseq's own read
// after the run, not the workload, so a page answered 503 or 429 is read
// again up to MaxStatusAttempts times whatever the run's client retries
// (a service still settling, or briefly overloaded, left the final state
// unread and the verdict unknown).
func readBackRetry(run statusRetry) statusRetry {
	return statusRetry{attempts: MaxStatusAttempts, backoff: max(run.backoff, readBackBackoff)}
}

// readBackBackoff is the least first wait of a read-back page's retry.
const readBackBackoff = 100 * time.Millisecond

// retryableStatus: the service asks the client to come back (unavailable,
// rate limited); nothing else is retried by the target (an unknown outcome
// is retried by the run's client itself, which records each attempt).
func retryableStatus(status int) bool {
	return status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests
}

// wait sleeps before retry number retry (1, 2, …) after answer a: the
// doubled, jittered backoff, never less than a's Retry-After. False when
// no retry should follow: the Retry-After is beyond MaxRetryWait, or ctx
// ended first.
func (r statusRetry) wait(ctx context.Context, retry int, a *answer) bool {
	d := r.backoff
	for i := 1; i < retry && d < MaxRetryWait; i++ {
		d *= 2
	}
	d = min(d, MaxRetryWait)
	if d >= 2 {
		// Equal jitter: clients refused together do not return together.
		d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	}
	if after, ok := retryAfter(a.header.Get(httpapi.HeaderRetryAfter)); ok {
		if after > MaxRetryWait {
			return false
		}
		d = max(d, after)
	}
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
