package bench

import "github.com/chatseq/chatseq/history"

// processTracer writes allocate traces for one process as they happen.
type processTracer struct {
	rec     *history.Recorder
	process int
}

func (t *processTracer) Now() int64 { return t.rec.Now() }

// Allocated writes the trace at the allocation's end, not at the moment
// it is written down.
func (t *processTracer) Allocated(chat string, seq uint64, start, end int64) {
	t.rec.RecordAt(&history.Event{
		Kind: history.KindTrace, F: history.FAllocate, Process: t.process,
		Chat: chat, Seq: seq, Start: start, HasStart: true,
	}, end)
}
