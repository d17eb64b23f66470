package render

import "testing"

// Keeps answers as Fail decides: the first counterexample is kept, then
// only one with fewer lines once cleaned (0 dropped, repeats merged).
func TestVerdictKeeps(t *testing.T) {
	v := NewVerdict("x")
	if !v.Keeps([]int{3, 5}) {
		t.Fatal("the first counterexample is not kept")
	}
	v.Fail([]int{5, 3}, "first")
	for _, c := range []struct {
		lines []int
		want  bool
	}{
		{[]int{7, 9}, false},
		{[]int{9, 7, 8}, false},
		{[]int{4, 4}, true},
		{[]int{0, 4}, true},
		{[]int{0, 0}, true},
	} {
		if got := v.Keeps(c.lines); got != c.want {
			t.Errorf("Keeps(%v) = %v, want %v", c.lines, got, c.want)
		}
		before := v.example
		v2 := *v
		v2.Fail(c.lines, "other")
		if kept := v2.example != before; kept != c.want {
			t.Errorf("Fail(%v) kept it: %v, Keeps said %v", c.lines, kept, c.want)
		}
	}
	v.CountFail()
	if r := v.Result(); r.Detail != "2 violations; smallest: first" {
		t.Errorf("detail %q", r.Detail)
	}
}
