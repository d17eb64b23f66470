package checker

import (
	"sync"

	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/history"
)

// index is the history's store.Index (its records and the sorted views
// every invariant shares, checker/internal/store) with what invariants
// work out once and share while they run.
type index struct {
	*store.Index

	// eventOrder is judged once: event_completeness notes what it
	// counts, and the findings judge or count it too.
	eventOrderOnce sync.Once
	eventOrderRes  eventOrderResult

	// topicOrder is the events in the topic's order and the chats two of
	// whose events are at one offset: event_order and stream_continuity
	// read it.
	topicOrderOnce sync.Once
	topicOrderRes  topicOrder
}

// Log takes a history's lines one at a time and keeps only what the
// invariants read (store.Log), so that a history is read straight into a
// Log (history.ScanFile) and never held whole. It implements
// history.Sink.
type Log struct{ *store.Log }

// NewLog is an empty Log.
func NewLog() *Log { return &Log{store.NewLog()} }

// indexOf is h's index, as Check builds it for a complete history.
func indexOf(h *history.History) *index { return &index{Index: store.IndexOf(h)} }
