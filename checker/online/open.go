package online

// openOps is each process's outstanding operation: in a slice by number
// for the processes a run numbers densely from 1, in a map past
// denseProcesses (a foreign history may number them anyhow). A map of
// 100-byte operations, written and deleted twice a persist, was most of
// the online check's own cost per line.
type openOps struct {
	dense []openOp
	far   map[int]openOp
	taken openOp // the last one take removed from far
	next  openOp // one being written for far (slot)
}

// denseProcesses bounds the slice: 16k slots are under 2 MB.
const denseProcesses = 1 << 14

// put makes op process p's outstanding operation.
func (s *openOps) put(p int, op *openOp) {
	*s.slot(p) = *op
	s.filled(p)
}

// slot is where process p's next operation is written (its fields set
// by the caller, then filled): its dense slot, or a scratch one for a
// process past them.
func (s *openOps) slot(p int) *openOp {
	if p >= 0 && p < denseProcesses {
		if p >= len(s.dense) {
			s.dense = append(s.dense, make([]openOp, p+1-len(s.dense))...)
		}
		return &s.dense[p]
	}
	return &s.next
}

// filled makes what slot(p) returned, now written, p's outstanding
// operation.
func (s *openOps) filled(p int) {
	if p >= 0 && p < denseProcesses {
		s.dense[p].set = true
		return
	}
	if s.far == nil {
		s.far = map[int]openOp{}
	}
	s.next.set = true
	s.far[p] = s.next
}

// take removes process p's outstanding operation and returns it, if it
// has one: read in place, valid until the next put or take.
func (s *openOps) take(p int) (*openOp, bool) {
	if p >= 0 && p < denseProcesses {
		if p >= len(s.dense) || !s.dense[p].set {
			return nil, false
		}
		s.dense[p].set = false
		return &s.dense[p], true
	}
	op, ok := s.far[p]
	if !ok {
		return nil, false
	}
	delete(s.far, p)
	s.taken = op
	return &s.taken, true
}

// each calls f with every outstanding operation.
func (s *openOps) each(f func(*openOp)) {
	for i := range s.dense {
		if s.dense[i].set {
			f(&s.dense[i])
		}
	}
	for _, op := range s.far {
		f(&op)
	}
}
