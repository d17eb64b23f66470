// Package jsonscan reads JSON values from one line, hand-written rather
// than encoding/json because reflection costs several times more per line
// and the history reader reads millions of lines. It is stricter than
// encoding/json (strings must be valid UTF-8, \u escapes Unicode scalar
// values, values nested at most MaxDepth deep) and otherwise agrees with
// it (FuzzAgreesWithEncodingJSON). Its messages name the field a value
// was read for.
package jsonscan

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/chatseq/chatseq/internal/jsonstr"
)

// MaxDepth bounds the nesting of values the scanner skips (unknown
// fields, header extras), so that a hostile line cannot exhaust the stack.
const MaxDepth = 1000

// MaxStringBytes bounds a string value ReadStr takes (once unescaped), so
// that a message quoting it stays small.
const MaxStringBytes = 64 << 10

// Scanner reads JSON values from one line. Strings come back as views
// into the line, or into scratch when they had escapes; views are valid
// until Reset.
type Scanner struct {
	b       []byte
	i       int
	scratch []byte
	// Arrays are read into these and then copied, at their length, into
	// shared blocks: appending to a new slice per line grew each one
	// several times over.
	u64       []uint64
	strs      []string
	carve     Carver[uint64]
	carveStrs Carver[string]
}

// Carver hands out exact-length copies from shared blocks. A block stays
// alive while any copy from it does; lines read together die together.
type Carver[T any] struct{ block []T }

const carveBlock = 8 << 10

func (c *Carver[T]) Take(v []T) []T {
	if len(v) == 0 {
		return nil
	}
	if len(v) > cap(c.block)-len(c.block) {
		if len(v) > carveBlock/4 {
			return append([]T(nil), v...)
		}
		c.block = make([]T, 0, carveBlock)
	}
	start := len(c.block)
	c.block = append(c.block, v...)
	return c.block[start:len(c.block):len(c.block)]
}

func (s *Scanner) Reset(line []byte) {
	s.b, s.i = line, 0
	s.scratch = s.scratch[:0]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Pos is the cursor: the byte of the line the next value starts at.
func (s *Scanner) Pos() int { return s.i }

// Rest is the line from the cursor on.
func (s *Scanner) Rest() []byte { return s.b[s.i:] }

// Skip moves the cursor n bytes on: past a byte Peek showed, or a token
// the caller recognized in Rest.
func (s *Scanner) Skip(n int) { s.i += n }

// AtEnd reports whether the cursor is past the line's last byte.
func (s *Scanner) AtEnd() bool { return s.i >= len(s.b) }

// skipWS moves past whitespace. The check up front keeps the common case
// (no whitespace, as the recorder writes) inlined.
func (s *Scanner) SkipWS() {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return
	}
	s.skipWSLoop()
}

func (s *Scanner) skipWSLoop() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// peek returns the byte at the cursor, or 0 at the end of the line (0 cannot
// start any JSON token, so callers need no separate end check).
func (s *Scanner) Peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *Scanner) syntaxErr(msg string) error { return &Error{Col: s.i + 1, Msg: msg} }

// unexpected reports what was found at the cursor where want was needed.
func (s *Scanner) Unexpected(want string) error {
	if s.i >= len(s.b) {
		return s.syntaxErr("unexpected end of line, expected " + want)
	}
	c := s.b[s.i]
	if c < utf8.RuneSelf && c >= 0x20 {
		return s.syntaxErr("unexpected '" + string(rune(c)) + "', expected " + want)
	}
	return s.syntaxErr(fmt.Sprintf("unexpected byte 0x%02x, expected %s", c, want))
}

func (s *Scanner) Expect(c byte, want string) error {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return nil
	}
	return s.Unexpected(want)
}

// token is the JSON text of the value starting at start, for messages.
func (s *Scanner) Token(start int) string {
	t := Scanner{b: s.b, i: start}
	end := len(s.b)
	if t.skipValue(0, false) == nil {
		end = t.i
	}
	return Printable(s.b[start:end])
}

// readString reads the string at the cursor, which must be '"'. The common
// case (plain ASCII, no escapes) is a single pass returning a view.
func (s *Scanner) ReadString() ([]byte, error) {
	b := s.b
	start := s.i + 1
	i := start + jsonstr.PlainPrefix(b[start:])
	if i < len(b) && b[i] == '"' {
		s.i = i + 1
		return b[start:i], nil
	}
	s.i = i
	return s.readStringSlow(start)
}

// readStringSlow continues readString at s.i for strings with escapes,
// control bytes or non-ASCII text. It copies into scratch only once an escape
// forces it to.
func (s *Scanner) readStringSlow(start int) ([]byte, error) {
	b := s.b
	escaped := false
	out := len(s.scratch) // where this string begins in scratch
	run := start          // start of the literal run not yet copied
	i := s.i
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			if !escaped {
				return b[start:i], nil
			}
			s.scratch = append(s.scratch, b[run:i]...)
			return s.scratch[out:], nil
		case c == '\\':
			if !escaped {
				escaped = true
			}
			s.scratch = append(s.scratch, b[run:i]...)
			s.i = i
			n, err := s.unescape()
			if err != nil {
				return nil, err
			}
			i += n
			run = i
		case c < 0x20:
			s.i = i
			return nil, s.syntaxErr(fmt.Sprintf("control character 0x%02x in string must be escaped", c))
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				s.i = i
				return nil, s.syntaxErr("invalid UTF-8 in string")
			}
			i += size
		}
	}
	s.i = len(b)
	return nil, s.syntaxErr("unterminated string")
}

// unescape decodes the escape at s.i (a backslash) onto scratch and returns
// how many input bytes it used.
func (s *Scanner) unescape() (int, error) {
	b := s.b[s.i:]
	if len(b) < 2 {
		return 0, s.syntaxErr("unterminated string")
	}
	var c byte
	switch b[1] {
	case '"', '\\', '/':
		c = b[1]
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return 0, s.syntaxErr(`\u must be followed by 4 hex digits`)
		}
		if !utf16.IsSurrogate(r) {
			s.scratch = utf8.AppendRune(s.scratch, r)
			return 6, nil
		}
		// A high surrogate must be followed by an escaped low one; lone
		// surrogates are not Unicode text and would not survive a rewrite.
		if r < 0xDC00 && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo, ok := hex4(b[8:]); ok {
				if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
					s.scratch = utf8.AppendRune(s.scratch, pair)
					return 12, nil
				}
			}
		}
		return 0, s.syntaxErr(`\u escape is an unpaired UTF-16 surrogate`)
	default:
		return 0, s.syntaxErr(`invalid escape "\` + Printable(b[1:2]) + `"`)
	}
	s.scratch = append(s.scratch, c)
	return 2, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// scanNumber moves past the JSON number at the cursor and reports whether it
// is written as an integer (no fraction, no exponent).
func (s *Scanner) scanNumber() (isInt bool, err error) {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		s.i = i
		return false, s.Unexpected("a digit")
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		if i >= len(b) || !isDigit(b[i]) {
			s.i = i
			return false, s.Unexpected("a digit after '.'")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			s.i = i
			return false, s.Unexpected("a digit in the exponent")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	s.i = i
	return isInt, nil
}

// plainUint is the fast path for numbers: it reads up to 18 digits with no
// sign, fraction or exponent (which cannot overflow), and leaves anything
// else to the careful path.
func (s *Scanner) plainUint() (uint64, bool) {
	b, i := s.b, s.i
	end := min(len(b), i+18)
	var v uint64
	j := i
	for ; j < end; j++ {
		d := b[j] - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint64(d)
	}
	switch {
	case j == i, b[i] == '0' && j > i+1:
		return 0, false
	case j < len(b) && (isDigit(b[j]) || b[j] == '.' || b[j] == 'e' || b[j] == 'E'):
		return 0, false
	}
	s.i = j
	return v, true
}

// integer reads an integer at the cursor as a sign and magnitude. name and
// index label the field in messages; want describes the accepted values.
func (s *Scanner) integer(name string, index int, want string) (neg bool, mag uint64, err error) {
	start := s.i
	c := s.Peek()
	if c != '-' && !isDigit(c) {
		if c == 0 {
			return false, 0, s.Unexpected("a value")
		}
		return false, 0, Errorf("%s must be %s, got %s", Label(name, index), want, s.Token(start))
	}
	isInt, err := s.scanNumber()
	if err != nil {
		return false, 0, err
	}
	tok := s.b[start:s.i]
	if !isInt {
		return false, 0, Errorf("%s must be %s, got %s", Label(name, index), want, Printable(tok))
	}
	digits := tok
	if digits[0] == '-' {
		neg = true
		digits = digits[1:]
	}
	for _, d := range digits {
		if mag > (math.MaxUint64-uint64(d-'0'))/10 { // mag*10+d would overflow
			return false, 0, Errorf("%s is out of range: %s", Label(name, index), Printable(tok))
		}
		mag = mag*10 + uint64(d-'0')
	}
	return neg && mag != 0, mag, nil
}

// readUint reads a non-negative integer no greater than max.
func (s *Scanner) ReadUint(name string, index int, max uint64) (uint64, error) {
	start := s.i
	if v, ok := s.plainUint(); ok && v <= max {
		return v, nil
	}
	s.i = start
	const want = "a non-negative integer"
	neg, v, err := s.integer(name, index, want)
	if err != nil {
		return 0, err
	}
	if neg {
		return 0, Errorf("%s must be %s, got %s", Label(name, index), want, Printable(s.b[start:s.i]))
	}
	if v > max {
		return 0, Errorf("%s is out of range: %s (at most %d)", Label(name, index), Printable(s.b[start:s.i]), max)
	}
	return v, nil
}

// readInt reads a signed 64-bit integer.
func (s *Scanner) ReadInt(name string) (int64, error) {
	if v, ok := s.plainUint(); ok {
		return int64(v), nil // fewer than 19 digits always fit
	}
	start := s.i
	neg, mag, err := s.integer(name, -1, "an integer")
	if err != nil {
		return 0, err
	}
	switch {
	case neg && mag <= 1<<63:
		return int64(-mag), nil
	case !neg && mag <= math.MaxInt64:
		return int64(mag), nil
	}
	return 0, Errorf("%s is out of range: %s", Label(name, -1), Printable(s.b[start:s.i]))
}

// readStr reads a string value, or explains what the field holds instead.
func (s *Scanner) ReadStr(name string, index int) ([]byte, error) {
	if c := s.Peek(); c != '"' {
		if c == 0 {
			return nil, s.Unexpected("a value")
		}
		return nil, Errorf("%s must be a string, got %s", Label(name, index), s.Token(s.i))
	}
	v, err := s.ReadString()
	if err == nil && len(v) > MaxStringBytes {
		return nil, Errorf("%s is %d bytes long, more than the %d a string may have: %s", Label(name, index), len(v), MaxStringBytes, QuoteBytes(v))
	}
	return v, err
}

func (s *Scanner) ReadBool(name string) (bool, error) {
	switch s.Peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 0:
		return false, s.Unexpected("a value")
	}
	return false, Errorf("%s must be true or false, got %s", Label(name, -1), s.Token(s.i))
}

func (s *Scanner) literal(word string) error {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return nil
	}
	return s.Unexpected("a value")
}

// openArray consumes '[' and reports whether the array is empty (then it has
// consumed ']' too).
func (s *Scanner) openArray(name, want string) (empty bool, err error) {
	if c := s.Peek(); c != '[' {
		if c == 0 {
			return false, s.Unexpected("a value")
		}
		return false, Errorf("%s must be %s, got %s", Label(name, -1), want, s.Token(s.i))
	}
	s.i++
	s.SkipWS()
	if s.Peek() == ']' {
		s.i++
		return true, nil
	}
	return false, nil
}

// nextElement moves past the ',' between elements, or the closing ']'.
func (s *Scanner) nextElement() (done bool, err error) {
	s.SkipWS()
	switch s.Peek() {
	case ',':
		s.i++
		s.SkipWS()
		return false, nil
	case ']':
		s.i++
		return true, nil
	}
	return false, s.Unexpected("',' or ']'")
}

func (s *Scanner) ReadUintArray(name string) ([]uint64, error) {
	if v, ok := s.plainUintArray(); ok {
		return v, nil
	}
	return readArray(s, name, "an array of non-negative integers", &s.u64, &s.carve, func(i int) (uint64, error) {
		return s.ReadUint(name, i, math.MaxUint64)
	})
}

// plainUintArray reads an array written plainly, `[d,d,...,d]` with no
// space and each number as plainUint takes it, as a sync's seqs are; on
// anything else it moves nothing, and readArray reads the array the
// general way (and names what is wrong). One loop per array rather than
// calls per element: a large history is mostly such arrays. Its digit
// loop is plainUint's, written out: calling plainUint for each number
// cost 1466-1512 ns a 50-number sync line against 1347-1372.
func (s *Scanner) plainUintArray() ([]uint64, bool) {
	b, i := s.b, s.i
	if i+1 >= len(b) || b[i] != '[' || b[i+1] == ']' {
		return nil, false
	}
	out := s.u64[:0]
	for i++; ; {
		var v uint64
		j, end := i, min(len(b), i+18) // fewer than 19 digits always fit
		for ; j < end; j++ {
			d := b[j] - '0'
			if d > 9 {
				break
			}
			v = v*10 + uint64(d)
		}
		if j == i || j == len(b) || b[i] == '0' && j > i+1 {
			return nil, false
		}
		out = append(out, v)
		switch b[j] {
		case ',':
			i = j + 1
		case ']':
			s.i, s.u64 = j+1, out
			return s.carve.Take(out), true
		default:
			return nil, false
		}
	}
}

// readHashArray reads an array of strings as their hashes.
func (s *Scanner) ReadHashArray(name string, hash func([]byte) uint64) ([]uint64, error) {
	if v, ok := s.plainHashArray(hash); ok {
		return v, nil
	}
	return readArray(s, name, "an array of strings", &s.u64, &s.carve, func(i int) (uint64, error) {
		v, err := s.ReadStr(name, i)
		if err != nil {
			return 0, err
		}
		return hash(v), nil
	})
}

// plainHashArray reads as their hashes an array of strings written
// plainly, `["s",...,"s"]` with no space and no escape in any (jsonstr.PlainPrefix),
// as a sync's message_ids are; on anything else it moves nothing, and
// readArray reads the array the general way.
func (s *Scanner) plainHashArray(hash func([]byte) uint64) ([]uint64, bool) {
	b, i := s.b, s.i
	if i+1 >= len(b) || b[i] != '[' || b[i+1] == ']' {
		return nil, false
	}
	out := s.u64[:0]
	for i++; ; {
		if b[i] != '"' {
			return nil, false
		}
		j := i + 1 + jsonstr.PlainPrefix(b[i+1:])
		if j+1 >= len(b) || b[j] != '"' || j-i-1 > MaxStringBytes {
			return nil, false
		}
		out = append(out, hash(b[i+1:j]))
		switch b[j+1] {
		case ',':
			if i = j + 2; i >= len(b) {
				return nil, false
			}
		case ']':
			s.i, s.u64 = j+2, out
			return s.carve.Take(out), true
		default:
			return nil, false
		}
	}
}

// readStringArray reads an array of strings; newString copies each element
// out of the line, which it outlives.
func (s *Scanner) ReadStringArray(name string, newString func([]byte) string) ([]string, error) {
	return readArray(s, name, "an array of strings", &s.strs, &s.carveStrs, func(i int) (string, error) {
		v, err := s.ReadStr(name, i)
		if err != nil {
			return "", err
		}
		return newString(v), nil
	})
}

// readArray reads the array at the cursor (what it must be, for messages),
// each element by elem, into scratch, and returns an exact-length copy of
// it from c's blocks.
func readArray[T any](s *Scanner, name, what string, scratch *[]T, c *Carver[T], elem func(i int) (T, error)) ([]T, error) {
	empty, err := s.openArray(name, what)
	if err != nil || empty {
		return nil, err
	}
	out := (*scratch)[:0]
	for {
		v, err := elem(len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if done, err := s.nextElement(); done || err != nil {
			*scratch = out
			return c.Take(out), err
		}
	}
}

// SkipValue moves past any JSON value, checking its syntax.
func (s *Scanner) SkipValue() error { return s.skipValue(0, true) }

// skipValue moves past one value; names says whether a field name given
// twice in one of its objects is refused (a JSON syntax check alone takes
// it, as encoding/json does).
func (s *Scanner) skipValue(depth int, names bool) error {
	switch c := s.Peek(); {
	case c == '"':
		_, err := s.ReadString()
		return err
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return s.syntaxErr("values nested too deeply")
		}
		return s.skipContainer(depth+1, names)
	case c == '-' || isDigit(c):
		_, err := s.scanNumber()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.Unexpected("a value")
}

// fieldNames are an object's field names read so far, to refuse one
// given twice (FORMAT.md: at most once in an object, nested ones too; a
// header's extra object held {"a":1,"a":2}). Copied, since a name with
// escapes is a view into scratch; a map once there are many, so that a
// hostile line's object of a million fields is not read in quadratic
// time.
type fieldNames struct {
	few  []string
	many map[string]bool
}

// seen reports whether name was read before, and notes it.
func (n *fieldNames) seen(name []byte) bool {
	if n.many != nil {
		if n.many[string(name)] {
			return true
		}
		n.many[string(name)] = true
		return false
	}
	for _, f := range n.few {
		if f == string(name) {
			return true
		}
	}
	n.few = append(n.few, string(name))
	if len(n.few) > 16 {
		n.many = make(map[string]bool, 2*len(n.few))
		for _, f := range n.few {
			n.many[f] = true
		}
	}
	return false
}

func (s *Scanner) skipContainer(depth int, checkNames bool) error {
	closing, isObject := byte(']'), s.b[s.i] == '{'
	if isObject {
		closing = '}'
	}
	s.i++
	s.SkipWS()
	if s.Peek() == closing {
		s.i++
		return nil
	}
	var names fieldNames
	for {
		s.SkipWS()
		if isObject {
			if s.Peek() != '"' {
				return s.Unexpected("a field name")
			}
			at := s.i
			name, err := s.ReadString()
			if err != nil {
				return err
			}
			if checkNames && names.seen(name) {
				s.i = at
				return s.syntaxErr("duplicate field " + QuoteBytes(name) + " in an object")
			}
			s.SkipWS()
			if err := s.Expect(':', "':' after a field name"); err != nil {
				return err
			}
			s.SkipWS()
		}
		if err := s.skipValue(depth, checkNames); err != nil {
			return err
		}
		s.SkipWS()
		switch s.Peek() {
		case ',':
			s.i++
		case closing:
			s.i++
			return nil
		default:
			return s.Unexpected("',' or '" + string(closing) + "'")
		}
	}
}

// CheckSyntax reports the first JSON syntax error in line, or nil if the
// line is one valid JSON value.
func CheckSyntax(line []byte) error { return check(line, false) }

// CheckValue is CheckSyntax, and refuses a field name given twice in an
// object, as SkipValue does: what a header's extra field may hold.
func CheckValue(line []byte) error { return check(line, true) }

func check(line []byte, names bool) error {
	s := Scanner{b: line}
	s.SkipWS()
	if err := s.skipValue(0, names); err != nil {
		return err
	}
	s.SkipWS()
	if s.i < len(s.b) {
		return s.Unexpected("end of line after the JSON value")
	}
	return nil
}

// Error is a problem within one line. Col > 0 marks a JSON syntax error
// at that byte column; Col == 0 means the line is well-formed JSON whose
// content the caller does not allow.
type Error struct {
	Col int
	Msg string
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("invalid JSON at column %d: %s", e.Col, e.Msg)
	}
	return e.Msg
}

// Errorf is a content error: well-formed JSON the caller does not allow.
func Errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Label names a field, or an element of an array field, in messages.
func Label(name string, index int) string {
	if index < 0 {
		return strconv.Quote(name)
	}
	return strconv.Quote(name) + "[" + strconv.Itoa(index) + "]"
}

// Printable shows JSON text from a line in a message: short, and safe to
// print even if the line was not valid UTF-8.
func Printable(b []byte) string {
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

// Quote shows a decoded string value in a message, shortened if long.
func Quote(v string) string {
	if len(v) > 40 {
		return strconv.Quote(v[:40]) + "..."
	}
	return strconv.Quote(v)
}

// QuoteBytes is Quote of v.
func QuoteBytes(v []byte) string { return Quote(string(v)) }
