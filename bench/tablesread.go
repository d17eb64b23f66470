package bench

import (
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/store"
)

// TablesRead counts the final lines a read-back hands over, by table, and
// which tables it read, so that the history says of each table it read
// that it did and how many of its lines it holds (table_read lines): a
// read-back that finds a table empty then says so, and the check judges
// "read and empty" (every acknowledged message lost) rather than taking
// the table as never read.
type TablesRead struct {
	lines map[string]int
	read  store.Tables
}

// Visitor hands each item to add as FinalVisitor does, counting it, and
// notes the tables the store says it read.
func (t *TablesRead) Visitor(add func(history.Final)) store.StateVisitor {
	t.lines = map[string]int{}
	v := FinalVisitor(func(f history.Final) {
		t.lines[f.Table]++
		add(f)
	})
	v.TablesRead = func(read store.Tables) { t.read |= read }
	return v
}

// Record writes a table_read line for each table read, with the count of
// its lines handed over. Call it once every line is recorded.
func (t *TablesRead) Record(rec *history.Recorder) error {
	for _, table := range []struct {
		bit  store.Tables
		name string
	}{
		{store.CountersTable, history.TableCounters},
		{store.MessagesTable, history.TableMessages},
		{store.IdempotencyTable, history.TableIdempotency},
	} {
		if t.read&table.bit == 0 {
			continue
		}
		if err := rec.RecordTableRead(table.name, t.lines[table.name]); err != nil {
			return err
		}
	}
	return nil
}
