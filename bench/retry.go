package bench

import (
	"errors"
	"math/rand/v2"
	"time"
)

// RetryDelayer is an error that says how long to wait before retrying
// (an HTTP Retry-After): the writer waits at least that long, up to
// maxRetryAfter.
type RetryDelayer interface {
	RetryDelay() time.Duration
}

// maxRetryAfter caps a Retry-After (the strategy document's largest
// client delay).
const maxRetryAfter = 5 * time.Second

// retryDelay is err's Retry-After, or 0. Every attempt asks, so no error
// returns at once: errors.As's target escapes, an allocation an attempt.
func retryDelay(err error) time.Duration {
	if err == nil {
		return 0
	}
	var rd RetryDelayer
	if errors.As(err, &rd) {
		return min(max(rd.RetryDelay(), 0), maxRetryAfter)
	}
	return 0
}

// jittered spreads d over [d/2, d] ("equal jitter"), so clients that
// failed together do not retry together.
func jittered(r *rand.Rand, d time.Duration) time.Duration {
	if d < 2 {
		return d
	}
	return d/2 + time.Duration(r.Int64N(int64(d/2)+1))
}
