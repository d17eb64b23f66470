package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync/atomic"
)

// anySecret is set by the first Secret: until then Value costs one load.
var anySecret atomic.Bool

// valuePrefix begins a value that held a credential (Value).
const valuePrefix = "redacted-"

// Value returns v, a value a service gave that chatseq keeps as data (a
// message id, a key or a sender read back, an error code), unless it
// holds a credential given to Secret: then a stand-in that names no part
// of it and is the same for the same v and different for different ones
// (a truncated SHA-256), so that the history's comparisons of such values
// judge as they would have. A hostile service answering with the token it
// was sent as a message id had it written to the history and the report.
func Value(v string) string {
	if !anySecret.Load() || len(v) < minSecret || Known(v) == v {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	return valuePrefix + hex.EncodeToString(sum[:12])
}

// Active reports whether any credential was given to Secret: until one
// is, Value returns every value as it is.
func Active() bool { return anySecret.Load() }

// IsValue reports whether v is a stand-in Value made.
func IsValue(v string) bool { return strings.HasPrefix(v, valuePrefix) }
