package history

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// readBufferSize is the reader's buffer; longer lines are still read whole.
const readBufferSize = 256 << 10

// batchSize is how many lines the parser hands to the builder at a time:
// enough to make the hand-off cost nothing per line.
const batchSize = 512

// parsedLine is one event or final line, decoded and checked on its own, with
// its strings made: decodeLine fills it in (its strings as lineViews),
// lineShape checks it, and lineDecoder.parse makes the strings. Fields the
// line's kind does not carry are left empty.
type parsedLine struct {
	lineNo      int
	shape       *shape
	present     fieldSet
	unknown     []string // names of unknown fields
	kind        Kind
	f           string
	table       string
	process     int
	time, start int64
	chat, key   string
	sender      string
	payloadHash string
	messageID   string
	errorCode   string
	seq, after  uint64
	limit       int
	dedup       bool
	value       uint64
	missing     bool
	partition   int32
	offset      int64
	seqs        []uint64
	messageIDs  []string
	idHashes    []uint64
	reader      bool
	lines       uint64 // table_read
	// receivers' lines (receiver_read.go)
	device, user string
	refused      bool
	catchUp      bool
	lastAcked    uint64
	// a push's or a sync ok's payload_hashes and senders, a sync ok's keys
	payloadHashes, senders, keys []string
}

// batch carries lines from the reader, through a parse worker, to the
// builder: the reader copies up to batchSize lines into text, a worker
// decodes them into lines, and the builder takes batches in the reader's
// order. A batch may end the input early with an error, or with a warning
// about a cut-short last line.
type batch struct {
	text     []byte
	ends     []int // where each line ends in text
	nums     []int // each line's number in the file
	cutShort bool  // its last line is the input's, with no newline
	readErr  error // reading failed after its lines

	lines   []parsedLine
	err     error
	warning *Warning
	parsed  chan struct{} // a token once a worker has decoded it
}

// batchBytes ends a batch early: sync lines run to kilobytes.
const batchBytes = 1 << 20

// lineParser is Read's first stage: it splits the input into lines and
// hands them, in batches, to lineDecoders that decode each on its own.
type lineParser struct {
	file   string
	in     sliceReader
	lineNo int
	// unterminated is set when the line nextLine last returned had no
	// newline: the input ended inside it.
	unterminated bool
	spill        []byte // a line longer than the buffer
	inHeader     bool   // the line being read is the header's (limits.go)
	sc           jsonscan.Scanner
	hashID       func([]byte) uint64 // for every decoder: see decodeLine
}

// sliceReader hands out the input a line at a time, as bufio.Reader's
// ReadSlice does: the slice is valid until the next call, and a line that
// does not fit comes in parts, each but the last with bufio.ErrBufferFull.
type sliceReader interface {
	ReadSlice(delim byte) ([]byte, error)
}

// newLineParser reads in through a buffer of bufferSize, unless in hands
// out slices of its own buffers (directReader): copying those into another
// was a twentieth of a large read's CPU time.
func newLineParser(in io.Reader, name string, bufferSize int) *lineParser {
	if sr, ok := in.(sliceReader); ok {
		return &lineParser{file: name, in: sr}
	}
	return &lineParser{file: name, in: bufio.NewReaderSize(in, bufferSize)}
}

// lineDecoder decodes lines into parsedLines: one per parse worker, each
// with strings of its own.
type lineDecoder struct {
	file   string
	sc     jsonscan.Scanner
	views  lineViews
	hashID func([]byte) uint64 // see decodeLine
	arena  stringArena
	shared interner
	// lastKey holds each process's last persist key, so that a completion
	// repeating it shares the invoke's string; only keys in the arena's
	// current block (lastKeyBlock), as each would keep its whole block
	// alive: runs give a process that crashed a new id, and the old ids'
	// keys held every block a feed ever decoded.
	lastKey      []string
	lastKeyBlock int
}

func newLineDecoder(file string, hashID func([]byte) uint64) *lineDecoder {
	d := &lineDecoder{file: file, hashID: hashID}
	d.shared = interner{shared: map[string]string{}}
	return d
}

// header reads the first non-blank line as the header.
func (p *lineParser) header() (Header, error) {
	p.inHeader = true
	defer func() { p.inHeader = false }()
	for {
		line, err := p.nextLine()
		if err == io.EOF {
			return Header{}, &ParseError{File: p.file, Line: max(p.lineNo, 1), Msg: "empty history: the first line must be the header " + headerExample}
		}
		if err != nil {
			return Header{}, p.readError(err)
		}
		if isBlank(line) {
			continue
		}
		h, err := decodeHeader(&p.sc, line)
		if err != nil {
			perr := errorAt(p.file, p.lineNo, line, err)
			var nh *notHistoryError
			if jsonscan.CheckSyntax(line) != nil || errors.As(err, &nh) {
				perr.Msg = notAHistory + perr.Msg
				if jsonscan.CheckSyntax(line) != nil {
					perr.Msg += "; the first line must be the header " + headerExample
				}
			}
			return Header{}, perr
		}
		return h, nil
	}
}

// run splits the remaining lines into batches, each sent on ordered (for
// the builder, in file order) and on work (for a decoder), reusing batches
// from free, until the input ends or quit is closed. It closes both.
func (p *lineParser) run(work, ordered chan<- *batch, free <-chan *batch, quit <-chan struct{}) {
	defer close(work)
	defer close(ordered)
	var made int
	send := func(bt *batch) bool {
		select {
		case ordered <- bt:
		case <-quit:
			return false
		}
		select {
		case work <- bt:
			return true
		case <-quit:
			return false
		}
	}
	bt := p.newBatch(free, quit, &made)
	if bt == nil {
		return
	}
	for {
		line, err := p.nextLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			bt.readErr = p.readError(err)
			break
		}
		if isBlank(line) {
			continue
		}
		bt.text = append(bt.text, line...)
		bt.ends = append(bt.ends, len(bt.text))
		bt.nums = append(bt.nums, p.lineNo)
		bt.cutShort = p.unterminated
		if len(bt.nums) == batchSize || len(bt.text) >= batchBytes {
			if !send(bt) {
				return
			}
			if bt = p.newBatch(free, quit, &made); bt == nil {
				return
			}
		}
	}
	send(bt)
}

// batches is how many batches a read makes: the reader then waits for the
// builder to hand one back. Making a new one whenever none was free at
// that instant made hundreds over a large file, each new memory to fault
// in and collect.
const batches = 8

// newBatch is a free batch, or a new one while fewer than batches exist, or
// nil if quit closes first.
func (p *lineParser) newBatch(free <-chan *batch, quit <-chan struct{}, made *int) *batch {
	var bt *batch
	select {
	case bt = <-free:
	default:
		if *made < batches {
			*made++
			return &batch{lines: make([]parsedLine, 0, batchSize), parsed: make(chan struct{}, 1)}
		}
		select {
		case bt = <-free:
		case <-quit:
			return nil
		}
	}
	bt.text, bt.ends, bt.nums = bt.text[:0], bt.ends[:0], bt.nums[:0]
	bt.cutShort, bt.readErr, bt.lines, bt.err, bt.warning = false, nil, bt.lines[:0], nil, nil
	return bt
}

// decode parses the batches sent on work until it is closed, each into its
// lines, and signals each when done.
func (d *lineDecoder) decode(work <-chan *batch) {
	for bt := range work {
		start := 0
		for i, end := range bt.ends {
			line := bt.text[start:end]
			start = end
			// parse overwrites the whole slot, so a reused one needs no
			// zeroing.
			bt.lines = bt.lines[:i+1]
			if err := d.parse(line, bt.nums[i], &bt.lines[i]); err != nil {
				bt.lines = bt.lines[:i]
				d.fail(line, bt.nums[i], bt.cutShort && i == len(bt.ends)-1, err, bt)
				break
			}
		}
		bt.parsed <- struct{}{}
	}
}

// parse decodes line into pl, checks that it is a known kind of line with
// the fields that kind requires, and makes the strings it carries.
func (p *lineDecoder) parse(line []byte, lineNo int, pl *parsedLine) error {
	v := &p.views
	if err := decodeLine(&p.sc, line, pl, v, p.arena.string, p.hashID); err != nil {
		return err
	}
	sh, err := lineShape(pl, v)
	if err != nil {
		return err
	}
	pl.lineNo, pl.shape = lineNo, sh
	for _, name := range v.unknown {
		pl.unknown = append(pl.unknown, string(name))
	}
	// Only fields the kind carries become strings; the builder ignores the
	// others.
	carried := pl.present & sh.allowed
	pl.chat = p.shared.string(v.chat)
	if carried.has(fieldSender) {
		pl.sender = p.shared.string(v.sender)
	}
	if carried.has(fieldError) {
		pl.errorCode = p.shared.string(v.errorCode)
	}
	if carried.has(fieldPayloadHash) {
		pl.payloadHash = p.arena.string(v.payloadHash)
	}
	if carried.has(fieldMessageID) {
		pl.messageID = p.arena.string(v.messageID)
	}
	if carried.has(fieldKey) {
		pl.key = p.key(pl.kind, pl.process, v.key)
	}
	if carried.has(fieldDevice) {
		pl.device = p.shared.string(v.device)
	}
	if carried.has(fieldUser) {
		pl.user = p.shared.string(v.user)
	}
	return nil
}

// key makes a persist line's key string, sharing it between an invoke and
// the completion that repeats it.
func (p *lineDecoder) key(kind Kind, process int, key []byte) string {
	if kind == KindFinal || process >= denseLimit {
		return p.arena.string(key)
	}
	if process < len(p.lastKey) && p.lastKey[process] == string(key) {
		k := p.lastKey[process]
		if kind != KindInvoke {
			p.lastKey[process] = "" // completed: the next invoke sets it
		}
		return k
	}
	k := p.arena.string(key)
	if p.arena.blocks != p.lastKeyBlock {
		clear(p.lastKey)
		p.lastKeyBlock = p.arena.blocks
	}
	if kind == KindInvoke {
		if process >= len(p.lastKey) {
			p.lastKey = append(p.lastKey, make([]string, process+1-len(p.lastKey))...)
		}
		p.lastKey[process] = k
	}
	return k
}

// nextLine returns the next line without its newline, valid until the next
// call, or io.EOF.
func (p *lineParser) nextLine() ([]byte, error) {
	line, err := p.in.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return p.longLine(line)
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	return p.ended(line), nil
}

// ended counts a line read whole and takes its newline off.
func (p *lineParser) ended(line []byte) []byte {
	p.lineNo++
	p.unterminated = true
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
		p.unterminated = false
	}
	return line
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func (p *lineParser) readError(err error) error {
	if perr, ok := err.(*ParseError); ok {
		return perr // a line refused while it was read (limits.go)
	}
	if p.lineNo == 0 {
		return fmt.Errorf("reading %s: %w", p.file, err)
	}
	return fmt.Errorf("reading %s after line %d: %w", p.file, p.lineNo, err)
}

// errorAt turns a problem with a line into a *ParseError. A JSON syntax
// error is reported in preference to a content error found earlier in the
// same line, since it is the more basic fault.
func errorAt(file string, lineNo int, line []byte, err error) *ParseError {
	if syntax := jsonscan.CheckSyntax(line); syntax != nil {
		err = syntax
	}
	return &ParseError{File: file, Line: lineNo, Msg: err.Error()}
}

// fail ends bt after a line that could not be parsed. If the line is not
// valid JSON and the input ended inside it (no terminating newline), it is
// what a recorder killed mid-write leaves: skipped with a warning. A complete
// line, one that ends with a newline, is an error wherever it stands.
func (d *lineDecoder) fail(line []byte, lineNo int, unterminated bool, err error, bt *batch) {
	syntax := jsonscan.CheckSyntax(line)
	switch {
	case syntax == nil:
		bt.err = &ParseError{File: d.file, Line: lineNo, Msg: err.Error()}
	case unterminated:
		bt.warning = &Warning{Line: lineNo, Message: fmt.Sprintf("last line skipped as cut short (it has no terminating newline): %v", syntax)}
	default:
		bt.err = &ParseError{File: d.file, Line: lineNo, Msg: syntax.Error()}
	}
}
