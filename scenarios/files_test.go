package scenarios

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A directory is walked for *.yaml and *.yml, skipping testdata and names
// starting with "." or "_", files as directories (docs/scenarios.md): an
// editor's .x.yaml or a _wip.yaml ran with the suite (an outside
// tester's). A file named explicitly is read whatever its name.
func TestCollectSkipsHiddenAndWorkInProgress(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.yaml", "b.yml", "_wip.yaml", ".swap.yaml", "notes.txt", "_drafts/c.yaml", "testdata/d.yaml", "sub/e.yaml"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("name: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yml"), filepath.Join(dir, "sub/e.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("collected %v, want %v", got, want)
	}
	named := filepath.Join(dir, "_wip.yaml")
	if got, err := Collect([]string{named}); err != nil || !slices.Equal(got, []string{named}) {
		t.Errorf("named explicitly: %v, %v", got, err)
	}
}
