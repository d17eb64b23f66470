package history

import (
	"fmt"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
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

// notHistoryError marks an error in a first line that is no chatseq header
// at all (not JSON, or JSON without chatseq's "format"): the file is
// something else, and the message says so first.
type notHistoryError struct{ error }

func (e *notHistoryError) Unwrap() error { return e.error }

// notHistory marks err as the sign of a file that is not a history.
func notHistory(err error) error { return &notHistoryError{err} }

// notAHistory starts the message of an error in a first line that shows
// the file is not a chatseq history.
const notAHistory = "not a chatseq history: "

// contentErr is a line that is well-formed JSON whose content the format
// does not allow.
func contentErr(format string, args ...any) error {
	return jsonscan.Errorf(format, args...)
}
