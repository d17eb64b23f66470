package all_test

import (
	"strings"
	"testing"

	"github.com/chatseq/chatseq/targets"
	_ "github.com/chatseq/chatseq/targets/all"
)

// Every variant of every target is selected by its kind: a bug with
// --broken, a design with --variant. A design under --broken is the old
// spelling: it still runs, with a note; a bug under --variant, both flags,
// or a name the target lacks are errors naming the flag.
func TestEveryVariantIsSelectedByItsKind(t *testing.T) {
	sp := targets.FlagSpelling
	designs := 0
	for _, target := range targets.Names() {
		for _, v := range targets.Variants(target) {
			if v.Design() {
				designs++
				if name, note, err := targets.SelectVariant(target, "", v.Name, sp); name != v.Name || note != "" || err != nil {
					t.Errorf("%s --variant %s: %q, %q, %v", target, v.Name, name, note, err)
				}
				name, note, err := targets.SelectVariant(target, v.Name, "", sp)
				if name != v.Name || err != nil || !strings.Contains(note, "--variant "+v.Name) {
					t.Errorf("%s --broken %s (the old spelling): %q, note %q, %v", target, v.Name, name, note, err)
				}
				continue
			}
			if name, note, err := targets.SelectVariant(target, v.Name, "", sp); name != v.Name || note != "" || err != nil {
				t.Errorf("%s --broken %s: %q, %q, %v", target, v.Name, name, note, err)
			}
			_, _, err := targets.SelectVariant(target, "", v.Name, sp)
			if err == nil || !strings.Contains(err.Error(), "--broken "+v.Name) {
				t.Errorf("%s --variant %s (a bug): %v", target, v.Name, err)
			}
		}
		for _, none := range []string{"", "none", "correct"} {
			if name, note, err := targets.SelectVariant(target, none, "", sp); name != "" || note != "" || err != nil {
				t.Errorf("%s --broken %q: %q, %q, %v", target, none, name, note, err)
			}
		}
		if _, _, err := targets.SelectVariant(target, "nope", "", sp); err == nil || !strings.Contains(err.Error(), `has no variant "nope"`) {
			t.Errorf("%s --broken nope: %v", target, err)
		}
		if _, _, err := targets.SelectVariant(target, "a", "b", sp); err == nil || !strings.Contains(err.Error(), "not both") {
			t.Errorf("%s with both flags: %v", target, err)
		}
	}
	if designs < 2 {
		t.Errorf("%d designs registered; sync-watermark and sequence-in-tx at least", designs)
	}
}
