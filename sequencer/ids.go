package sequencer

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
)

// idSource makes ULID message ids ("msg_" prefix, as ADR-004). Entropy comes
// from math/rand/v2's runtime source: ids must be unique, not secret, and
// that source is per thread, so writers never wait on each other for it.
type idSource struct{}

func newIDSource() *idSource { return &idSource{} }

// maxIDPrefix is the longest prefix next encodes without a second buffer.
const maxIDPrefix = 8

func (s *idSource) next(prefix string, now time.Time) string {
	var id ulid.ULID
	if err := id.SetTime(ulid.Timestamp(now)); err != nil {
		panic(err) // only past the year 10889
	}
	var entropy [16]byte
	binary.LittleEndian.PutUint64(entropy[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(entropy[8:], rand.Uint64())
	_ = id.SetEntropy(entropy[:10]) // exactly ten bytes: never fails
	var buf [maxIDPrefix + ulid.EncodedSize]byte
	text := append(buf[:0], prefix...)
	text = slices.Grow(text, ulid.EncodedSize)[:len(text)+ulid.EncodedSize]
	_ = id.MarshalTextTo(text[len(prefix):]) // the buffer is the right size
	return string(text)
}
