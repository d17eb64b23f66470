package online

// openOps is each process's outstanding operation: in a slice by number
// for the processes a run numbers densely from 1, in a map past
// denseProcesses (a foreign history may number them anyhow). A map of
// 100-byte operations, written and deleted twice a persist, was most of
// the online check's own cost per line.
type openOps struct {
	dense []openSlot
	far   map[int]openOp
}

type openSlot struct {
	op  openOp
	set bool
}

// denseProcesses bounds the slice: 16k slots are under 2 MB.
const denseProcesses = 1 << 14

// put makes op process p's outstanding operation.
func (s *openOps) put(p int, op openOp) {
	if p >= 0 && p < denseProcesses {
		if p >= len(s.dense) {
			s.dense = append(s.dense, make([]openSlot, p+1-len(s.dense))...)
		}
		s.dense[p] = openSlot{op: op, set: true}
		return
	}
	if s.far == nil {
		s.far = map[int]openOp{}
	}
	s.far[p] = op
}

// take removes process p's outstanding operation and returns it, if it
// has one.
func (s *openOps) take(p int) (openOp, bool) {
	if p >= 0 && p < denseProcesses {
		if p >= len(s.dense) || !s.dense[p].set {
			return openOp{}, false
		}
		s.dense[p].set = false
		return s.dense[p].op, true
	}
	op, ok := s.far[p]
	if ok {
		delete(s.far, p)
	}
	return op, ok
}
