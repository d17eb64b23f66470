package checker

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// A table whose table_read count the file does not hold was cut short: as
// in a file that lacks its promised end line, every invariant that reads
// final lines is unknown, never fail, and the detail says which table.
func TestTableCutShortIsUnknown(t *testing.T) {
	b := cutHistory(true) // the messages table holds 1 of its 3 lines
	b.h.Header.EndLine = false
	mustFail(t, b.check(t), NameAckImpliesPersistence, 12) // taken as complete, it fails
	read := b.tableRead(history.TableMessages, 2)
	r := b.check(t)
	for _, res := range r.Invariants {
		if res.Status == Fail {
			t.Errorf("%s failed on a table cut short: %s", res.Name, res.Detail)
		}
	}
	res := must(t, r, NameAckImpliesPersistence, Unknown)
	mustContain(t, res.Detail, "the final state was cut short (the table_read line")
	mustContain(t, res.Detail, "promises 3 final messages lines and the file holds 1)")
	if !strings.Contains(res.Detail, "line "+strconv.Itoa(read)) || r.ExitCode() != 3 {
		t.Fatalf("exit %d: %s", r.ExitCode(), res.Detail)
	}
}
