package bench

import "github.com/chatseq/chatseq/history"

// processTracer writes allocate traces for one process as they happen.
type processTracer struct {
	rec     *history.Recorder
	process int
}

func (t *processTracer) Now() int64 { return t.rec.Now() }

func (t *processTracer) Allocated(chat string, seq uint64, start int64) {
	t.rec.Record(&history.Event{
		Kind: history.KindTrace, F: history.FAllocate, Process: t.process,
		Chat: chat, Seq: seq, Start: start, HasStart: true,
	})
}
