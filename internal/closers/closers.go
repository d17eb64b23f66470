// Package closers keeps the cleanups of something opened in steps (a
// server started, then a client, then tables), to run in reverse.
package closers

// Stack runs its cleanups last first. The zero value is empty and ready.
type Stack struct{ fns []func() error }

// Push adds a cleanup.
func (s *Stack) Push(f func() error) { s.fns = append(s.fns, f) }

// Close runs every cleanup, last first, even after one fails, and returns
// the first error. A second Close runs nothing.
func (s *Stack) Close() error {
	var first error
	for i := len(s.fns) - 1; i >= 0; i-- {
		if err := s.fns[i](); err != nil && first == nil {
			first = err
		}
	}
	s.fns = nil
	return first
}
