package bench_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/store"
	"github.com/chatseq/chatseq/store/memstore"
)

// emptyReadBack is a store whose read-back finds no messages and no
// idempotency records, as a service that lost them all would show.
type emptyReadBack struct{ store.Store }

func (s emptyReadBack) Dump(ctx context.Context, chats []string) (store.State, error) {
	st, err := s.Store.Dump(ctx, chats)
	st.Messages, st.Idempotency = nil, nil
	return st, err
}

// A run's history says which tables it read back and how many lines of
// each it holds, an empty table included, and that its clients are its
// chats' only writers.
func TestRunRecordsTheTablesItRead(t *testing.T) {
	for _, tt := range []struct {
		name   string
		st     store.Store
		kafka  bool
		lossy  bool
		tables []string
	}{
		{"embedded, Kafka", memstore.New(), true, false, []string{history.TableCounters, history.TableMessages, history.TableIdempotency, history.TableEvents}},
		{"embedded, no Kafka", memstore.New(), false, false, []string{history.TableCounters, history.TableMessages, history.TableIdempotency}},
		{"everything lost", emptyReadBack{memstore.New()}, false, true, []string{history.TableCounters, history.TableMessages, history.TableIdempotency}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := bench.DefaultConfig()
			cfg.Writers, cfg.Chats, cfg.Ops, cfg.Duration, cfg.KafkaOff = 2, 2, 40, 0, !tt.kafka
			cfg.HistoryPath = filepath.Join(t.TempDir(), "history.jsonl")
			if _, err := bench.Run(context.Background(), cfg, tt.st); err != nil {
				t.Fatal(err)
			}
			h, err := history.ReadFile(cfg.HistoryPath)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range h.TablesRead {
				got = append(got, r.Table)
				if r.Short() {
					t.Errorf("table %s: promised %d lines, holds %d", r.Table, r.Lines, r.Found)
				}
				if tt.lossy && r.Table == history.TableMessages && r.Lines != 0 {
					t.Errorf("the lost messages table promises %d lines", r.Lines)
				}
				if !tt.lossy && r.Table == history.TableMessages && r.Lines == 0 {
					t.Errorf("no messages read back from a run of %d persists", cfg.Ops)
				}
			}
			if !reflect.DeepEqual(got, tt.tables) {
				t.Fatalf("tables read %v, want %v", got, tt.tables)
			}
			if !h.Header.SoleWriter() {
				t.Fatalf("the header does not say the run's clients are its only writers: %+v", h.Header.Extra)
			}
		})
	}
}
