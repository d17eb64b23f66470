package history

import (
	"bytes"
	"strings"
	"testing"
)

// Every header extension: its example goes through the recorder and the
// reader unchanged; a value of another type is refused by both, naming
// it; shards that state it differently are not one run when it must
// agree, and lose it otherwise.
func TestEveryHeaderExtension(t *testing.T) {
	const head = `{"format":"chatseq-history","version":1,`
	for _, x := range HeaderExtensions {
		if x.Name == "" || x.Gloss == "" || x.Example == "" || x.read == nil || x.check == nil {
			t.Fatalf("row %+v is incomplete", x)
		}
		var buf bytes.Buffer
		rec, err := NewRecorder(&buf, Header{Extra: map[string]string{x.Name: x.Example}}, 0)
		if err != nil {
			t.Fatalf("%s %s: %v", x.Name, x.Example, err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		if h := mustRead(t, buf.String()); h.Header.Extra[x.Name] != x.Example {
			t.Errorf("%s %s read back as %q", x.Name, x.Example, h.Header.Extra[x.Name])
		}
		if _, err := NewRecorder(&bytes.Buffer{}, Header{Extra: map[string]string{x.Name: `"x"`}}, 0); err == nil || !strings.Contains(err.Error(), `history header: "`+x.Name+`" must be`) {
			t.Errorf("recorder with %s \"x\": %v", x.Name, err)
		}
		_, err = Read(strings.NewReader(head+`"`+x.Name+`":"x"}`+"\n"), "x.jsonl")
		if err == nil || !strings.Contains(err.Error(), "x.jsonl:1: ") || !strings.Contains(err.Error(), `"`+x.Name+`" must be`) {
			t.Errorf("reading %s \"x\": %v", x.Name, err)
		}

		dir := t.TempDir()
		other := map[string]string{"10": "11", "true": "false"}[x.Example]
		a := writeHistory(t, dir, "a.jsonl", shard("chat-0000", head+`"`+x.Name+`":`+x.Example+`}`))
		b := writeHistory(t, dir, "b.jsonl", shard("chat-0001", head+`"`+x.Name+`":`+other+`}`))
		m, err := ReadFiles([]string{a, b})
		switch {
		case x.ShardsAgree && (err == nil || !strings.Contains(err.Error(), "different "+x.Name)):
			t.Errorf("shards with %s %s and %s: %v", x.Name, x.Example, other, err)
		case !x.ShardsAgree && err != nil:
			t.Errorf("shards with %s %s and %s: %v", x.Name, x.Example, other, err)
		case !x.ShardsAgree:
			if v, has := m.Header.Extra[x.Name]; has {
				t.Errorf("shards with %s %s and %s merged it as %s", x.Name, x.Example, other, v)
			}
		}
	}
}
