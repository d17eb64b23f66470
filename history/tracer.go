package history

// ProcessTracer writes the allocate traces of one process to a recorder as
// they happen, on the recorder's clock: it is the sequencer's Tracer for
// every runner that records a history.
type ProcessTracer struct {
	Rec     *Recorder
	Process int
}

// Now is the recorder's clock.
func (t ProcessTracer) Now() int64 { return t.Rec.Now() }

// Allocated writes the trace at the allocation's end, not at the moment it
// is written down.
func (t ProcessTracer) Allocated(chat string, seq uint64, start, end int64) {
	t.Rec.RecordAt(&Event{
		Kind: KindTrace, F: FAllocate, Process: t.Process,
		Chat: chat, Seq: seq, Start: start, HasStart: true,
	}, end)
}
