package history

import (
	"bytes"
	"sync"

	"github.com/chatseq/chatseq/internal/redact"
)

// Tap hands what a Recorder writes to a Sink while it is written, as Scan
// would hand it reading the file: the same lines, numbered alike, through
// the same structural rules (an error is the ParseError Scan would
// return), but taken from the recorder's own Events and Finals rather
// than parsed back from their JSON. A goroutine of its own feeds the sink,
// so the recorder never waits for it unless paced (Pace).
//
// A line reaches the sink only once it is written to the file: a write
// that fails is not tapped, nor is anything after it.
type Tap struct {
	name string
	sink Sink
	dec  *tapDecoder

	mu      sync.Mutex
	more    sync.Cond // an item was queued, or the input ended
	drained sync.Cond // the queue shrank, or the reader stopped
	queue   []tapItem
	queued  int  // lines in queue
	closed  bool // no more input
	failed  bool // the reader stopped early: input is dropped
	paced   bool // adds wait while more than pacedLines are queued
	spare   [][]tapLine
	spareF  [][]Final
	spareP  [][]tapSegment

	done chan struct{}
	h    *History
	err  error
}

// tapItem is one write's worth of lines: the header, a flush's lines, a
// batch of finals, a table_read line, or the end line.
type tapItem struct {
	header []byte
	lines  []tapLine
	// plan, when not nil, is a flush's lines in file order: runs of the
	// shards' lines, each shard's taken in its order (shardLines).
	plan       []tapSegment
	shardLines [recordShards][]tapLine
	planned    int // the plan's lines
	finals     []Final
	// plainFinals says every string of finals is plain ASCII, so valid
	// UTF-8: the reader need not check them again (builder.addTapFinal).
	plainFinals bool
	tableRead   *TableRead
	end         bool
}

// tapSegment is a run of n lines of one shard, in a flush's plan.
type tapSegment struct{ shard, n int32 }

// pacedLines is how far a paced tap's reader may fall behind: a few tens
// of megabytes of queued lines.
const pacedLines = 1 << 17

// NewTap starts handing the history that a Recorder made with
// NewTappedRecorder will record to sink; name is the file it is written
// to, for messages. If sink is an IDHasher it gets sync answers' ids as
// hashes, as from Scan.
func NewTap(name string, sink Sink) *Tap {
	var hashID func([]byte) uint64
	if h, ok := sink.(IDHasher); ok {
		hashID = h.HashID
	}
	t := &Tap{name: name, sink: sink, dec: newTapDecoder(name, hashID), done: make(chan struct{})}
	t.more.L = &t.mu
	t.drained.L = &t.mu
	go func() {
		defer close(t.done)
		t.h, t.err = t.read()
		t.mu.Lock()
		t.failed, t.queue, t.queued = true, nil, 0 // what comes later is not read
		t.drained.Broadcast()
		t.mu.Unlock()
	}()
	return t
}

// Pace makes the recorder's later writes wait while the reader is more
// than pacedLines behind. A run calls it once its writers have stopped:
// the final state is recorded faster than it is read, and an unpaced
// queue would hold a copy of most of it.
func (t *Tap) Pace() {
	t.mu.Lock()
	t.paced = true
	t.mu.Unlock()
}

// Close ends the input: the reader sees the end of the file.
func (t *Tap) Close() {
	t.mu.Lock()
	t.closed = true
	t.more.Signal()
	t.mu.Unlock()
}

// Wait closes the tap, waits until the sink has every line and returns
// what Scan returns: the History's header, warnings and end line, or the
// error that stopped the reading.
func (t *Tap) Wait() (*History, error) {
	t.Close()
	<-t.done
	return t.h, t.err
}

// add queues it, first waiting while a paced queue is full.
func (t *Tap) add(it tapItem, lines int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.paced && !t.failed && !t.closed && t.queued > pacedLines {
		t.drained.Wait()
	}
	if t.failed || t.closed {
		t.recycleLocked(it)
		return
	}
	t.queue = append(t.queue, it)
	t.queued += lines
	t.more.Signal()
}

// next is the next item, or false once the input has ended.
func (t *Tap) next() (tapItem, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.queue) == 0 {
		if t.closed {
			return tapItem{}, false
		}
		t.more.Wait()
	}
	it := t.queue[0]
	t.queue[0] = tapItem{}
	t.queue = t.queue[1:]
	t.queued -= it.lineCount()
	if t.queued <= pacedLines {
		t.drained.Broadcast()
	}
	return it, true
}

// spareLines is a buffer of lines the reader is done with, emptied, or
// nil if there is none.
func (t *Tap) spareLines() []tapLine {
	t.mu.Lock()
	defer t.mu.Unlock()
	return popSpare(&t.spare)
}

// planBuffer is an empty plan the reader is done with, or nil.
func (t *Tap) planBuffer() []tapSegment {
	t.mu.Lock()
	defer t.mu.Unlock()
	return popSpare(&t.spareP)
}

// popSpare takes the last of spares, nil if there is none.
func popSpare[T any](spares *[][]T) []T {
	k := len(*spares)
	if k == 0 {
		return nil
	}
	b := (*spares)[k-1]
	*spares = (*spares)[:k-1]
	return b
}

// lineCount is how many lines it holds.
func (it *tapItem) lineCount() int {
	n := len(it.lines) + len(it.finals) + it.planned
	if it.tableRead != nil {
		n++
	}
	return n
}

// finalsOf is a copy of fs in a buffer the reader is done with.
func (t *Tap) finalsOf(fs []Final) []Final {
	return append(t.finalBuffer(0), fs...)
}

// finalBuffer is an empty buffer the reader is done with, or a new one
// of capacity n.
func (t *Tap) finalBuffer(n int) []Final {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b := popSpare(&t.spareF); b != nil {
		return b
	}
	if n == 0 {
		return nil
	}
	return make([]Final, 0, n)
}

// tapSpares bounds the buffers kept for reuse.
const tapSpares = 64

func (t *Tap) recycle(it tapItem) {
	t.mu.Lock()
	t.recycleLocked(it)
	t.mu.Unlock()
}

func (t *Tap) recycleLocked(it tapItem) {
	// Not cleared: what the lines held stays reachable until they are
	// overwritten, a bounded amount.
	if it.lines != nil && len(t.spare) < tapSpares {
		t.spare = append(t.spare, it.lines[:0])
	}
	for _, lines := range it.shardLines {
		if lines != nil && len(t.spare) < tapSpares {
			t.spare = append(t.spare, lines[:0])
		}
	}
	if it.plan != nil && len(t.spareP) < tapSpares {
		t.spareP = append(t.spareP, it.plan[:0])
	}
	if it.finals != nil && len(t.spareF) < tapSpares {
		t.spareF = append(t.spareF, it.finals[:0])
	}
}

// read is Scan's readTo over the tapped lines.
func (t *Tap) read() (*History, error) {
	it, ok := t.next()
	p := newLineParser(bytes.NewReader(it.header), t.name, len(it.header)+1)
	header, err := p.header()
	if err != nil {
		return nil, err
	}
	b := newBuilder(&History{File: t.name, Header: header}, sizeHint{bytes: -1})
	b.sink = t.sink
	if hs, ok := t.sink.(HeaderSink); ok {
		hs.Header(&b.h.Header)
	}
	lineNo := p.lineNo
	var pl parsedLine
	batches, _ := t.sink.(BatchSink)
	for ok {
		if it, ok = t.next(); !ok {
			break
		}
		// With a credential given, a line's strings may be written as
		// stand-ins (redact.Value): every line is then read as written,
		// encoded and decoded, never taken from the recorder's own
		// values, which hold the credential a service echoed.
		t.dec.asWritten = redact.Active()
		var taken [recordShards]int32 // each shard's lines read so far
		for _, seg := range it.plan {
			from := taken[seg.shard]
			taken[seg.shard] += seg.n
			if lineNo, err = t.readLines(b, it.shardLines[seg.shard][from:from+seg.n], lineNo, &pl); err != nil {
				return nil, err
			}
		}
		if lineNo, err = t.readLines(b, it.lines, lineNo, &pl); err != nil {
			return nil, err
		}
		for i := range it.finals {
			lineNo++
			if it.plainFinals && !t.dec.asWritten && b.addTapFinal(&it.finals[i], lineNo) {
				continue
			}
			if err = t.dec.final(&it.finals[i], lineNo, &pl); err == nil {
				err = b.add(&pl)
			}
			if err != nil {
				return nil, err
			}
		}
		if t := it.tableRead; t != nil {
			lineNo++
			pl = parsedLine{lineNo: lineNo, shape: tableReadShape, present: tableReadShape.required, kind: KindTableRead, table: t.Table, lines: t.Lines}
			if err = b.add(&pl); err != nil {
				return nil, err
			}
		}
		if it.end {
			lineNo++
			pl = parsedLine{lineNo: lineNo, shape: endShape, present: fields(fieldType), kind: KindEnd}
			if err = b.add(&pl); err != nil {
				return nil, err
			}
		}
		if n := len(it.lines) + it.planned; batches != nil && n > 0 {
			batches.BatchDone(n)
		}
		t.recycle(it)
	}
	b.finish(lineNo)
	return b.h, nil
}

// readLines hands the builder lines, numbered on from lineNo, and returns
// the last one's number.
func (t *Tap) readLines(b *builder, lines []tapLine, lineNo int, pl *parsedLine) (int, error) {
	for i := range lines {
		lineNo++
		l := &lines[i]
		var err error
		switch {
		case l.refIs == refFinal:
			err = t.dec.final(l.final(), lineNo, pl)
		case l.refIs == refReceiver:
			err = t.dec.receiver(l.receiver(), lineNo, pl)
		case l.refIs == refEvent:
			err = t.dec.event(l.whole(), lineNo, pl)
		case !t.dec.asWritten && b.addLine(l, lineNo):
			continue
		default:
			err = t.dec.line(l, lineNo, pl)
		}
		if err == nil {
			err = b.add(pl)
		}
		if err != nil {
			return lineNo, err
		}
	}
	return lineNo, nil
}
