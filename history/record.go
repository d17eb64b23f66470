package history

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Recorder appends events to a history as they happen. It is safe for
// concurrent use, and the file's lines are in time order.
//
// Lines go to one of recordShards buffers (by process), each stamped and
// appended under that buffer's lock: writers on different shards never
// contend, and each shard's lines are in time order (a line recorded at a
// time read earlier, RecordAt, moves up to the shard's last time). A flush
// takes every shard's lines at once, holding all their locks while it swaps
// the buffers, so every line it takes precedes every line it leaves for the
// next flush (RecordAt moves a line up to the last flush's latest time);
// merging the shards by time then gives the file's order. The merge and
// the write happen outside the shard locks, in a background goroutine: a
// writer whose line fills a shard only wakes it, so no operation's
// measured latency carries a file write (unless the flusher falls far
// behind; then the writer flushes itself). Writers that never block keep
// every P busy: they call YieldToFlusher between operations so the woken
// flusher runs at once.
type Recorder struct {
	w    io.Writer
	base time.Time

	shards [recordShards]recordShard

	writeMu sync.Mutex // one flush at a time; guards out, err and ended
	out     []byte     // the merged lines of a flush
	err     error      // the first write error; later writes are skipped
	ended   bool       // End wrote the end line: nothing may follow it

	// floor is the latest time of any line a flush has taken: a line
	// recorded later must not be earlier. Written with every shard locked,
	// so any one shard's lock guards a read.
	floor int64

	// tap, if set, gets every line the file gets, as typed values
	// (tap.go); each shard keeps its lines' values beside their bytes.
	tap *Tap

	kick        chan struct{} // wakes the flusher when a shard is full
	flushWanted atomic.Bool   // kicked, and the flusher has not started yet
	stop        chan struct{} // closed by Close to end the flusher
	flusherWG   sync.WaitGroup
	closeOnce   sync.Once
}

const (
	// recordShards buffers; a power of two, so a process picks one with a
	// mask. Writers are numbered densely, so a few dozen rarely share one.
	recordShards = 16
	// recordShardSize is how much one shard buffers before it wakes the
	// flusher; at recordShardLimit the writer flushes itself, unless a
	// flush is under way: then it waits for it only at
	// recordShardHardLimit. A killed process loses what was not flushed
	// (at most recordShards times the hard limit, normally a shard's size
	// per shard) and leaves at most one partial line.
	//
	// A flush takes every shard's lines at once, so a shard's size sets
	// how often a run merges, writes, hands its tap a batch and wakes the
	// flusher and the tap's reader: at 256 KB a run of 1M persists made a
	// fifth as many flushes as at 32 KB (writes of 256 KB-1 MB, not 32-64
	// KB) and took 5-10% less CPU a persist. The flush cycles were the
	// cost: 32 KB shards whose flushes were written 512 KB at a time took
	// as much CPU as before. Since the tap takes the shards' lines in
	// place, 128 KB does better than 256 (the shards' buffers stay in the
	// cores' caches): BenchmarkPersistSideBySide's run-ratio 0.465
	// against 0.450, 129 ns less CPU a persist (7 rounds interleaved on
	// 2026-12-05; 64 and 96 KB between the two).
	recordShardSize      = 128 << 10
	recordShardLimit     = 4 * recordShardSize
	recordShardHardLimit = 4 * recordShardLimit
	// recordScratch is the stack buffer a line is encoded in; longer lines
	// (a sync returning many messages) go to the heap. A persist's lines
	// are under 200 bytes, and the buffer is zeroed on every call: 256
	// records 5% faster than 512.
	recordScratch = 256
)

// recordShard is one buffer of lines with the time and end of each.
type recordShard struct {
	mu    sync.Mutex
	buf   []byte
	lines []lineMark
	last  int64     // the time of the shard's latest line, flushed or not
	taps  []tapLine // with a tap: each line's values, as lines
	// The buffers a flush hands back, swapped in at the next one.
	spareBuf   []byte
	spareLines []lineMark
	spareTaps  []tapLine
	_          [64]byte // keep neighbouring shards' locks off one cache line
}

// lineMark is where a line ends in its shard's buffer, and its time.
type lineMark struct {
	time int64
	end  int
}

// NewRecorder writes h as the header line and returns a recorder that
// appends to w. Its background flusher writes when buffers fill and, if
// flushEvery > 0, that often, so a long quiet run still reaches the file.
// Close ends it. The recorder never closes w.
//
// The header always promises the end line ("end_line": true, whatever
// h.EndLine says): End writes it once the run is complete, and a file
// without it reads as cut short.
func NewRecorder(w io.Writer, h Header, flushEvery time.Duration) (*Recorder, error) {
	return NewTappedRecorder(w, h, flushEvery, nil)
}

// NewTappedRecorder is NewRecorder that also hands every line written to
// tap (nil: none). A tapped recorder keeps each recorded Event until the
// tap's reader has it: the caller must not change what its strings and
// SyncResult hold after Record returns.
func NewTappedRecorder(w io.Writer, h Header, flushEvery time.Duration, tap *Tap) (*Recorder, error) {
	h.EndLine = true
	header, err := appendHeader(nil, &h)
	if err != nil {
		return nil, err
	}
	// Write the header at once: a run killed early still leaves a file
	// that identifies itself.
	if _, err := w.Write(header); err != nil {
		return nil, err
	}
	if cp, ok := w.(checkpointer); ok {
		if err := cp.Checkpoint(); err != nil {
			return nil, err
		}
	}
	if tap != nil {
		tap.add(tapItem{header: header}, 0)
	}
	r := &Recorder{w: w, base: time.Now(), tap: tap, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	// Each shard's buffers are made as large as a shard holds before its
	// writer flushes itself: the flusher often comes much later than at
	// recordShardSize, and buffers grown by doubling were 93 MB of
	// allocations in a run of 1M persists. Pages not written to are not
	// taken from the system, and these hold no pointers for a collection
	// to scan (a tap's lines, which do, grow as they are used). Only a
	// writer that finds a flush under way grows its shard further.
	const lines = recordShardLimit / 128 // a persist's lines are 110-200 bytes
	for i := range r.shards {
		sh := &r.shards[i]
		sh.buf, sh.spareBuf = make([]byte, 0, recordShardLimit+recordScratch), make([]byte, 0, recordShardLimit+recordScratch)
		sh.lines, sh.spareLines = make([]lineMark, 0, lines), make([]lineMark, 0, lines)
	}
	r.flusherWG.Add(1)
	go r.flushInBackground(flushEvery)
	return r, nil
}

// Now is the recorder's clock: monotonic nanoseconds since it started.
func (r *Recorder) Now() int64 { return int64(time.Since(r.base)) }

// At is t on the recorder's clock.
func (r *Recorder) At(t time.Time) int64 { return int64(t.Sub(r.base)) }

// Time is at, a time on the recorder's clock, as a time.Time (At's inverse).
func (r *Recorder) Time(at int64) time.Time { return r.base.Add(time.Duration(at)) }

// Record stamps e.Time with Now, appends e's line and returns the time. e.Line
// is ignored. Only the fields e's kind carries are written (see FORMAT.md);
// on completions, an empty Chat or Key is left out and so read back as the
// invoke's.
func (r *Recorder) Record(e *Event) int64 { return r.record(e, stampNow) }

// RecordAt is Record for a line that marks an end (a completion, an
// allocate trace) at end, a time the caller read from Now when the thing
// ended: the clock is not read again, and the line's time is the end
// itself rather than the moment it was written down. If a line that may
// come before it in the file already has a later time, the line takes that
// time instead, so the file stays in time order; an end only ever moves
// later, between the true end and the call, so its operation's interval
// only widens. Never use it for an invoke: a start must not move later.
func (r *Recorder) RecordAt(e *Event, end int64) int64 { return r.record(e, max(end, 0)) }

// stampNow asks record to stamp the line with Now under the shard's lock.
const stampNow = -1

func (r *Recorder) record(e *Event, at int64) int64 {
	// Encode before locking: only the time is written under the lock.
	var scratch [recordScratch]byte
	line := appendEventHead(scratch[:0], e)
	head := len(line)
	line, plain := appendEventTail(line, e)
	sh := &r.shards[uint(e.Process)%recordShards]
	sh.mu.Lock()
	var t int64
	if at == stampNow {
		t = r.Now() // later than every time given out so far
	} else {
		// The shard's last line precedes this one in the file, and so
		// does every line an earlier flush wrote (floor).
		t = max(at, sh.last, r.floor)
	}
	sh.last = t
	sh.buf = append(sh.buf, line[:head]...)
	sh.buf = strconv.AppendInt(sh.buf, t, 10)
	sh.buf = append(sh.buf, line[head:]...)
	if r.tap != nil {
		if len(sh.taps) == cap(sh.taps) {
			sh.taps = growTaps(sh.taps)
		}
		sh.taps = append(sh.taps, tapLineOf(e, t, plain))
	}
	r.unlockAndMaybeFlush(sh, t)
	e.Time = t
	return t
}

// RecordFinal appends a final line. Finals must come after every operation
// and trace; they carry no time, and are ordered by when they are recorded.
func (r *Recorder) RecordFinal(f Final) {
	var scratch [recordScratch]byte
	line, _ := appendFinal(scratch[:0], &f)
	// In the first shard, stamped now: later than every operation's line.
	sh := &r.shards[0]
	sh.mu.Lock()
	t := r.Now()
	sh.last = t
	sh.buf = append(sh.buf, line...)
	if r.tap != nil {
		fc := new(Final) // taking f's address would move every call's f to the heap
		*fc = f
		sh.taps = append(sh.taps, finalTapLine(fc))
	}
	r.unlockAndMaybeFlush(sh, t)
}

// RecordFinals writes final lines, as RecordFinal does one by one, but
// encodes them all first and then writes them straight to the file, after
// every line recorded before: several goroutines can encode batches at the
// same time (each line reads its strings, which after a long run are
// mostly cache misses) while one writes, and the lines are copied once
// rather than into a shard, merged and copied again.
func (r *Recorder) RecordFinals(fs []Final) { r.recordFinals(fs, false, nil) }

// RecordFinalBatch is RecordFinals for a caller that hands fs over: a tap
// keeps fs itself rather than a copy (after a long run, the final state's
// lines are copied once fewer). It returns an empty batch to fill next:
// fs's own storage when nothing taps the recorder, else one the tap is
// done with, or a new one as large as fs. turn, unless nil, is called
// once fs is encoded and before it is written: callers encoding batches
// side by side wait there for the batch before theirs, so that the file
// keeps their order.
func (r *Recorder) RecordFinalBatch(fs []Final, turn func()) (next []Final) {
	return r.recordFinals(fs, true, turn)
}

func (r *Recorder) recordFinals(fs []Final, handedOver bool, turn func()) (next []Final) {
	if len(fs) == 0 {
		if turn != nil {
			turn()
		}
		return fs
	}
	buf := finalBuffers.Get().(*[]byte)
	enc := (*buf)[:0]
	plain := true
	var prefixes finalPrefixes
	for i := range fs {
		var p bool
		enc, p = prefixes.appendFinal(enc, &fs[i])
		plain = plain && p
	}
	next = fs[:0]
	if turn != nil {
		turn()
	}
	r.writeMu.Lock()
	r.flushLocked()
	if r.write(enc) && r.tap != nil {
		it := tapItem{finals: fs, plainFinals: plain}
		if handedOver {
			next = r.tap.finalBuffer(cap(fs))
		} else {
			it.finals = r.tap.finalsOf(fs)
		}
		r.tap.add(it, len(fs))
	}
	r.writeMu.Unlock()
	*buf = enc
	finalBuffers.Put(buf)
	return next
}

// RecordTableRead writes a table_read line: the caller read the final
// table and recorded lines of its lines, 0 when it found the table empty.
// Call it once a table, after reading the table (its lines may come before
// or after it, among the final lines); without it a table with no lines
// reads as not read at all. An unknown table is an error, and nothing is
// written.
func (r *Recorder) RecordTableRead(table string, lines int) error {
	if _, err := parseTable([]byte(table)); err != nil || lines < 0 {
		return fmt.Errorf("history: table_read of table %q with %d lines: not a final table and a count", table, lines)
	}
	t := TableRead{Table: table, Lines: uint64(lines)}
	line := appendTableRead(nil, &t)
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.flushLocked() // after every line recorded before it
	if r.write(line) && r.tap != nil {
		r.tap.add(tapItem{tableRead: &t}, 1)
	}
	return nil
}

// finalBuffers recycles RecordFinals' encoding buffers: a batch of a
// thousand lines is over 100 KB, grown by doubling when new.
var finalBuffers = sync.Pool{New: func() any { return new([]byte) }}

// unlockAndMaybeFlush marks the line just appended, releases the shard and,
// if the shard is full, wakes the flusher, or flushes here if the flusher
// is far behind. A writer waits for a flush under way only once its shard
// holds recordShardHardLimit: before, it carries on, its lines left to the
// next flush. (Waiting at recordShardLimit, for a flush whose write the
// kernel had held up, left the cores idle: a seventh of a run's writer
// time blocked in flush.)
func (r *Recorder) unlockAndMaybeFlush(sh *recordShard, t int64) {
	sh.lines = append(sh.lines, lineMark{time: t, end: len(sh.buf)})
	n := len(sh.buf)
	sh.mu.Unlock()
	if n < recordShardSize {
		return
	}
	if n >= recordShardLimit {
		if r.writeMu.TryLock() {
			r.flushLocked()
			r.writeMu.Unlock()
			return
		}
		if n >= recordShardHardLimit {
			r.flush()
			return
		}
	}
	select {
	case r.kick <- struct{}{}:
		r.flushWanted.Store(true)
	default: // already woken
	}
}

// YieldToFlusher lets the background flusher run if a shard has filled
// and it has not started yet. When every P is busy with writers that never
// block, a woken flusher waits for a preemption (up to 10ms) while the
// shards reach their limit and the writers flush themselves, a file write
// inside some operation's latency. Call it between operations, where the
// wait is no operation's.
//
// One Gosched does not always run the flusher: the scheduler sometimes
// takes the yielding goroutine back from the global queue first (every
// 61st pick), or runs a collector's worker; it failed 10 to 17 times in
// 3000 of TestYieldToFlusherLetsTheWokenFlusherWrite. So it yields until
// the flusher has taken its kick, a few times at most.
func (r *Recorder) YieldToFlusher() {
	for range maxFlusherYields {
		if !r.flushWanted.Load() {
			return
		}
		runtime.Gosched()
	}
}

// maxFlusherYields bounds YieldToFlusher's yields: past them the flusher
// is busy elsewhere, and the writer goes on.
const maxFlusherYields = 4

// flush writes every line recorded so far, merged into time order.
func (r *Recorder) flush() {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.flushLocked()
}

// flushLocked is flush with writeMu held.
func (r *Recorder) flushLocked() {
	var taken [recordShards]shardLines
	for i := range r.shards {
		r.shards[i].mu.Lock()
	}
	for i := range r.shards {
		sh := &r.shards[i]
		taken[i] = shardLines{sh.buf, sh.lines, sh.taps}
		sh.buf, sh.lines, sh.taps = sh.spareBuf, sh.spareLines, sh.spareTaps
		sh.spareBuf, sh.spareLines, sh.spareTaps = nil, nil, nil
		r.floor = max(r.floor, sh.last)
	}
	for i := range r.shards {
		r.shards[i].mu.Unlock()
	}
	// The tap takes the shards' lines as they are, with the order the
	// merge puts them in (a plan): copying them, 104 bytes a line, into
	// one buffer in that order was a tenth of a run's flush and tap CPU.
	var plan []tapSegment
	if r.tap != nil {
		plan = r.tap.planBuffer()
	}
	var out []byte
	if only := onlyShardWithLines(&taken); only >= 0 {
		// Mostly the lines of one writer: with more writers than cores,
		// each runs a while. They need no merging, and are written from
		// the shard's own buffer.
		out = taken[only].buf
		if r.tap != nil {
			plan = append(plan, tapSegment{shard: int32(only), n: int32(len(taken[only].taps))})
		}
	} else {
		out, plan = mergeByTime(r.out[:0], plan, &taken, r.tap != nil)
		r.out = out[:0]
	}
	handed := false
	if r.write(out) && len(plan) > 0 {
		it := tapItem{plan: plan}
		for i := range taken {
			if len(taken[i].taps) > 0 {
				it.shardLines[i] = taken[i].taps
				it.planned += len(taken[i].taps)
			}
		}
		r.tap.add(it, it.planned)
		handed = true
	}

	// Hand the emptied buffers back as the next spares; writeMu keeps
	// them ours until then. Lines the tap took come back once it has
	// read them: the shard gets one it is done with.
	for i := range r.shards {
		sh := &r.shards[i]
		spareTaps := taken[i].taps[:0]
		if handed && len(taken[i].taps) > 0 {
			spareTaps = r.tap.spareLines()
		}
		if len(taken[i].taps) > 0 {
			spareTaps = roomForTaps(spareTaps, len(taken[i].taps))
		}
		sh.mu.Lock()
		sh.spareBuf, sh.spareLines = taken[i].buf[:0], taken[i].lines[:0]
		sh.spareTaps = spareTaps
		sh.mu.Unlock()
	}
}

// tapLinesAhead is how many lines a shard's tap buffer holds before it
// grows: a shard flushes at recordShardSize, and a persist's lines are
// 110-200 bytes.
const tapLinesAhead = recordShardSize / 100

// roomForTaps is spare, or a new buffer where spare is nil or smaller
// than the last flush's lines (taken) or tapLinesAhead: a shard's tap
// lines are made room for once, not grown as they come. Grown by append,
// from nothing or from a spare a shard with fewer lines had used, they
// were a thousand growths in a run of 1M persists, each copying the lines
// into fresh memory (growslice, 4% of the writers' profile; the run's CPU
// a persist did not fall past the noise, the stores into the larger
// buffers costing what the copies had: kept as it allocates less).
func roomForTaps(spare []tapLine, taken int) []tapLine {
	want := max(taken, tapLinesAhead)
	if cap(spare) >= want {
		return spare
	}
	return make([]tapLine, 0, want+want/4)
}

// growTaps is taps with room for more: at first for a shard's worth of
// lines, then twice as many (a shard past recordShardSize, the flusher
// late). Shards no writer uses never make one.
func growTaps(taps []tapLine) []tapLine {
	grown := make([]tapLine, len(taps), max(2*cap(taps), tapLinesAhead+tapLinesAhead/4))
	copy(grown, taps)
	return grown
}

// errAfterEnd is the error for lines recorded after End.
var errAfterEnd = errors.New("history: lines recorded after the end line were not written")

// write writes lines to the file unless an earlier write failed, or the
// end line is written (then they are dropped and that is the error), and
// reports whether they were written. writeMu must be held.
func (r *Recorder) write(lines []byte) bool {
	switch {
	case len(lines) == 0 || r.err != nil:
	case r.ended:
		r.err = errAfterEnd
	default:
		_, r.err = r.w.Write(lines)
		return r.err == nil
	}
	return false
}

// shardLines is what a flush took from one shard.
type shardLines struct {
	buf   []byte
	lines []lineMark
	taps  []tapLine // with a tap
}

// onlyShardWithLines is the one shard a flush took lines from, or -1 if
// it took them from several or none.
func onlyShardWithLines(taken *[recordShards]shardLines) int {
	only := -1
	for i := range taken {
		if len(taken[i].lines) > 0 {
			if only >= 0 {
				return -1
			}
			only = i
		}
	}
	return only
}

// mergeByTime appends the lines of every shard to out, earliest first (each
// shard's lines are already in time order; of lines with the same time,
// the lower shard's first), and, when tapped, the order it took them in to
// plan; the last shard with lines left goes whole. A shard's lines that
// come before every other shard's next one go as one run: a writer
// records a few hundred lines between two of another's, and merging them
// one at a time was a sixth of a flush's CPU.
func mergeByTime(out []byte, plan []tapSegment, taken *[recordShards]shardLines, tapped bool) ([]byte, []tapSegment) {
	var next, start [recordShards]int
	active := make([]int, 0, recordShards)
	for i := range taken {
		if len(taken[i].lines) > 0 {
			active = append(active, i)
		}
	}
	for len(active) > 1 {
		// The earliest next line, and the earliest of the other shards'.
		best, second := 0, 1
		if at(taken, &next, active[1]) < at(taken, &next, active[0]) {
			best, second = 1, 0
		}
		for k := 2; k < len(active); k++ {
			switch t := at(taken, &next, active[k]); {
			case t < at(taken, &next, active[best]):
				best, second = k, best
			case t < at(taken, &next, active[second]):
				second = k
			}
		}
		i, limit := active[best], at(taken, &next, active[second])
		lines := taken[i].lines
		n := next[i] + 1
		// A tie goes to the shard listed first, as one line at a time.
		for n < len(lines) && (lines[n].time < limit || lines[n].time == limit && best < second) {
			n++
		}
		end := lines[n-1].end
		out = append(out, taken[i].buf[start[i]:end]...)
		if tapped {
			plan = append(plan, tapSegment{shard: int32(i), n: int32(n - next[i])})
		}
		start[i], next[i] = end, n
		if next[i] == len(lines) {
			active = append(active[:best], active[best+1:]...)
		}
	}
	if len(active) == 1 {
		i := active[0]
		out = append(out, taken[i].buf[start[i]:]...)
		if tapped {
			plan = append(plan, tapSegment{shard: int32(i), n: int32(len(taken[i].lines) - next[i])})
		}
	}
	return out, plan
}

// at is the time of shard i's next line.
func at(taken *[recordShards]shardLines, next *[recordShards]int, i int) int64 {
	return taken[i].lines[next[i]].time
}

// Flush writes everything recorded so far and returns the first write error.
func (r *Recorder) Flush() error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.flushLocked()
	r.checkpointLocked()
	return r.err
}

// checkpointLocked has a writer that buffers (a File) put what it took
// in the file, where a killed run no longer loses it. writeMu must be
// held.
func (r *Recorder) checkpointLocked() {
	if cp, ok := r.w.(checkpointer); ok && r.err == nil {
		r.err = cp.Checkpoint()
	}
}

// Close stops the background flusher and flushes. It returns the first write
// error the recorder met. It does not close the underlying writer; lines
// recorded after Close are written only by a later Flush or Close.
//
// Close does not write the end line: a history closed without End reads as
// cut short, which is what a run that stopped on an error left.
func (r *Recorder) Close() error {
	r.stopFlusher()
	return r.Flush()
}

// End completes the history: it stops the background flusher, writes
// every line recorded so far, then the end line ({"type":"end"}) that the
// header promised, and returns the first write error. Call it once the run
// and its final state are wholly recorded, and only then. Lines recorded
// after End are not written: Flush, Close and End then return an error.
// Like Close, it does not close the underlying writer.
func (r *Recorder) End() error {
	r.stopFlusher()
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.flushLocked()
	if !r.ended && r.err == nil {
		_, r.err = io.WriteString(r.w, endLine)
		r.checkpointLocked()
		if r.err == nil && r.tap != nil {
			r.tap.add(tapItem{end: true}, 0)
		}
	}
	r.ended = true
	return r.err
}

// shardFull reports whether some shard holds recordShardSize or more.
func (r *Recorder) shardFull() bool {
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		n := len(sh.buf)
		sh.mu.Unlock()
		if n >= recordShardSize {
			return true
		}
	}
	return false
}

func (r *Recorder) stopFlusher() {
	r.closeOnce.Do(func() {
		close(r.stop)
		r.flusherWG.Wait()
	})
}

func (r *Recorder) flushInBackground(every time.Duration) {
	defer r.flusherWG.Done()
	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		timed := false
		select {
		case <-tick:
			timed = true
		case <-r.kick:
			r.flushWanted.Store(false)
			if !r.shardFull() {
				continue
			}
		case <-r.stop:
			return
		}
		r.writeMu.Lock()
		r.flushLocked() // the error stays in r.err for Close to report
		if timed {
			r.checkpointLocked()
		}
		r.writeMu.Unlock()
	}
}
