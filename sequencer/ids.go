package sequencer

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// idSource makes ULID message ids ("msg_" prefix, as ADR-004). Entropy comes
// from pooled non-cryptographic generators: ids must be unique, not secret,
// and a global locked source would serialise every writer.
type idSource struct {
	pool sync.Pool
}

type entropy struct{ r *rand.ChaCha8 }

func (e *entropy) Read(p []byte) (int, error) { return e.r.Read(p) }

func newIDSource() *idSource {
	s := &idSource{}
	s.pool.New = func() any {
		var seed [32]byte
		for i := range seed {
			seed[i] = byte(rand.Uint32())
		}
		return &entropy{r: rand.NewChaCha8(seed)}
	}
	return s
}

func (s *idSource) next(prefix string, now time.Time) string {
	e := s.pool.Get().(*entropy)
	id := ulid.MustNew(ulid.Timestamp(now), e)
	s.pool.Put(e)
	return prefix + id.String()
}
