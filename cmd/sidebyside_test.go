package cmd

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// bench --target memory,postgres,ledger: each report says only what holds
// of its own design, in English, and the side-by-side table counts what
// the reports above it count.
func TestSideBySideReportsSayWhatHoldsOfEachDesign(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	_, out, errOut := run(t, "bench", "--target", "memory,postgres,ledger", "--ops", "200", "--duration", "0",
		"--writers", "2", "--chats", "4", "--quiet", "--history", hist)
	sections := strings.Split(out, "\nchatseq bench: target ")
	if len(sections) != 3 {
		t.Fatalf("want three reports:\n%s\n%s", out, errOut)
	}
	for _, s := range sections[1:] {
		if strings.Contains(s, "ADR-004") {
			name, _, _ := strings.Cut(s, " ")
			for _, l := range strings.Split(s, "\n") {
				if strings.Contains(l, "ADR-004") {
					t.Errorf("the %s report names ADR-004, which does not describe it: %q", name, l)
				}
			}
		}
	}
	ledger := sections[2]
	if !strings.Contains(ledger, "kafka none (the design publishes no events)") || strings.Contains(ledger, "kafka in-process") || strings.Contains(ledger, "events read back") {
		t.Errorf("the ledger, which publishes nothing, is reported with a Kafka:\n%s", ledger)
	}
	// One operation of each kind: every count that can be 1 is.
	_, one, _ := run(t, "bench", "--target", "memory", "--ops", "1", "--duration", "0", "--writers", "1", "--chats", "1",
		"--sync-ratio", "0", "--quiet", "--history", filepath.Join(t.TempDir(), "one.jsonl"))
	// A rate's unit stays plural ("1 ops/s": a slow first publish on a
	// loaded machine makes the one operation's rate round to 1).
	if m := regexp.MustCompile(`(^|[^0-9.,])1 [a-z_-]+s([^a-z_/-]|$)`).FindAllString(out+one, -1); len(m) > 0 {
		t.Errorf("singulars in the plural: %q\n%s", m, one)
	}
	// Each report's "persists … ok N" is the table's "persists ok" for it.
	persistOK := regexp.MustCompile(`(?m)^  persists +\d+ +ok (\d+) `)
	oks := persistOK.FindAllStringSubmatch(out, -1)
	table := out[strings.LastIndex(out, "    target  ops/s"):]
	rows := strings.Split(strings.TrimSpace(table), "\n")[1:]
	if len(oks) != 3 || len(rows) != 3 {
		t.Fatalf("reports' persists ok %v, table rows %q", oks, rows)
	}
	for i, row := range rows {
		if cells := strings.Fields(row); len(cells) < 3 || cells[2] != oks[i][1] {
			t.Errorf("table row %q: persists ok should be %s, as its report says", row, oks[i][1])
		}
	}
}
