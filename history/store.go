package history

// Chunk sizes, in events, when the total is not known in advance: small at
// first, so that small histories stay cheap, doubling up to about 13 MB.
const (
	firstEventChunk = 256
	maxEventChunk   = 64 << 10
)

// eventStore collects the events of one Read. With a size hint it fills one
// slice of that size, which becomes History.Events as it is. Without one (a
// stream), it fills chunks and joins them once at the end: growing a single
// slice by appending would, at its last step, hold the old and the new array
// (2.25 times the final size) and leave up to a fifth of the new one unused;
// chunks cost at most twice the final size, briefly.
//
// Events never move while reading (chunks are never grown in place), so the
// builder may keep pointers to them until events is called.
type eventStore struct {
	chunks [][]Event
	n      int
}

func newEventStore(hint int) *eventStore {
	if hint <= 0 {
		hint = firstEventChunk
	}
	return &eventStore{chunks: [][]Event{make([]Event, 0, hint)}}
}

// add appends a copy of e and returns a pointer to it.
func (s *eventStore) add(e *Event) *Event {
	last := &s.chunks[len(s.chunks)-1]
	if len(*last) == cap(*last) {
		size := min(max(2*cap(*last), firstEventChunk), maxEventChunk)
		s.chunks = append(s.chunks, make([]Event, 0, size))
		last = &s.chunks[len(s.chunks)-1]
	}
	*last = append(*last, *e)
	s.n++
	return &(*last)[len(*last)-1]
}

// events returns all events as one slice.
func (s *eventStore) events() []Event {
	if s.n == 0 {
		return nil
	}
	if len(s.chunks) == 1 {
		return s.chunks[0]
	}
	all := make([]Event, 0, s.n)
	for i, c := range s.chunks {
		all = append(all, c...)
		s.chunks[i] = nil // the collector may take chunks already copied
	}
	return all
}
