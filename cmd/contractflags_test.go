package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// check has one flag per contract field: each value overrides the
// header's (the JSON report's contract says so), a value no row allows
// exits 2 naming the flag and its values, and --help glosses every value.
func TestCheckHasAFlagPerContractField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	text := `{"format":"chatseq-history","version":1}
{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k"}
{"type":"ok","process":1,"f":"persist","time":2,"seq":1,"message_id":"m1"}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, help, _ := run(t, "check", "--help")
	for _, f := range history.ContractFields {
		for _, v := range f.Values {
			code, out, errOut := run(t, "check", path, "--format", "json", "--"+f.Flag, v.Name)
			if want := `"` + f.Name + `": "` + v.Name + `"`; code == ExitBadInput || !strings.Contains(out, want) {
				t.Errorf("--%s %s: exit %d, output lacks %s\n%s%s", f.Flag, v.Name, code, want, out, errOut)
			}
			if !strings.Contains(strings.Join(strings.Fields(help), " "), v.Name+" ("+v.Gloss) {
				t.Errorf("check --help does not gloss --%s %s", f.Flag, v.Name)
			}
		}
		code, _, errOut := run(t, "check", path, "--"+f.Flag, "bogus")
		if want := "--" + f.Flag + " must be " + f.Choices(false, "or") + `, got "bogus"`; code != ExitBadInput || !strings.Contains(errOut, want) {
			t.Errorf("--%s bogus: exit %d, %s; want %s", f.Flag, code, errOut, want)
		}
	}
}
