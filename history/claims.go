package history

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// ClaimsField is a header extension chatseq writes and reads: a JSON object
// from invariant names to the sentence of the design's own document that
// promises what the invariant checks, e.g.
//
//	"claims":{"event_order":"The Message Service promises \"Strict Ordering per Conversation\" (§5)"}
//
// The checker puts the sentence before the counterexample of a failure of
// that invariant (catch_up_completeness and event_order), so a verdict says
// which promise the history breaks. Header.Extra keeps it as raw JSON.
const ClaimsField = "claims"

// EncodeClaims is claims as the header field's value: a JSON object with
// its names sorted.
func EncodeClaims(claims map[string]string) string {
	b := []byte{'{'}
	for i, name := range slices.Sorted(maps.Keys(claims)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, ':')
		b = appendString(b, claims[name])
	}
	return string(append(b, '}'))
}

// DecodeClaims reads the header field's raw value; "" is no claims.
func DecodeClaims(raw string) (map[string]string, error) {
	if raw == "" {
		return nil, nil
	}
	var claims map[string]string
	if err := json.Unmarshal([]byte(raw), &claims); err != nil {
		return nil, fmt.Errorf("header %q must be an object of invariant names to sentences: %w", ClaimsField, err)
	}
	return claims, nil
}
