package history

import (
	"fmt"
	"math"
	"strconv"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// HeaderExtensions are the header fields beyond the format's own that
// chatseq reads (FORMAT.md, "Header"), one row each. Each stays in
// Header.Extra, but in a canonical form the reader checks, so that no
// value the checker would misread ("yes", -5, 1.5, "10") passes; the
// recorder checks it too, and shards of one run must agree on some.
var HeaderExtensions = []HeaderExtension{
	{
		Name: InitialCounterField, Gloss: "every chat's counter before the run", Example: "10",
		// -5, "abc", 1.5, 1e3 or [1] must not be read as 0.
		read: func(s *jsonscan.Scanner) (string, error) {
			v, err := s.ReadUint(InitialCounterField, -1, math.MaxUint64)
			return strconv.FormatUint(v, 10), err
		},
		check: func(raw string) error {
			_, err := parseInitialCounter(raw)
			return err
		},
		// It decides which sequences predate the run: one value for all.
		ShardsAgree: true,
	},
	{
		Name: SoleWriterField, Gloss: "the history's clients are its chats' only writers (besides messages from before the run)", Example: "true",
		// "yes", 1 or "true" must not pass for a claim the checker fails
		// histories on.
		read: func(s *jsonscan.Scanner) (string, error) {
			v, err := s.ReadBool(SoleWriterField)
			return strconv.FormatBool(v), err
		},
		check: func(raw string) error {
			if raw != "true" && raw != "false" {
				return fmt.Errorf("%q must be true or false, got %s", SoleWriterField, raw)
			}
			return nil
		},
		// It decides whether a final line no persist sent is a phantom:
		// dropped where the files disagreed, one file's phantom passed.
		ShardsAgree: true,
	},
}

// HeaderExtension is one header field chatseq reads beyond the format's.
type HeaderExtension struct {
	Name    string // in the header, and the key of Header.Extra
	Gloss   string // what it states
	Example string // a value, as Extra holds it
	// read reads its value at the scanner into the form Extra holds;
	// check checks a value of Extra the recorder is to write.
	read  func(*jsonscan.Scanner) (string, error)
	check func(raw string) error
	// ShardsAgree: the files of one run (ReadFiles) must state it alike.
	ShardsAgree bool
}

// InitialCounterField is the header extension that states every chat's
// counter before the run. It stays in Header.Extra as its decimal digits.
const InitialCounterField = "initial_counter"

// SoleWriterField is the header extension that says the history's clients
// are the only writers of its chats (besides messages from before the run,
// at or below initial_counter): a final message no persist of the history
// sent is then a phantom write, not another writer's (no_phantom_messages).
// It stays in Header.Extra as "true" or "false".
const SoleWriterField = "sole_writer"

func lookupExtension(name string) *HeaderExtension {
	for i := range HeaderExtensions {
		if HeaderExtensions[i].Name == name {
			return &HeaderExtensions[i]
		}
	}
	return nil
}

// SoleWriter reports whether h says its clients are its chats' only writers.
func (h Header) SoleWriter() bool { return h.Extra[SoleWriterField] == "true" }

// InitialCounter is every chat's counter before the run, as h states it
// (0 when it does not, or states no number).
func (h Header) InitialCounter() uint64 {
	v, _ := strconv.ParseUint(h.Extra[InitialCounterField], 10, 64)
	return v
}

// initialCounterWant describes the values InitialCounterField accepts.
const initialCounterWant = "a non-negative integer (every chat's counter before the run)"

// parseInitialCounter parses an initial_counter value as the header holds it
// in Extra: the decimal digits of a non-negative integer that fits 64 bits.
func parseInitialCounter(raw string) (uint64, error) {
	if raw == "" || raw[0] < '0' || raw[0] > '9' || len(raw) > 1 && raw[0] == '0' {
		return 0, fmt.Errorf("%q must be %s, got %s", InitialCounterField, initialCounterWant, jsonscan.Printable([]byte(raw)))
	}
	v, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q must be %s that fits 64 bits, got %s", InitialCounterField, initialCounterWant, jsonscan.Printable([]byte(raw)))
	}
	return v, nil
}
