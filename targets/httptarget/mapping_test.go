package httptarget_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/targets/httptarget"
)

func TestTheShippedMappingExampleLoads(t *testing.T) {
	api, err := httptarget.LoadAPI(filepath.Join("..", "..", "docs", "examples", "api-mapping.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if api.Send.KeyField != "client_message_id" || api.Send.KeyHeader != "" {
		t.Errorf("send key: header %q field %q", api.Send.KeyHeader, api.Send.KeyField)
	}
	if api.Contract.KeyReuse != history.KeyReuseReject || api.Sync.MaxLimit != 500 || api.Statuses[503].Outcome != httptarget.OutcomeInfo {
		t.Errorf("mapping read as %+v", api)
	}
	if api.TestHooks || api.Counter.Path != "" {
		t.Error("a mapped service was given chatseq serve's test hooks")
	}
}

// chatseq's API requires a page message's content; a service's own
// mapping reads it only if given back, unless the file says it is
// required (the shipped example does).
func TestContentIsRequiredOnlyWhereTheAPISaysSo(t *testing.T) {
	if !httptarget.DefaultAPI().Sync.ContentRequired {
		t.Error("chatseq's own API does not require a page message's content")
	}
	api, err := httptarget.ParseAPI("m.yaml", []byte("sync:\n  content: body\n"))
	if err != nil {
		t.Fatal(err)
	}
	if api.Sync.ContentRequired {
		t.Error("a mapping that did not say so requires the content")
	}
	if api.Send.Typed || api.Sync.Typed {
		t.Error("a mapping that did not say so reads its service's answers as typed")
	}
	example, err := httptarget.LoadAPI(filepath.Join("..", "..", "docs", "examples", "api-mapping.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !example.Sync.ContentRequired {
		t.Error("the shipped example says content_required: true, read as false")
	}
	if !example.Send.Typed || !example.Sync.Typed {
		t.Error("the shipped example says typed: true, read as false")
	}
}

// A mapping file's problems are errors at their file and line.
func TestMappingErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		yaml, want string
	}{
		{"send:\n  method: POST\n  pathh: /x\n", "m.yaml:3: field pathh not found"},
		{"statuses:\n  503: maybe\n", "m.yaml:2: outcome must be ok, fail or info"},
		{"contract:\n  gaps: sometimes\n", "m.yaml:2: contract.gaps must be"},
		{"contract: {}\nsync:\n  path: /messages\n", "m.yaml:3: sync.path \"/messages\" holds no {chat}"},
		{"send:\n  key_field: k\n  key_header: K\n", "m.yaml:1: send: give key_header or key_field"},
		{"send:\n  message_id: \"\"\n", "m.yaml:1: send: sequence and message_id must say where a response holds them"},
		{"statuses:\n  404: ok\n", "m.yaml:2: statuses: 404 is not a success"},
		{"sync: [1, 2]\n", "m.yaml:1: cannot unmarshal"},
		{"contract: {}\n---\nb: 2\n", "m.yaml: holds more than one YAML document"},
		{"push:\n  path: stream\n", "m.yaml:2: push.path must start with /"},
		{"push:\n  ack: '{\"x\":1}'\n", "m.yaml:2: push.ack must hold {chat} and {sequence}"},
		{"push:\n  ack: '{chat}:{sequence}'\n", "m.yaml:2: push.ack is not JSON once filled in"},
		{"push:\n  frame_type: kind\n  messages_type: ''\n", "m.yaml:2: push: frame_type (where a frame names its type) and messages_type"},
		{"user_header: ''\n", "m.yaml:1: push: a device must state its user"},
		{"push:\n  chat_id: ''\n", "m.yaml:1: push: chat_id, sequence and message_id"},
		{"push:\n  delivery_state:\n    path: /receipts\n", "m.yaml:3: push.delivery_state.path must start with / and hold {chat}"},
		{"push:\n  delivery_state:\n    rows: ''\n", "m.yaml:2: push.delivery_state: rows, user and sequence"},
		{"push:\n  pathh: /x\n", "m.yaml:2: field pathh not found"},
		// Headers: a name net/http refuses ended the run at its first
		// request (exit 5); one chatseq sets itself, or one named twice,
		// was overwritten, and every send went without its key or user.
		{"user_header: 'X Who'\n", `m.yaml:1: user_header "X Who" is not a header name`},
		{"send:\n  key_header: Content-Type\n", `m.yaml:2: send.key_header "Content-Type" is a header chatseq sets itself`},
		{"user_header: X-Key\nsend:\n  key_header: x-key\n", `m.yaml:3: send.key_header "x-key" is user_header's header too`},
		{"send:\n  path: /" + strings.Repeat("p", 5000) + "/{chat}\n", "m.yaml:2: send.path is 5008 bytes, more than the 4096"},
		{strings.Repeat("# a comment\n", 100000), "m.yaml: a mapping of more than 1048576 bytes"},
		{"sync:\n  path: /c/{chat}/m?v=2\n", `m.yaml:2: sync.path "/c/{chat}/m?v=2" holds a query or fragment`},
	}
	for _, c := range cases {
		_, err := httptarget.ParseAPI("m.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.yaml, err, c.want)
		}
	}
}

func TestLoadAPIOfAMissingFile(t *testing.T) {
	_, err := httptarget.LoadAPI(filepath.Join(t.TempDir(), "none.yaml"))
	if !os.IsNotExist(err) {
		t.Errorf("error %v, want not-exist", err)
	}
}

// FuzzParseAPI: any file is a mapping or an error naming the file, never
// a panic.
func FuzzParseAPI(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "api-mapping.yaml")); err == nil {
		f.Add(data)
	}
	for _, s := range []string{"", "statuses:\n  201: ok\n", "send: {key_header: K, sequence: a.b}\n", "statuses: {99999999999999999999: ok}", "sync: {max_limit: -1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		api, err := httptarget.ParseAPI("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if api.Sync.MaxLimit < 1 || api.Send.Sequence == "" {
			t.Fatalf("accepted an unusable mapping: %+v", api)
		}
	})
}
