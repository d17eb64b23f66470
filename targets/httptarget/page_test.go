package httptarget

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/internal/jsonambig"
	"github.com/chatseq/chatseq/store"
)

// readPageDecoded is how a sync page was read before readPage scanned
// it: the body decoded whole into maps, each field walked; the
// reference readPage must agree with.
func readPageDecoded(body []byte, spec SyncSpec, chat string) ([]store.Message, []bool, int, nextAfter, string) {
	if _, valid := decode(body); valid && spec.Typed {
		if twin := pageTwinDecoded(body, spec); twin != "" {
			return nil, nil, 0, nextAfter{}, "with " + twin
		}
	}
	list, ok := field(body, spec.Messages)
	items, isList := list.([]any)
	if !ok || !isList {
		return nil, nil, 0, nextAfter{}, fmt.Sprintf("without a list at %q", spec.Messages)
	}
	msgs := make([]store.Message, 0, len(items))
	var given []bool
	if spec.Content != "" {
		given = make([]bool, 0, len(items))
	}
	for _, it := range items {
		seqV, present := walk(it, spec.Sequence)
		if spec.Typed {
			if _, isNumber := seqV.(json.Number); present && !isNumber {
				return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a message whose sequence at %q is a JSON %s: the API's is an integer", spec.Sequence, decodedKind(seqV))
			}
			for _, path := range []string{spec.MessageID, spec.Key, spec.Sender, spec.Content} {
				if path == "" {
					continue
				}
				if v, ok := walk(it, path); ok {
					if _, isString := v.(string); !isString {
						return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a message whose %q is a JSON %s: the API's is a string", path, decodedKind(v))
					}
				}
			}
		}
		seq, ok := uintOf(seqV)
		if !ok {
			return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a message without a sequence (a whole number) at %q", spec.Sequence)
		}
		for _, path := range []string{spec.Key, spec.Sender} {
			if _, ok := walk(it, path); spec.Typed && path != "" && !ok {
				return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a message whose %q is missing: the API's messages carry it", path)
			}
		}
		m := store.Message{Chat: chat, Seq: seq}
		if v, ok := walk(it, spec.MessageID); ok {
			m.MessageID = stringOf(v)
		}
		if spec.Key != "" {
			if v, ok := walk(it, spec.Key); ok {
				m.Key = stringOf(v)
			}
		}
		if spec.Sender != "" {
			if v, ok := walk(it, spec.Sender); ok {
				m.Sender = stringOf(v)
			}
		}
		if spec.Content != "" {
			v, ok := walk(it, spec.Content)
			if ok {
				m.Content = stringOf(v)
			}
			_, isString := v.(string)
			given = append(given, spec.ContentRequired || ok && isString)
		}
		msgs = append(msgs, m)
	}
	for _, m := range msgs {
		if m.MessageID == "" {
			return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a message without a message id (a string, not empty) at %q", spec.MessageID)
		}
	}
	var next nextAfter
	if nextKey(spec) != "" {
		if v, ok := field(body, spec.NextAfter); ok && v != nil {
			if _, isNumber := v.(json.Number); spec.Typed && !isNumber {
				return nil, nil, 0, nextAfter{}, fmt.Sprintf("with its %s a JSON %s: the API's is an integer", spec.NextAfter, decodedKind(v))
			}
			n, isSeq := uintOf(v)
			switch {
			case len(msgs) > 0 && (!isSeq || n != msgs[len(msgs)-1].Seq):
				return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a %s that is not its last sequence, %d", spec.NextAfter, msgs[len(msgs)-1].Seq)
			case len(msgs) == 0 && !isSeq:
				return nil, nil, 0, nextAfter{}, fmt.Sprintf("with a %s that is no sequence", spec.NextAfter)
			}
			next = nextAfter{given: true, seq: n}
		}
	}
	return msgs, given, len(items), next, ""
}

// pageTwinDecoded is the first member, in the page's order, named but
// for case as a name the page is read by where it stands: a key of the
// messages path in the objects along it, next_after beside the list, a
// message path of one key in each of the list's items (then a dotted
// message path's, item by item). Read from encoding/json's tokens.
func pageTwinDecoded(body []byte, spec SyncSpec) string {
	var list []string
	if spec.Messages != "" {
		list = strings.Split(spec.Messages, ".")
	}
	next := nextKey(spec)
	var keys, dotted []string
	for _, p := range []string{spec.Sequence, spec.MessageID, spec.Key, spec.Sender, spec.Content} {
		switch {
		case p == "":
		case strings.Contains(p, "."):
			dotted = append(dotted, p)
		default:
			keys = append(keys, p)
		}
	}
	const (
		other = iota
		onPath
		theList
		item
	)
	type frame struct {
		object, expectKey bool
		role, level       int
		childRole, childL int // of the value after the last key
	}
	rootRole := onPath
	if len(list) == 0 {
		rootRole = theList
	}
	stack := []frame{{childRole: rootRole}} // the root's parent
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		top := &stack[len(stack)-1]
		if key, isKey := tok.(string); isKey && top.object && top.expectKey {
			top.expectKey, top.childRole, top.childL = false, other, 0
			switch top.role {
			case onPath:
				switch {
				case key == list[top.level] && top.level+1 == len(list):
					top.childRole = theList
				case key == list[top.level]:
					top.childRole, top.childL = onPath, top.level+1
				case top.level == len(list)-1 && key == next:
				default:
					if t := jsonambig.CaseTwin(key, list[top.level]); t != "" {
						return t
					}
					if top.level == len(list)-1 && next != "" {
						if t := jsonambig.CaseTwin(key, next); t != "" {
							return t
						}
					}
				}
			case item:
				if slices.Contains(keys, key) {
					break
				}
				for _, p := range keys {
					if t := jsonambig.CaseTwin(key, p); t != "" {
						return t
					}
				}
			}
			continue
		}
		// A value: of the last key in an object, or an array's element.
		role, level := top.childRole, top.childL
		if !top.object && len(stack) > 1 {
			role, level = other, 0
			if top.role == theList {
				role = item
			}
		}
		if top.object {
			top.expectKey = true
		}
		switch tok {
		case json.Delim('{'):
			if role == theList {
				role = other
			}
			if role == onPath || role == item || role == other {
				stack = append(stack, frame{object: true, expectKey: true, role: role, level: level})
			}
		case json.Delim('['):
			if role != theList {
				role = other
			}
			stack = append(stack, frame{role: role})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
	if len(dotted) > 0 {
		listV, _ := field(body, spec.Messages)
		items, _ := listV.([]any)
		for _, it := range items {
			if t := decodedTwin(it, dotted...); t != "" {
				return t
			}
		}
	}
	return ""
}

// decodedKind names a decoded JSON value's type.
func decodedKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case bool:
		return "boolean"
	}
	return "null"
}

var pageCases = []string{
	`{"messages":[{"sequence":1,"content":""},{"sequence":2,"content":null},{"sequence":3,"content":5},{"sequence":4,"content":"a\u00e9"},{"sequence":5}]}`,
	`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u1","content":"x"},{"sequence":2,"message_id":"m2"}],"next_after":2}`,
	`{"messages":[]}`,
	`{"messages":[],"next_after":7}`,
	`{"messages":[],"next_after":"x"}`,
	`{"messages":[],"next_after":null}`,
	` { "messages" : [ { "sequence" : "3" , "message_id" : 4 } , {"sequence":5} ] } `,
	`{"messages":[{"sequence":1},{"sequence":-1}]}`,
	`{"messages":[{"sequence":1},{"message_id":"no seq"}]}`,
	`{"messages":[1,2]}`,
	`{"messages":{"sequence":1}}`,
	`{"messages":null}`,
	`{"messages":[{"sequence":1,"sequence":9,"message_id":"a\"b\u00e9"}]}`,
	`{"m\u0065ssages":[{"sequence":7}]}`,
	`{"messages":[{"sequence":1}]} trailing`,
	`{"messages":[{"sequence":1}]`,
	`{"messages":[{"sequence":1,"message_id":"\u003cb\u003e"}],"messages":[{"sequence":2}]}`,
	`{"messages":[[],{"sequence":1}]}`,
	`[]`,
	``,
	`{"messages":[{"sequence":18446744073709551616}]}`,
	`{"messages":[{"sequence":1.0}]}`,
	`{"data":{"items":[{"seq":{"n":4},"id":"x"}]}}`,
	`{"data":{"items":[{"seq":{"n":4}}]},"data":{"other":1}}`,
	`{"data":[],"data":{"items":[{"seq":{"n":5},"seq":{"m":1}}]}}`,
	`[5,{"id":1}]`,
	`{"messages":[{"sequence":1,"message_id":"\ud800"}]}`,
	`{"messages":[{"sequence":1,"message_id":"\u12"}]}`,
	`{"messages":[{"sequence":1e3},{"sequence":-0}], "x": [true, false, null, 0.5e-3, "\t"]}`,
	`{"messages":[{"sequence":1,"message_id":"a` + "\xff" + `b"}]}`,
	`{"messages":[{"sequence":1,"message_id":"a` + "\n" + `b"}]}`,
	`{"messages":[{"sequence":01}]}`,
	`{"messages":[{"sequence":1,}]}`,
	`{"messages":[{"sequence":1}],}`,
	`{"messages":[tru]}`,
	// next_after beside the list: the page's last sequence, or a client
	// following it skips or repeats messages (an outside tester's).
	`{"messages":[{"sequence":1},{"sequence":2}],"next_after":3}`,
	`{"next_after":"abc","messages":[{"sequence":1}]}`,
	`{"messages":[{"sequence":4}],"next_after":null}`,
	`{"messages":[{"sequence":4}],"next_after":"4"}`,
	`{"messages":[{"sequence":4}],"next_after":4,"next_after":5}`,
	`{"messages":[],"next_after":9}`,
	`{"data":{"items":[{"seq":{"n":4}}],"next":7},"data":{"items":[{"seq":{"n":4}}]}}`,
	`{"data":{"items":[{"seq":{"n":4}}],"next":7}}`,
	// Twins of a name but for case: read for it by a client matching
	// names regardless of case; refused where the page is typed.
	`{"messages":[{"sequence":1,"message_id":"m1","Sequence":9}],"Next_after":1}`,
	`{"Messages":[{"sequence":1}],"messages":[{"Message_ID":"x","sequence":2}]}`,
	`{"messages":[{"s\u0045quence":1,"sequence":2,"message_id":"m"}]}`,
	`{"data":{"Items":[],"items":[{"seq":{"N":4},"Id":"x"}],"Next":3}}`,
	`{"messages":[{"sequence":1,"message_id":"m","ſequence":2}],"next_after":1}`,
	`{"messages":[{"sequence":1,"message_id":"m","SENDER_ID":2,"Content":"x"}]}`,
}

var pageSpecs = []SyncSpec{
	DefaultAPI().Sync,
	{Messages: "data.items", Sequence: "seq.n", MessageID: "id", NextAfter: "data.next"},
	{Messages: "messages", Sequence: "sequence", MessageID: ""},
	{Messages: "", Sequence: "", MessageID: "id"},
	{Messages: "messages", Sequence: "sequence", MessageID: "message_id", Content: "content"}, // content if given back
}

// The scan reads every page as decoding it whole did: the same messages,
// the same count, the same problem.
func TestReadPageAgreesWithDecode(t *testing.T) {
	for _, body := range pageCases {
		for _, spec := range pageSpecs {
			checkReadPage(t, []byte(body), spec)
		}
	}
	checkReadPage(t, fullPage(1000), DefaultAPI().Sync)
	// encoding/json's nesting limit, beside the list and just past it.
	for _, depth := range []int{10000, 10001} {
		deep := `{"deep":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `,"messages":[{"sequence":1}]}`
		checkReadPage(t, []byte(deep), DefaultAPI().Sync)
	}
}

// fullPage is a sync page of n messages as chatseq serve writes one
// (quotes escaped in the content included).
func fullPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sequence":%d,"message_id":"msg_01M8B6JR9MJ7DWPX1WGGG%07d","client_message_id":"w3-%d","sender_id":"user-%d","content":"message \"%d\" of the run"}`, i+1, i, i, i%7, i)
	}
	fmt.Fprintf(&b, `],"next_after":%d}`, n)
	return []byte(b.String())
}

func FuzzReadPage(f *testing.F) {
	for _, body := range pageCases {
		f.Add(body, 0)
	}
	f.Fuzz(func(t *testing.T, body string, spec int) {
		checkReadPage(t, []byte(body), pageSpecs[uint(spec)%uint(len(pageSpecs))])
	})
}

func checkReadPage(t *testing.T, body []byte, spec SyncSpec) {
	t.Helper()
	got, gotGiven, n, next, problem := readPage(body, spec, "c")
	want, wantGiven, wantN, wantNext, wantProblem := readPageDecoded(body, spec, "c")
	if problem != wantProblem || n != wantN || next != wantNext || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotGiven, wantGiven) {
		t.Fatalf("%q (%+v):\nscan   %v %v %d %+v %q\ndecode %v %v %d %+v %q", body, spec, got, gotGiven, n, next, problem, want, wantGiven, wantN, wantNext, wantProblem)
	}
}

// BenchmarkReadPage is one full page of chatseq serve's, as the final
// state read back over http reads millions of messages.
//
//	go test -run '^$' -bench ReadPage -benchmem ./targets/httptarget/
func BenchmarkReadPage(b *testing.B) {
	body := fullPage(1000)
	spec := DefaultAPI().Sync
	for _, read := range []struct {
		name string
		f    func([]byte, SyncSpec, string) ([]store.Message, []bool, int, nextAfter, string)
	}{{"scan", readPage}, {"decode", readPageDecoded}} {
		b.Run(read.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, _, n, _, p := read.f(body, spec, "c"); n != 1000 || p != "" {
					b.Fatal(n, p)
				}
			}
		})
	}
}

// A page whose message holds a string longer than a history's may be is
// no answer of the API (the final lines would leave a history its check
// refuses), whichever string it is.
func TestReadPageRefusesAStringTooLongForTheHistory(t *testing.T) {
	long := strings.Repeat("x", 65537)
	for _, field := range []string{"message_id", "client_message_id", "sender_id"} {
		m := map[string]string{"message_id": "m1", "client_message_id": "k1", "sender_id": "u1"}
		m[field] = long
		body := fmt.Sprintf(`{"messages":[{"sequence":1,"message_id":%q,"client_message_id":%q,"sender_id":%q}]}`, m["message_id"], m["client_message_id"], m["sender_id"])
		_, _, _, _, problem := readPage([]byte(body), DefaultAPI().Sync, "c")
		if !strings.Contains(problem, "of 65537 bytes, more than the 65536 a history's string may hold") {
			t.Errorf("a %s of 65537 bytes: problem %q", field, problem)
		}
	}
}

// A page whose next_after is not its last sequence breaks the API: a
// client that asks again from there skips (or repeats) messages, which
// chatseq, paging from its own last sequence, never saw: a service
// answering last+1, or garbage, passed (an outside tester's). Absent or
// null it says nothing.
func TestAPageWhoseNextAfterIsNotItsLastSequenceIsRefused(t *testing.T) {
	for body, want := range map[string]string{
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u"},{"sequence":2,"message_id":"m2","client_message_id":"k2","sender_id":"u"}],"next_after":3}`:     "with a next_after that is not its last sequence, 2",
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u"},{"sequence":2,"message_id":"m2","client_message_id":"k2","sender_id":"u"}],"next_after":"abc"}`: "with its next_after a JSON string: the API's is an integer",
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u"},{"sequence":2,"message_id":"m2","client_message_id":"k2","sender_id":"u"}],"next_after":2}`:     "",
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u"},{"sequence":2,"message_id":"m2","client_message_id":"k2","sender_id":"u"}],"next_after":null}`:  "",
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u"},{"sequence":2,"message_id":"m2","client_message_id":"k2","sender_id":"u"}]}`:                    "",
	} {
		if _, _, _, _, problem := readPage([]byte(body), DefaultAPI().Sync, "c"); problem != want {
			t.Errorf("%s: problem %q, want %q", body, problem, want)
		}
	}
}

// A message of a page without a message id (absent, or "") is no answer
// of the API: recorded, it left a history whose check refuses it (a
// history's ids are never empty).
func TestAPageMessageWithoutAMessageIDIsRefused(t *testing.T) {
	for _, body := range []string{
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u"},{"sequence":2,"client_message_id":"k2","sender_id":"u"}]}`,
		`{"messages":[{"sequence":1,"message_id":"","client_message_id":"k1","sender_id":"u"}]}`,
	} {
		if _, _, _, _, problem := readPage([]byte(body), DefaultAPI().Sync, "c"); problem != `with a message without a message id (a string, not empty) at "message_id"` {
			t.Errorf("%s: problem %q", body, problem)
		}
	}
}

// chatseq's API types its answers (docs/openapi.yaml): a sequence or a
// next_after sent as a string of digits, an id, key, sender or content
// as a number, broke it and passed, read as the values they spell (a
// JavaScript client reads two ids of 2^53 and above as one number). A
// mapping reads them loosely unless it says typed.
func TestAPageOfOtherTypesBreaksChatseqsAPI(t *testing.T) {
	// And a message of chatseq's API carries its key and sender: a page
	// that left the sender out kept the stored sender from every
	// comparison, where no device was pushed (a red team's).
	for body, want := range map[string]string{
		`{"messages":[{"sequence":1,"message_id":"m1","sender_id":"u1"}]}`:         `"client_message_id" is missing`,
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1"}]}`: `"sender_id" is missing`,
	} {
		if _, _, _, _, problem := readPage([]byte(body), DefaultAPI().Sync, "c"); !strings.Contains(problem, want) {
			t.Errorf("%s: problem %q, want %q", body, problem, want)
		}
	}
	typed, loose := DefaultAPI().Sync, DefaultAPI().Sync
	loose.Typed = false
	ok := `{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u1","content":"x"}`
	for body, want := range map[string]string{
		`{"messages":[` + ok + `]}`:                                             "",
		`{"messages":[{"sequence":"1","message_id":"m1"}]}`:                     `sequence at "sequence" is a JSON string`,
		`{"messages":[{"sequence":1,"message_id":9007199254740993}]}`:           `"message_id" is a JSON number`,
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":7}]}`: `"client_message_id" is a JSON number`,
		`{"messages":[{"sequence":1,"message_id":"m1","sender_id":true}]}`:      `"sender_id" is a JSON boolean`,
		`{"messages":[{"sequence":1,"message_id":"m1","content":{"t":"x"}}]}`:   `"content" is a JSON object`,
		`{"messages":[` + ok + `],"next_after":"1"}`:                            "with its next_after a JSON string",
	} {
		_, _, _, _, problem := readPage([]byte(body), typed, "c")
		if want == "" && problem != "" || !strings.Contains(problem, want) {
			t.Errorf("%s: problem %q, want %q", body, problem, want)
		}
		if _, _, _, _, problem := readPage([]byte(body), loose, "c"); problem != "" && !strings.Contains(body, "true") && !strings.Contains(body, "{\"t\"") {
			t.Errorf("%s read loosely: problem %q", body, problem)
		}
	}
}

// A page of chatseq's API names its members exactly: a twin of a name but
// for case ("Sequence" beside "sequence", "ſequence" by Unicode's
// folding, an escaped "\u0053equence") is read for it by a client
// matching names regardless of case, as Go's encoding/json does, so a
// page read one way here and another by the service's clients passed.
// Read loosely (a service's own mapping), a twin is a member like any.
func TestAPageNamingATwinButForCaseBreaksChatseqsAPI(t *testing.T) {
	typed, loose := DefaultAPI().Sync, DefaultAPI().Sync
	loose.Typed = false
	ok := `{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u1","content":"x"}`
	nested := SyncSpec{Messages: "data.items", Sequence: "seq.n", MessageID: "id", Typed: true}
	if _, _, _, _, problem := readPage([]byte(`{"data":{"items":[{"seq":{"n":4,"N":5},"id":"x"}]}}`), nested, "c"); !strings.Contains(problem, `a member "N"`) {
		t.Errorf("a twin on a dotted path: problem %q", problem)
	}
	for body, want := range map[string]string{
		`{"messages":[` + ok + `]}`: "",
		`{"messages":[{"sequence":1,"message_id":"m1","client_message_id":"k1","sender_id":"u1","created_at":"t"}]}`: "",
		`{"messages":[{"sequence":1,"message_id":"m1","Sequence":1001}]}`:                                            `a member "Sequence", which a client matching names regardless of case (Go's encoding/json) reads for the API's "sequence"`,
		`{"messages":[{"Sequence":1001,"sequence":1,"message_id":"m1"}]}`:                                            `a member "Sequence"`,
		`{"messages":[{"sequence":1,"message_id":"m1","ſequence":1001}]}`:                                            `a member "ſequence"`,
		`{"messages":[{"sequence":1,"message_id":"m1","\u0053equence":1001}]}`:                                       `a member "Sequence"`,
		`{"messages":[{"sequence":1,"message_id":"m1","Content":"forged"}]}`:                                         `a member "Content"`,
		`{"messages":[{"sequence":1,"message_id":"m1","CLIENT_MESSAGE_ID":"k9"}]}`:                                   `a member "CLIENT_MESSAGE_ID"`,
		`{"messages":[` + ok + `],"Messages":[]}`:                                                                    `a member "Messages"`,
		`{"messages":[` + ok + `],"next_after":1,"Next_After":9}`:                                                    `a member "Next_After"`,
	} {
		_, _, _, _, problem := readPage([]byte(body), typed, "c")
		if want == "" && problem != "" || !strings.Contains(problem, want) {
			t.Errorf("%s: problem %q, want %q", body, problem, want)
		}
		if _, _, _, _, problem := readPage([]byte(body), loose, "c"); problem != "" {
			t.Errorf("%s read loosely: problem %q", body, problem)
		}
	}
}
