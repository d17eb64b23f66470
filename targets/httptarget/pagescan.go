package httptarget

import (
	"encoding/binary"
	"strings"
	"sync"
)

// pageScan reads a sync page in one pass over its bytes: it checks that
// the body is one JSON value, as json.Valid does, while it finds the list
// at the messages path and, in each of the list's items, the values at
// the message paths. Checking first and then finding each value went
// over every byte three or four times, and was most of the CPU of a
// final state read back over http (millions of messages).
//
// A key repeated in an object counts at its last occurrence, as in
// encoding/json: meeting a key of the messages path again drops what was
// found under the earlier one.
type pageScan struct {
	b    []byte
	list []string // the messages path, key by key ("" is the body)
	// next is the key, beside the list's in its object, of where to ask
	// again from ("": not read); nextRaw its value, nil when absent.
	next    string
	nextRaw []byte
	paths   keyPaths // the message paths read in each item
	// nested: some path is walked in each item after the scan (itemRaw).
	nested bool
	// typed: names must be the paths' exactly (SyncSpec.Typed); twin,
	// unless "", describes the first member named one but for case.
	typed bool
	twin  string

	found   bool     // a value at the messages path
	isList  bool     // and it is an array
	vals    [][]byte // len(paths.paths) raw values per item, nil where absent
	itemRaw [][]byte // each item's bytes, when nested
}

// maxPageDepth is encoding/json's nesting limit (maxNestingDepth): a body
// nested deeper is not valid JSON to json.Valid either.
const maxPageDepth = 10000

// pageScans keeps scans' buffers from page to page: a page's values
// were half the garbage of reading it.
var pageScans = sync.Pool{New: func() any { return new(pageScan) }}

// contentPath is the content's index among a scan's message paths
// (newPageScan's order: sequence, message id, key, sender, content).
const contentPath = 4

// newPageScan is a scan for spec's pages; done gives it back.
func newPageScan(spec SyncSpec) *pageScan {
	s := pageScans.Get().(*pageScan)
	s.paths, s.list, s.nested = newKeyPaths(spec.Sequence, spec.MessageID, spec.Key, spec.Sender, spec.Content), nil, false
	if spec.Messages != "" {
		s.list = strings.Split(spec.Messages, ".")
	}
	s.next = nextKey(spec)
	s.typed = spec.Typed
	for k := range s.paths.paths {
		s.nested = s.nested || s.walked(k)
	}
	return s
}

// walked: message path k is read by walking each item after the scan
// (more than one key, or "", the whole item). The key's, the sender's
// and the content's paths are optional: "" there reads nothing.
func (s *pageScan) walked(k int) bool {
	return !s.paths.key[k] && (k < 2 || s.paths.paths[k] != "")
}

// keptPageValues bounds the values a scan given back keeps room for
// (a full page of 1000 messages needs 5000): a hostile page of millions
// of items must not leave its buffer held after it.
const keptPageValues = 16 << 10

// nextKey is the key of spec's next_after within the object that holds
// its list: "" when spec reads none, or names one elsewhere (a mapping
// is refused that, validate).
func nextKey(spec SyncSpec) string {
	if spec.NextAfter == "" || spec.Messages == "" {
		return ""
	}
	dir, key := "", spec.NextAfter
	if i := strings.LastIndexByte(spec.NextAfter, '.'); i >= 0 {
		dir, key = spec.NextAfter[:i], spec.NextAfter[i+1:]
	}
	listDir := ""
	if i := strings.LastIndexByte(spec.Messages, '.'); i >= 0 {
		listDir = spec.Messages[:i]
	}
	if dir != listDir {
		return ""
	}
	return key
}

// done gives the scan back; nothing it found may be used after.
func (s *pageScan) done() {
	if cap(s.vals) > keptPageValues || cap(s.itemRaw) > keptPageValues {
		return
	}
	clear(s.vals)
	clear(s.itemRaw)
	s.b, s.vals, s.itemRaw, s.nextRaw, s.twin = nil, s.vals[:0], s.itemRaw[:0], nil, ""
	pageScans.Put(s)
}

// scan reads body; false if it is not one valid JSON value (then nothing
// it found counts).
func (s *pageScan) scan(body []byte) bool {
	s.b, s.found, s.isList, s.vals, s.itemRaw, s.nextRaw, s.twin = body, false, false, s.vals[:0], s.itemRaw[:0], nil, ""
	i := skipSpace(body, 0)
	if i = s.onPath(i, 0, 0); i < 0 {
		return false
	}
	if skipSpace(body, i) != len(body) {
		return false
	}
	if s.nested && s.isList {
		s.walkNested()
	}
	return true
}

// items is how many items the list at the messages path has.
func (s *pageScan) items() int { return len(s.vals) / len(s.paths.paths) }

// item is the raw value at each message path in item n.
func (s *pageScan) item(n int) [][]byte {
	k := len(s.paths.paths)
	return s.vals[n*k : (n+1)*k]
}

// onPath reads the value at b[i], which the first level keys of the
// messages path lead to; the index after it, or -1 if it is not valid.
func (s *pageScan) onPath(i, depth, level int) int {
	if level == len(s.list) {
		s.found, s.isList, s.vals, s.itemRaw = true, false, s.vals[:0], s.itemRaw[:0]
		if i < len(s.b) && s.b[i] == '[' {
			s.isList = true
			return s.array(i, depth, true)
		}
		return s.value(i, depth)
	}
	if i >= len(s.b) || s.b[i] != '{' {
		return s.value(i, depth)
	}
	return s.object(i, depth, func(key []byte, v int) int {
		if s.next != "" && level == len(s.list)-1 && keyIs(key, s.next) {
			end := s.value(v, depth+1)
			if end >= 0 {
				s.nextRaw = s.b[v:end]
			}
			return end
		}
		if !keyIs(key, s.list[level]) {
			if s.typed {
				s.noteTwin(key, s.list[level])
				if level == len(s.list)-1 && s.next != "" {
					s.noteTwin(key, s.next)
				}
			}
			return s.value(v, depth+1)
		}
		s.found, s.isList, s.vals, s.itemRaw = false, false, s.vals[:0], s.itemRaw[:0]
		if level < len(s.list)-1 {
			s.nextRaw = nil // another object for the list: what was beside it counts no more
		}
		return s.onPath(v, depth+1, level+1)
	})
}

// value checks the JSON value at b[i]; the index after it, or -1.
func (s *pageScan) value(i, depth int) int {
	if i >= len(s.b) {
		return -1
	}
	switch c := s.b[i]; {
	case c == '"':
		return s.str(i)
	case c == '{':
		return s.object(i, depth, func(_ []byte, v int) int { return s.value(v, depth+1) })
	case c == '[':
		return s.array(i, depth, false)
	case c == '-' || c >= '0' && c <= '9':
		return s.number(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	}
	return -1
}

// object checks the object at b[i], handing each member's quoted key and
// the index of its value to member, which returns the index after the
// value or -1.
func (s *pageScan) object(i, depth int, member func(key []byte, v int) int) int {
	return s.elements(i, depth, '}', func(i int) int {
		if i >= len(s.b) || s.b[i] != '"' {
			return -1
		}
		end := s.str(i)
		if end < 0 {
			return -1
		}
		key := s.b[i:end]
		if i = skipSpace(s.b, end); i >= len(s.b) || s.b[i] != ':' {
			return -1
		}
		return member(key, skipSpace(s.b, i+1))
	})
}

// array checks the array at b[i]; when messages, its items are the
// list's and their paths are read.
func (s *pageScan) array(i, depth int, messages bool) int {
	return s.elements(i, depth, ']', func(i int) int {
		if !messages {
			return s.value(i, depth+1)
		}
		end := s.message(i, depth+1)
		if end >= 0 && s.nested {
			s.itemRaw = append(s.itemRaw, s.b[i:end])
		}
		return end
	})
}

// elements checks the container opened at b[i] and closed by closing,
// one level deeper than depth: each reads the element at an index and
// returns the index after it, or -1.
func (s *pageScan) elements(i, depth int, closing byte, each func(i int) int) int {
	if depth+1 > maxPageDepth {
		return -1
	}
	i = skipSpace(s.b, i+1)
	if i < len(s.b) && s.b[i] == closing {
		return i + 1
	}
	for {
		if i = each(i); i < 0 {
			return -1
		}
		if i = skipSpace(s.b, i); i >= len(s.b) {
			return -1
		}
		switch s.b[i] {
		case ',':
			i = skipSpace(s.b, i+1)
		case closing:
			return i + 1
		default:
			return -1
		}
	}
}

// message checks one item of the list, keeping the value of each message
// path that is one key (the last of a repeated key).
func (s *pageScan) message(i, depth int) int {
	base := len(s.vals)
	for range s.paths.paths {
		s.vals = append(s.vals, nil)
	}
	if i >= len(s.b) || s.b[i] != '{' {
		return s.value(i, depth)
	}
	return s.object(i, depth, func(key []byte, v int) int {
		end := s.value(v, depth+1)
		if end < 0 {
			return -1
		}
		escaped := strings.IndexByte(string(key), '\\') >= 0
		matched := false
		for n, p := range s.paths.paths {
			if !s.paths.key[n] {
				continue
			}
			var is bool
			if s.paths.plain[n] && !escaped {
				is = string(key[1:len(key)-1]) == p
			} else {
				is = keyIs(key, p)
			}
			if is {
				s.vals[base+n] = s.b[v:end]
				matched = true
			}
		}
		if s.typed && !matched {
			for n, p := range s.paths.paths {
				if s.paths.key[n] {
					s.noteTwin(key, p)
				}
			}
		}
		return end
	})
}

// walkNested reads the walked paths in each item, now that the body is
// known to be valid.
func (s *pageScan) walkNested() {
	for n, raw := range s.itemRaw {
		vals := s.item(n)
		for k, p := range s.paths.paths {
			if s.walked(k) {
				doc := jsonDoc{raw, true}
				vals[k], _ = doc.field(p)
				if s.typed && s.twin == "" {
					s.twin = doc.twin(p)
				}
			}
		}
	}
}

// noteTwin keeps the first member named name but for case (caseTwin):
// a page's messages may carry fields chatseq does not read, each spared
// a string by quotedTwin.
func (s *pageScan) noteTwin(quoted []byte, name string) {
	if s.twin == "" {
		s.twin = quotedTwin(quoted, name)
	}
}

// str checks the string at b[i] (a quote); the index after it, or -1.
// Any byte but a control character may stand in it unescaped, invalid
// UTF-8 included, as json.Valid allows.
func (s *pageScan) str(i int) int {
	b := s.b
	i++
	// Eight bytes at a time while none of them ends the string or needs
	// a look: a page is mostly the strings' plain bytes.
	for i+8 <= len(b) && !hasStringSpecial(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i++; i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// hasStringSpecial says whether a byte of w is a quote, a backslash or
// a control character (below 0x20): the bytes a string scan must look
// at. (v-ones)&^v&highs has a high bit set exactly when a byte of v is
// zero, (w-ones*0x20)&^w when a byte of w is below 0x20.
func hasStringSpecial(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return ((quote-ones)&^quote|(backslash-ones)&^backslash|(w-ones*0x20)&^w)&highs != 0
}

// number checks the number at b[i]; the index after it, or -1.
func (s *pageScan) number(i int) int {
	b := s.b
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(b, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func (s *pageScan) literal(i int, word string) int {
	if len(s.b)-i >= len(word) && string(s.b[i:i+len(word)]) == word {
		return i + len(word)
	}
	return -1
}
