package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestIndexLinksEveryTargetsReport(t *testing.T) {
	a := benchReport(t)
	b := a
	a.Run.Target, b.Run.Target = "memory", "ledger"
	var out bytes.Buffer
	if err := WriteIndex(&out, []IndexEntry{{Bench: a, Dir: "memory"}, {Bench: b, Dir: "ledger"}}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, want := range []string{`href="memory/report.html"`, `href="ledger/report.html"`, `class="PASS"`, "end-to-end p99", "2 targets"} {
		if !strings.Contains(page, want) {
			t.Errorf("index lacks %q:\n%s", want, page)
		}
	}
}
