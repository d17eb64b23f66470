package history

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ParseError is a history that does not follow the format: the file, the
// 1-based line, and what is wrong there.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
}

// lineError is a problem within one line. col > 0 marks a JSON syntax error
// at that byte column; col == 0 means the line is well-formed JSON whose
// content the format does not allow.
type lineError struct {
	col int
	msg string
	// notHistory: a first line that is no chatseq header at all (not
	// JSON, or JSON without chatseq's "format"): the file is something
	// else, and the message says so first.
	notHistory bool
}

// notHistory marks err, a lineError, as the sign of a file that is not a
// history.
func notHistory(err error) error {
	if le, ok := err.(*lineError); ok {
		le.notHistory = true
	}
	return err
}

// notAHistory starts the message of an error in a first line that shows
// the file is not a chatseq history.
const notAHistory = "not a chatseq history: "

func (e *lineError) Error() string {
	if e.col > 0 {
		return fmt.Sprintf("invalid JSON at column %d: %s", e.col, e.msg)
	}
	return e.msg
}

func contentErr(format string, args ...any) error {
	return &lineError{msg: fmt.Sprintf(format, args...)}
}

// fieldLabel names a field, or an element of an array field, in messages.
func fieldLabel(name string, index int) string {
	if index < 0 {
		return strconv.Quote(name)
	}
	return strconv.Quote(name) + "[" + strconv.Itoa(index) + "]"
}

// printable shows JSON text from a line in a message: short, and safe to print
// even if the line was not valid UTF-8.
func printable(b []byte) string {
	const max = 40
	cut := len(b) > max
	if cut {
		b = b[:max]
	}
	s := string(b)
	if !utf8.ValidString(s) {
		s = strconv.Quote(s)
	}
	if cut {
		s += "..."
	}
	return s
}
