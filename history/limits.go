package history

import (
	"bufio"
	"fmt"
	"io"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// MaxLineBytes is the longest line a history may have, its newline aside.
// It is far beyond any recorder's (a sync answer of a thousand long message
// ids is some 100 KB) and keeps a file with no newline, or a line of
// garbage, from being held whole: a 5 GB file of NUL bytes took 11.7 GB.
const MaxLineBytes = 64 << 20

// MaxStringBytes is the longest value a string field of an event or final
// line may have (chat, key, sender, message_id, payload_hash, error, each
// of message_ids), and the longest unknown field name: ids that long are no
// real service's, and a report quotes them (a 200 MB chat id made a 600 MB
// report).
const MaxStringBytes = jsonscan.MaxStringBytes

// TooLong says why a string named what cannot be recorded, "" when it
// can: it is longer than MaxStringBytes. A run that recorded one left a
// file its own check refused (exit 2), so what a service answers is held
// to it before it is recorded (a send, a sync page, a push).
func TooLong(what, v string) string {
	if len(v) <= MaxStringBytes {
		return ""
	}
	return fmt.Sprintf("a %s of %d bytes, more than the %d a history's string may hold", what, len(v), MaxStringBytes)
}

// earlyMargin is how far before the end of a line's first part a syntax
// error must stand to be the whole line's first error: a value cut by the
// part's end fails at its own start or at the end, and the longest token
// that can straddle it (an escaped UTF-16 surrogate pair) is 12 bytes.
const earlyMargin = 16

// earlySyntaxError is the syntax error of a line whose first part is
// prefix, when it stands far enough before the part's end that no rest of
// the line could have avoided it; nil otherwise.
func earlySyntaxError(prefix []byte) error {
	err := jsonscan.CheckSyntax(prefix)
	if le, ok := err.(*jsonscan.Error); ok && le.Col > 0 && le.Col <= len(prefix)-earlyMargin {
		return err
	}
	return nil
}

// longLine reads the rest of a line whose first part, first, filled the
// buffer, and refuses one longer than MaxLineBytes as soon as it knows. A
// header whose first part already has a syntax error is refused at once:
// the part shows the line's first error, and a header has no cut-short
// leniency. Other lines are split alike whatever the reader's chunks.
func (p *lineParser) longLine(first []byte) ([]byte, error) {
	lineNo := p.lineNo + 1
	if p.inHeader {
		if err := earlySyntaxError(first); err != nil {
			return nil, &ParseError{File: p.file, Line: lineNo, Msg: notAHistory + err.Error() + "; the first line must be the header " + headerExample}
		}
	}
	p.spill = append(p.spill[:0], first...)
	part, err := first, bufio.ErrBufferFull
	for err == bufio.ErrBufferFull {
		part, err = p.in.ReadSlice('\n')
		if len(p.spill)+len(part) > MaxLineBytes+1 { // +1: its newline
			return nil, p.tooLong(lineNo)
		}
		p.spill = append(p.spill, part...)
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	line := p.ended(p.spill)
	if len(line) > MaxLineBytes {
		return nil, p.tooLong(lineNo)
	}
	return line, nil
}

// tooLong is the error for line lineNo, longer than MaxLineBytes, with the
// syntax error its start has, if any.
func (p *lineParser) tooLong(lineNo int) error {
	msg := fmt.Sprintf("the line is longer than %d MiB, the most a history line may have", MaxLineBytes>>20)
	if err := earlySyntaxError(p.spill); err != nil {
		msg = err.Error() + " (and " + msg + ")"
	}
	if p.inHeader {
		msg = notAHistory + msg
	}
	return &ParseError{File: p.file, Line: lineNo, Msg: msg}
}
