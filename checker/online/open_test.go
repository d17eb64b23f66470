package online

import (
	"math/rand/v2"
	"testing"
)

// Outstanding operations are kept per process whatever its number: dense
// or far, negative included, each taken once, as a map keeps them.
func TestOpenOpsAreAMapByProcess(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 30))
	var s openOps
	want := map[int]openOp{}
	numbers := []int{-1, 0, 1, 7, denseProcesses - 1, denseProcesses, 1 << 40}
	for i := range 20000 {
		p := numbers[r.IntN(len(numbers))]
		if r.IntN(2) == 0 {
			p = r.IntN(100)
		}
		if r.IntN(2) == 0 {
			op := openOp{line: int32(i), chat: int32(p)}
			s.put(p, &op)
			want[p] = op
			continue
		}
		got, ok := s.take(p)
		w, wok := want[p]
		if ok != wok || ok && (got.line != w.line || got.chat != w.chat) {
			t.Fatalf("step %d, process %d: took %+v %v, want %+v %v", i, p, got, ok, w, wok)
		}
		delete(want, p)
	}
}
