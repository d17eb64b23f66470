package checker

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/timings"
)

// Feed judges a history while it is being recorded: the recorder hands
// each line it writes to the Feed's Tap, whose goroutine puts it in a Log
// (history.NewTappedRecorder), so that when the run ends only the last
// lines and the invariants are left to do. The Tap gives the Log the lines
// the file gets, as Scan would read them, so the Feed's verdict is the
// one 'chatseq check' gives that file.
type Feed struct {
	began  time.Time
	log    *Log
	tap    *history.Tap
	online *Online
}

// NewFeed starts a Feed for a history that will be written to name.
func NewFeed(name string) *Feed { return NewOnlineFeed(name, nil) }

// NewOnlineFeed is NewFeed whose lines also go to online as they are
// read (the run's online check), unless it is nil.
//
// The Log spills the records the run has moved past to a file beside the
// history (store.Log.SpillTo), and the online check the first acks of old
// sequences (online.Checker.SpillTo), so that what they hold does not grow
// with a long run; where no such file can be made, they keep them all.
func NewOnlineFeed(name string, online *Online) *Feed {
	l := NewLog()
	dir := ""
	if name != "" {
		dir = filepath.Dir(name)
	}
	if l.SpillTo(dir) != nil {
		l.SpillTo("") // the temporary directory, else nothing is spilled
	}
	if online != nil && online.SpillTo(dir) != nil {
		online.SpillTo("")
	}
	var sink history.Sink = l
	if online != nil {
		sink = onlineSink{Log: l, online: online}
	}
	return &Feed{began: time.Now(), log: l, tap: history.NewTap(name, sink), online: online}
}

// Tap is what the recorder hands its lines to.
func (f *Feed) Tap() *history.Tap { return f.tap }

// Check waits until the Log has every line recorded and judges it, as
// CheckFile judges the file. A history that cannot be read is an error,
// as for CheckFile.
func (f *Feed) Check(opt Options) (Report, *history.History, error) {
	done := timings.Phase("feed: reading what was queued")
	h, err := f.tap.Wait()
	done()
	if f.online != nil {
		if oerr := f.online.CloseSpill(); oerr != nil && err == nil {
			err = fmt.Errorf("the online check reading back what it spilled: %w", oerr)
		}
	}
	if err != nil {
		f.log.DropSpill()
		return Report{}, nil, err
	}
	done = timings.Phase("feed: spilled records read back")
	err = f.log.Unspill()
	done()
	if err != nil {
		return Report{}, nil, fmt.Errorf("reading back the records spilled while the run went: %w", err)
	}
	timings.Note("feed: %.1f MB spilled, %.1f MB read back", float64(f.log.SpilledBytes)/1e6, float64(f.log.ReadBackBytes)/1e6)
	return f.log.check(h, opt, f.began), h, nil
}

// Discard ends the feed and drops what it read, for a run whose history
// will not be judged.
func (f *Feed) Discard() {
	f.tap.Wait()
	f.log.DropSpill()
	if f.online != nil {
		f.online.CloseSpill()
	}
	f.log = nil
}

// onlineSink hands each line to the Log and, for operations and
// receivers' lines, to the online check.
type onlineSink struct {
	*Log
	online *Online
}

func (s onlineSink) Event(e *history.Event) {
	s.Log.Event(e)
	s.online.Event(e)
}

// BatchDone tells the online check a write was handed whole
// (history.BatchSink).
func (s onlineSink) BatchDone(lines int) { s.online.BatchDone(lines) }

// Header hands the online check the history's header
// (history.HeaderSink).
func (s onlineSink) Header(h *history.Header) { s.online.Header(h) }

// Receiver hands a receiver line to both (history.ReceiverSink).
func (s onlineSink) Receiver(r *history.Receiver) {
	s.Log.Receiver(r)
	s.online.Receiver(r)
}
