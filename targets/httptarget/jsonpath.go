package httptarget

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chatseq/chatseq/internal/jsonambig"
)

// A send's answer is read by scanning its bytes for the mapped fields,
// not by decoding it into maps: decoding every answer whole was a fifth
// of a send's client time and a quarter of its garbage, inside the
// latency it measures (BenchmarkPersistClient). The results are what
// decode and walk give (TestJSONFieldAgreesWithDecode).

// jsonField returns the raw bytes of the value at a dotted path of
// objects in body ("" is the whole body); false if body is not JSON or
// the path is not there. Of a repeated key the last counts, as in
// encoding/json.
func jsonField(body []byte, path string) ([]byte, bool) { return readJSON(body).field(path) }

// jsonDoc is a body checked once, for reading several fields.
type jsonDoc struct {
	body  []byte
	valid bool // one JSON value and nothing more
}

func readJSON(body []byte) jsonDoc { return jsonDoc{body, json.Valid(body)} }

func (d jsonDoc) field(path string) ([]byte, bool) {
	if !d.valid {
		// Not one JSON value: no answer of the API (decode refuses it
		// too, a second document or a tail after the first included).
		return nil, false
	}
	v := bytes.TrimSpace(d.body)
	for more := path != ""; more; {
		var name string
		name, path, more = strings.Cut(path, ".")
		var ok bool
		if v, ok = member(v, name); !ok {
			return nil, false
		}
	}
	return v, true
}

// member is the value of key name in the valid JSON object v, the last
// if repeated; false if v is not an object or has no such key.
func member(v []byte, name string) ([]byte, bool) {
	var found []byte
	eachMember(v, func(key, val []byte) {
		if keyIs(key, name) {
			found = val
		}
	})
	return found, found != nil
}

// eachMember calls f with each quoted key and raw value of the valid JSON
// object v, in order; nothing if v is not an object.
func eachMember(v []byte, f func(key, val []byte)) {
	if len(v) == 0 || v[0] != '{' {
		return
	}
	for i := skipSpace(v, 1); i < len(v) && v[i] == '"'; {
		end := stringEnd(v, i)
		key := v[i:end]
		i = skipSpace(v, end)
		i = skipSpace(v, i+1) // the colon
		valEnd := valueEnd(v, i)
		f(key, v[i:valEnd])
		if i = skipSpace(v, valEnd); i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
}

// keyIs says whether the quoted key names name, escapes decoded.
func keyIs(quoted []byte, name string) bool {
	if raw := quoted[1 : len(quoted)-1]; plainString(raw) {
		return string(raw) == name
	}
	var s string
	return json.Unmarshal(quoted, &s) == nil && s == name
}

// plainString: a string's bytes decode to themselves (no escapes, valid
// UTF-8; encoding/json turns invalid bytes into U+FFFD).
func plainString(b []byte) bool { return bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) }

func skipSpace(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the string starting at v[i] (a quote).
func stringEnd(v []byte, i int) int {
	for i++; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(v)
}

// valueEnd is the index after the valid JSON value starting at v[i].
func valueEnd(v []byte, i int) int {
	if i >= len(v) {
		return i
	}
	switch v[i] {
	case '"':
		return stringEnd(v, i)
	case '{', '[':
		depth := 0
		for i < len(v) {
			switch v[i] {
			case '"':
				i = stringEnd(v, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(v) && v[i] != ',' && v[i] != '}' && v[i] != ']' && v[i] != ' ' && v[i] != '\t' && v[i] != '\n' && v[i] != '\r' {
		i++
	}
	return i
}

// rawString is a raw JSON value as stringOf reads a decoded one: a
// string's text, a number's digits, otherwise "".
func rawString(raw []byte) string {
	switch {
	case len(raw) == 0:
		return ""
	case isJSONString(raw):
		if plainString(raw[1 : len(raw)-1]) {
			return string(raw[1 : len(raw)-1])
		}
		var s string
		json.Unmarshal(raw, &s)
		return s
	case isJSONNumber(raw):
		return string(raw)
	}
	return ""
}

// verbatim is the text rawString reads of raw when it is bytes of raw as
// they stand (a string without escapes, a number, or nothing); false when
// rawString must decode it.
func verbatim(raw []byte) ([]byte, bool) {
	switch {
	case len(raw) == 0:
		return nil, true
	case isJSONString(raw):
		inner := raw[1 : len(raw)-1]
		return inner, plainString(inner)
	case isJSONNumber(raw):
		return raw, true
	}
	return nil, true
}

// rawUint is a raw JSON value as uintOf reads a decoded one: a number or
// a string of digits.
func rawUint(raw []byte) (uint64, bool) {
	if isJSONString(raw) || isJSONNumber(raw) {
		text, ok := verbatim(raw)
		if !ok {
			n, err := strconv.ParseUint(rawString(raw), 10, 64)
			return n, err == nil
		}
		// A short conversion for a call stays on the stack: no
		// allocation a message.
		n, err := strconv.ParseUint(string(text), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// keyPaths are the paths a page's scan reads in each message: every path
// that is one key is found in the one pass (the rest are walked apart).
type keyPaths struct {
	paths []string
	key   []bool // paths[i] is one key
	plain []bool // and a key without an escape matches it byte for byte
}

func newKeyPaths(paths ...string) keyPaths {
	k := keyPaths{paths: paths, key: make([]bool, len(paths)), plain: make([]bool, len(paths))}
	for i, p := range paths {
		k.key[i] = p != "" && !strings.Contains(p, ".")
		// Invalid bytes in a key read as U+FFFD: a name with none, valid
		// UTF-8, equals a key without escapes only byte for byte.
		k.plain[i] = utf8.ValidString(p) && !strings.ContainsRune(p, utf8.RuneError)
	}
	return k
}

// isJSONNumber and isJSONString say what a raw JSON value is, by its
// first byte (the scan hands over whole values).
func isJSONNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

func isJSONString(raw []byte) bool { return len(raw) > 0 && raw[0] == '"' }

// jsonKind names a raw JSON value's type for a message.
func jsonKind(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case isJSONString(raw):
		return "string"
	case isJSONNumber(raw):
		return "number"
	case raw[0] == '{':
		return "object"
	case raw[0] == '[':
		return "array"
	case raw[0] == 't' || raw[0] == 'f':
		return "boolean"
	}
	return "null"
}

// untyped says, unless "", which of a page's message's values (found, in
// keyPaths order: sequence, message id, key, sender, content) is not of
// the type the API gives it: a sequence must be a number, the others
// strings where given. A string sequence or a number id read as another
// type by a typed client (JavaScript reads two ids of 2^53 and above as
// one) passed.
func untyped(spec SyncSpec, found [][]byte) string {
	if len(found[0]) > 0 && !isJSONNumber(found[0]) {
		return fmt.Sprintf("sequence at %q is a JSON %s: the API's is an integer", spec.Sequence, jsonKind(found[0]))
	}
	names := [...]string{1: spec.MessageID, 2: spec.Key, 3: spec.Sender, 4: spec.Content}
	for k := 1; k < len(found) && k < len(names); k++ {
		if len(found[k]) > 0 && !isJSONString(found[k]) && names[k] != "" {
			return fmt.Sprintf("%s is a JSON %s: the API's is a string", strconv.Quote(names[k]), jsonKind(found[k]))
		}
	}
	return ""
}

// untold says, unless "", which of the key and sender a typed page's
// message (found, in keyPaths order) leaves out: the API's messages carry
// both, and a page that left the sender out kept the stored sender from
// every comparison, so a service that forged senders passed where no
// device was pushed (a red team's).
func untold(spec SyncSpec, found [][]byte) string {
	for k, name := range [...]string{2: spec.Key, 3: spec.Sender} {
		if name != "" && k < len(found) && len(found[k]) == 0 {
			return fmt.Sprintf("%s is missing: the API's messages carry it", strconv.Quote(name))
		}
	}
	return ""
}

// caseTwin says, unless "", which member of the valid JSON object v is
// named name but for case ("Sequence" beside "sequence"): a client that
// matches names regardless of case, as Go's encoding/json does into a
// struct, reads it for name (the later of the two where both are given)
// while chatseq and JavaScript read name alone; an answer so read two
// ways passed. Names are compared as they decode, escapes and all.
func caseTwin(v []byte, name string) string {
	twin := ""
	eachMember(v, func(key, _ []byte) {
		if twin == "" {
			twin = quotedTwin(key, name)
		}
	})
	return twin
}

// quotedTwin is jsonambig.CaseTwin of a quoted key, decoded only where
// its bytes do not plainly say it is no twin: a string a member was an
// allocation a send on the client's clock.
func quotedTwin(quoted []byte, name string) string {
	if jsonambig.PlainlyNoTwin(quoted[1:len(quoted)-1], name) {
		return ""
	}
	return jsonambig.CaseTwin(keyName(quoted), name)
}

// keyName is a quoted key's name, escapes decoded.
func keyName(quoted []byte) string {
	if raw := quoted[1 : len(quoted)-1]; plainString(raw) {
		return string(raw)
	}
	var s string
	json.Unmarshal(quoted, &s)
	return s
}

// twin is caseTwin at each object along each dotted path of the body, in
// turn: "" when no object on the way names a twin of a path's key there.
func (d jsonDoc) twin(paths ...string) string {
	for _, path := range paths {
		if t := d.pathTwin(path); t != "" {
			return t
		}
	}
	return ""
}

func (d jsonDoc) pathTwin(path string) string {
	if !d.valid || path == "" {
		return ""
	}
	v := bytes.TrimSpace(d.body)
	for more := true; more; {
		var name string
		name, path, more = strings.Cut(path, ".")
		if t := caseTwin(v, name); t != "" {
			return t
		}
		var ok bool
		if v, ok = member(v, name); !ok {
			return ""
		}
	}
	return ""
}

// decodedTwin is twin on a decoded body (decode's maps).
func decodedTwin(v any, paths ...string) string {
	for _, path := range paths {
		if t := decodedPathTwin(v, path); t != "" {
			return t
		}
	}
	return ""
}

func decodedPathTwin(v any, path string) string {
	for more := path != ""; more; {
		var name string
		name, path, more = strings.Cut(path, ".")
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		twin := "" // the first in order, whatever the map's
		for key := range m {
			if key != name && strings.EqualFold(key, name) && (twin == "" || key < twin) {
				twin = key
			}
		}
		if twin != "" {
			return jsonambig.CaseTwin(twin, name)
		}
		v = m[name]
	}
	return ""
}
