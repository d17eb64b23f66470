package closers

import (
	"errors"
	"slices"
	"testing"
)

func TestCloseRunsEveryCleanupLastFirstOnce(t *testing.T) {
	var s Stack
	var ran []int
	first, second := errors.New("first failure"), errors.New("second failure")
	s.Push(func() error { ran = append(ran, 1); return second })
	s.Push(func() error { ran = append(ran, 2); return first })
	s.Push(func() error { ran = append(ran, 3); return nil })
	if err := s.Close(); err != first {
		t.Fatalf("Close returned %v, want the first error met (%v)", err, first)
	}
	if !slices.Equal(ran, []int{3, 2, 1}) {
		t.Fatalf("ran %v, want every cleanup last first", ran)
	}
	if err := s.Close(); err != nil || len(ran) != 3 {
		t.Fatalf("a second Close ran cleanups again (%v, %v)", err, ran)
	}
}
