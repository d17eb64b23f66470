package httptarget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
	"gopkg.in/yaml.v3"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/internal/jsonambig"
)

// API maps the calls chatseq makes onto a service's HTTP API (--api FILE);
// DefaultAPI is chatseq's own (docs/http-api.md). Response fields are
// dotted paths into the JSON body ("data.seq").
type API struct {
	// Contract is what the service promises: gaps, key_reuse, key_scope.
	Contract   ContractSpec `yaml:"contract"`
	CreateChat CreateSpec   `yaml:"create_chat"`
	Send       SendSpec     `yaml:"send"`
	Sync       SyncSpec     `yaml:"sync"`
	// Counter, when set, reads (and sets, deletes) a chat's counter: the
	// reference server's test hook, absent from production services.
	Counter CounterSpec `yaml:"counter"`
	// Statuses say what each answer to a send means; a status absent
	// here is ok if 200 or 201, info if 5xx, fail otherwise, but
	// another 2xx is a bad_response (unmappedSuccess) and so is a 3xx
	// (offAPI).
	Statuses map[int]Outcome `yaml:"statuses"`
	// ErrorCode is where an error body names the code a fail records
	// when its status maps no code.
	ErrorCode string `yaml:"error_code"`
	// TestHooks: the service is chatseq serve, which takes the
	// Chatseq-Faults and Chatseq-Race headers.
	TestHooks bool `yaml:"test_hooks"`
	// UserHeader names the calling user on every request (chatseq's API:
	// X-User-Id): the sender of a send, a member of the chat on a sync or
	// its creation. "" sends none.
	UserHeader string `yaml:"user_header"`
	// Push reaches the service's push channel (bench --receivers).
	Push PushSpec `yaml:"push"`
}

// PushSpec maps the delivery plane: a device's WebSocket, the frames that
// carry messages, the delivery ack a device sends, and where the service
// shows the acks it kept (delivery_state). DefaultPush is chatseq's
// (docs/asyncapi.yaml).
type PushSpec struct {
	// Path is the handshake (GET, upgraded to a WebSocket) on the
	// service's URL.
	Path string `yaml:"path"`
	// UserParam names the device's user as a query parameter of the
	// handshake; "" names it in the API's user_header.
	UserParam string `yaml:"user_param"`
	// FrameType is where a frame names its type and MessagesType that
	// type's value on a frame that carries messages: other frames
	// (typing, presence) are skipped. "" reads every frame as messages.
	FrameType    string `yaml:"frame_type"`
	MessagesType string `yaml:"messages_type"`
	// Messages is where a frame holds its list of messages; "" reads the
	// frame as one message.
	Messages string `yaml:"messages"`
	// Where a message holds its chat, sequence, id, sender, content
	// (identical_order compares its hash and the sender with what the
	// persist sent; not compared without them), and the time it was
	// created (RFC 3339; the fan-out latency counts from it, and is not
	// measured without it).
	ChatID    string `yaml:"chat_id"`
	Sequence  string `yaml:"sequence"`
	MessageID string `yaml:"message_id"`
	Sender    string `yaml:"sender"`
	Content   string `yaml:"content"`
	CreatedAt string `yaml:"created_at"`
	// Ack is the frame a device sends to acknowledge every message of a
	// chat up to a sequence (ADR-001 §5): JSON text in which {chat}
	// stands for the chat id as a JSON string and {sequence} for the
	// sequence as a number.
	Ack string `yaml:"ack"`
	// DeliveryState reads the acks the service kept, a chat at a time.
	DeliveryState DeliveryStateSpec `yaml:"delivery_state"`
}

// DeliveryStateSpec reads a chat's delivery_state: GET Path (with
// {chat}) as a member; Rows is where the answer holds the list, User and
// Sequence where each row holds its user and last acknowledged sequence.
type DeliveryStateSpec struct {
	Path     string `yaml:"path"`
	Rows     string `yaml:"rows"`
	User     string `yaml:"user"`
	Sequence string `yaml:"sequence"`
	// Chat, unless "", is where the answer names its chat: it must be
	// the chat asked for (another chat's rows passed as this one's).
	Chat string `yaml:"chat"`
	// Typed: each row's user a JSON string and its sequence a number,
	// names exact, as chatseq's OpenAPI document gives them
	// (SendSpec.Typed).
	Typed bool `yaml:"typed"`
}

// DefaultPush is chatseq's push channel (docs/asyncapi.yaml).
func DefaultPush() PushSpec {
	return PushSpec{
		Path: httpapi.PushPath, FrameType: "type", MessagesType: httpapi.FrameMessages, Messages: "messages",
		ChatID: "chat_id", Sequence: "sequence", MessageID: "message_id", Sender: "sender_id", Content: "content", CreatedAt: "created_at",
		Ack: `{"type":"ack","chat_id":{chat},"last_acked_sequence":{sequence}}`,
		DeliveryState: DeliveryStateSpec{
			Path: "/v1/chats/{chat}/delivery_state", Rows: "delivery_state", User: "user_id", Sequence: "last_acked_sequence",
			Chat: "chat_id", Typed: true,
		},
	}
}

// ContractSpec is what a service states of its contract, each field
// spelled as the history header spells it: only the fields
// history.ContractFields marks MappingStates; the http target fixes the
// rest (contract). bench --key-scope overrides key_scope.
type ContractSpec = history.Contract

// serviceStates lists the contract fields an --api mapping may state.
func serviceStates() []string {
	var names []string
	for _, f := range history.ContractFields {
		if f.MappingStates {
			names = append(names, f.Name)
		}
	}
	return names
}

// CreateSpec creates a chat with its members.
type CreateSpec struct {
	Method       string `yaml:"method"`
	Path         string `yaml:"path"`
	ChatField    string `yaml:"chat_field"`    // the chat id in the body, when the path does not hold it
	MembersField string `yaml:"members_field"` // the member list in the body
}

// SendSpec sends one message.
type SendSpec struct {
	Method         string `yaml:"method"`
	Path           string `yaml:"path"`
	KeyHeader      string `yaml:"key_header"` // the idempotency key as a header…
	KeyField       string `yaml:"key_field"`  // …or as a body field
	SenderField    string `yaml:"sender_field"`
	ContentField   string `yaml:"content_field"`
	ChatField      string `yaml:"chat_field"`
	Sequence       string `yaml:"sequence"`   // where the response holds the sequence
	MessageID      string `yaml:"message_id"` // and the message id
	ReplayedHeader string `yaml:"replayed_header"`
	// AnswerChat and AnswerKey are where the response gives back the chat
	// and the idempotency key ("": it does not): an answer naming another
	// one than the request is off the API (an acknowledgement of another
	// chat's or key's message). A mapping compares them only where it
	// says, since a service's own answer may name them otherwise.
	AnswerChat string `yaml:"answer_chat"`
	AnswerKey  string `yaml:"answer_key"`
	// Typed says the answer keeps its JSON types, as chatseq's OpenAPI
	// document gives them: the sequence a number, the message id a
	// string; and names its members exactly as the paths do (no
	// "Sequence" beside "sequence", which clients matching names
	// regardless of case read instead), and gives back the chat and key
	// where AnswerChat and AnswerKey say. Otherwise a string of digits is
	// read as a sequence and a number as an id (a service may send 64-bit
	// values as strings).
	Typed bool `yaml:"typed"`
}

// SyncSpec reads a chat after a sequence, one page.
type SyncSpec struct {
	Method     string `yaml:"method"`
	Path       string `yaml:"path"`
	AfterParam string `yaml:"after_param"`
	LimitParam string `yaml:"limit_param"`
	Messages   string `yaml:"messages"` // where the response holds the list
	Sequence   string `yaml:"sequence"` // in each message
	MessageID  string `yaml:"message_id"`
	Key        string `yaml:"key"` // the client_message_id, if given back
	// NextAfter is where a page says to ask again from, beside its list
	// ("": not read): where given, it must be the page's last sequence,
	// or a client that follows it skips or repeats messages.
	NextAfter string `yaml:"next_after"`
	Sender    string `yaml:"sender"` // the sender, if given back
	// Content is the message's content, if given back: a device's
	// catch-up page is compared with what its persist sent (its hash).
	Content string `yaml:"content"`
	// ContentRequired says every message of a page has its content at
	// Content, as chatseq's API requires: one without a string there is
	// read as an empty content, and compared, rather than as none (a
	// service whose pages left it out passed identical_order).
	ContentRequired bool `yaml:"content_required"`
	// MaxLimit is the largest page the service serves.
	MaxLimit int `yaml:"max_limit"`
	// Typed says a page keeps its JSON types, as chatseq's OpenAPI
	// document gives them: sequences and next_after numbers, a message's
	// id, key, sender and content strings, names exact (SendSpec.Typed);
	// and each message gives its key and sender where Key and Sender say.
	Typed bool `yaml:"typed"`
}

// CounterSpec reaches the reference server's counter hook.
type CounterSpec struct {
	Path  string `yaml:"path"`
	Value string `yaml:"value"`
}

// What an answer means.
const (
	OutcomeOK   = "ok"
	OutcomeFail = "fail"
	OutcomeInfo = "info"
)

// Outcome is what a status means: ok, fail with a code (the write cannot
// have happened), or info (unknown). In YAML a bare outcome or
// {outcome: fail, code: not_a_member}.
type Outcome struct {
	Outcome string `yaml:"outcome"`
	Code    string `yaml:"code"`
}

func (o *Outcome) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		o.Outcome = n.Value
	} else {
		type plain Outcome
		var p plain
		if err := n.Decode(&p); err != nil {
			return err
		}
		o.Outcome, o.Code = p.Outcome, p.Code
	}
	switch o.Outcome {
	case OutcomeOK, OutcomeFail, OutcomeInfo:
		return nil
	}
	return fmt.Errorf("line %d: outcome must be ok, fail or info, got %q", n.Line, o.Outcome)
}

// DefaultAPI is chatseq's API as chatseq serve answers it.
func DefaultAPI() *API {
	return &API{
		// docs/http-api.md: a device that got its 101 misses nothing
		// published after it (chatseq serve subscribes before the upgrade).
		Contract:   ContractSpec{Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal, KeyScope: history.KeyScopeChat, StreamStart: history.StreamStartAtConnect},
		CreateChat: CreateSpec{Method: http.MethodPut, Path: "/v1/chats/{chat}", MembersField: "members"},
		Send: SendSpec{
			Method: http.MethodPost, Path: "/v1/chats/{chat}/messages", KeyHeader: httpapi.HeaderIdempotencyKey,
			SenderField: "sender_id", ContentField: "content", Sequence: "sequence", MessageID: "message_id",
			ReplayedHeader: httpapi.HeaderReplayed, AnswerChat: "chat_id", AnswerKey: "client_message_id",
			Typed: true,
		},
		Sync: SyncSpec{
			Method: http.MethodGet, Path: "/v1/chats/{chat}/messages", AfterParam: "after", LimitParam: "limit",
			Messages: "messages", Sequence: "sequence", MessageID: "message_id", Key: "client_message_id", NextAfter: "next_after",
			Sender: "sender_id", Content: "content", ContentRequired: true, MaxLimit: httpapi.MaxSyncLimit,
			Typed: true,
		},
		Counter: CounterSpec{Path: "/v1/chats/{chat}/counter", Value: "value"},
		Statuses: map[int]Outcome{
			http.StatusOK: {Outcome: OutcomeOK}, http.StatusCreated: {Outcome: OutcomeOK},
			http.StatusForbidden:           {Outcome: OutcomeFail, Code: "not_a_member"},
			http.StatusConflict:            {Outcome: OutcomeFail, Code: "idempotency_key_reused"},
			http.StatusServiceUnavailable:  {Outcome: OutcomeFail}, // the documented API: nothing written
			http.StatusInternalServerError: {Outcome: OutcomeInfo},
		},
		ErrorCode:  "error.cause",
		TestHooks:  true,
		UserHeader: httpapi.HeaderUser,
		Push:       DefaultPush(),
	}
}

// LoadAPI reads a mapping file over DefaultAPI: what the file leaves out
// keeps the documented API's value, except test_hooks and counter, which a
// service other than chatseq serve does not have. Errors name file:line.
func LoadAPI(path string) (*API, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read a byte past the bound: a larger file is refused unread.
	data, err := io.ReadAll(io.LimitReader(f, maxMappingBytes+1))
	if err != nil {
		return nil, err
	}
	return ParseAPI(path, data)
}

// maxMappingBytes bounds a mapping file: one is a few kilobytes, and one
// of 100 MB (comments) took 727 MB to read.
const maxMappingBytes = 1 << 20

// maxMappedPath bounds each path a mapping names: the send path is kept
// per chat, and one of 4 MB took a gigabyte at 256 chats.
const maxMappedPath = 4096

// ParseAPI decodes a mapping strictly: unknown fields, bad values and
// paths without {chat} are errors at their line.
func ParseAPI(name string, data []byte) (*API, error) {
	if len(data) > maxMappingBytes {
		return nil, fmt.Errorf("%s: a mapping of more than %d bytes: a mapping is a few kilobytes", name, maxMappingBytes)
	}
	api := DefaultAPI()
	api.TestHooks, api.Counter = false, CounterSpec{}
	api.Sync.ContentRequired = false // a service's own pages: content if given back, unless the file says so
	// A service's own answers may send 64-bit values as strings: read
	// loosely, unless the file says typed.
	api.Send.Typed, api.Sync.Typed, api.Push.DeliveryState.Typed = false, false, false
	api.Push.DeliveryState.Chat = "" // compared where the file says
	// The key goes where the file says; the header only by default.
	api.Send.KeyHeader = ""
	api.Send.AnswerChat, api.Send.AnswerKey = "", "" // compared where the file says
	api.Sync.NextAfter = ""
	// A service's own push channel may need time to subscribe a device:
	// a second to begin, unless the file states at-connect.
	api.Contract.StreamStart = ""

	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(api); err != nil && !errors.Is(err, io.EOF) {
		return nil, fileErrors(name, err)
	}
	if api.Send.KeyHeader == "" && api.Send.KeyField == "" {
		api.Send.KeyHeader = httpapi.HeaderIdempotencyKey
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: holds more than one YAML document", name)
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	if err := api.validate(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, lineOf(&root, err.field), err.msg)
	}
	return api, nil
}

var linePrefix = regexp.MustCompile(`^line (\d+): `)

// fileErrors rewrites yaml.v3's "line N: …" as "file:N: …".
func fileErrors(name string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var out []string
	for _, m := range msgs {
		if g := linePrefix.FindStringSubmatch(m); g != nil {
			out = append(out, name+":"+g[1]+": "+strings.TrimPrefix(m, g[0]))
		} else {
			out = append(out, name+": "+m)
		}
	}
	return errors.New(strings.Join(out, "\n"))
}

type fieldError struct {
	field []string // the path of keys to the field at fault
	msg   string
}

func (e *fieldError) Error() string { return e.msg }

func bad(msg string, field ...string) *fieldError { return &fieldError{field: field, msg: msg} }

var methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// contractError checks the mapping's contract against history.ContractFields.
func (a *API) contractError() *fieldError {
	for _, f := range history.ContractFields {
		v := *f.Of(&a.Contract)
		switch {
		case v == "":
		case !f.MappingStates:
			return bad(fmt.Sprintf("contract.%s: a mapping states only %s; target http fixes the rest", f.Name, strings.Join(serviceStates(), ", ")), "contract", f.Name)
		case !f.Allows(v):
			return bad(fmt.Sprintf("contract.%s must be %s, got %q", f.Name, f.Choices(false, "or"), v), "contract", f.Name)
		}
	}
	return nil
}

func (a *API) validate() *fieldError {
	if err := a.contractError(); err != nil {
		return err
	}
	switch {
	case (a.Send.KeyHeader == "") == (a.Send.KeyField == ""):
		return bad("send: give key_header or key_field (where the idempotency key goes), one of them", "send")
	case a.Send.Sequence == "" || a.Send.MessageID == "":
		return bad("send: sequence and message_id must say where a response holds them (ADR-001's ack carries both)", "send")
	case a.Sync.Messages == "" || a.Sync.Sequence == "" || a.Sync.MessageID == "":
		return bad("sync: messages, sequence and message_id must say where a page holds them", "sync")
	case a.Sync.AfterParam == "" || a.Sync.LimitParam == "":
		return bad("sync: after_param and limit_param name the query parameters", "sync")
	case a.Sync.MaxLimit < 1:
		return bad(fmt.Sprintf("sync.max_limit must be at least 1, got %d", a.Sync.MaxLimit), "sync", "max_limit")
	case a.Sync.NextAfter != "" && nextKey(a.Sync) == "":
		return bad(fmt.Sprintf("sync.next_after %q must be beside the list, in the object that holds sync.messages %q", a.Sync.NextAfter, a.Sync.Messages), "sync", "next_after")
	case a.Counter.Path != "" && a.Counter.Value == "":
		return bad("counter.value must say where the counter's answer holds its value", "counter")
	}
	for _, c := range []struct {
		name, method, path, chatField string
	}{
		{"create_chat", a.CreateChat.Method, a.CreateChat.Path, a.CreateChat.ChatField},
		{"send", a.Send.Method, a.Send.Path, a.Send.ChatField},
		{"sync", a.Sync.Method, a.Sync.Path, ""},
	} {
		if !containsString(methods, c.method) {
			return bad(fmt.Sprintf("%s.method must be one of %s, got %q", c.name, strings.Join(methods, ", "), c.method), c.name, "method")
		}
		if !strings.HasPrefix(c.path, "/") {
			return bad(fmt.Sprintf("%s.path must start with /, got %q", c.name, c.path), c.name, "path")
		}
		if strings.ContainsAny(c.path, "?#") {
			// The query is chatseq's to write (a sync's after and
			// limit): one in the path was sent mangled.
			return bad(fmt.Sprintf("%s.path %q holds a query or fragment: give the path alone", c.name, c.path), c.name, "path")
		}
		if len(c.path) > maxMappedPath {
			return bad(fmt.Sprintf("%s.path is %d bytes, more than the %d a path may have", c.name, len(c.path), maxMappedPath), c.name, "path")
		}
		if !strings.Contains(c.path, "{chat}") && c.chatField == "" {
			return bad(fmt.Sprintf("%s.path %q holds no {chat} and no chat_field puts the chat in the body", c.name, c.path), c.name, "path")
		}
	}
	if err := a.headerError(); err != nil {
		return err
	}
	if err := a.pushError(); err != nil {
		return err
	}
	if a.Counter.Path != "" && !strings.Contains(a.Counter.Path, "{chat}") {
		return bad(fmt.Sprintf("counter.path %q holds no {chat}", a.Counter.Path), "counter", "path")
	}
	codes := make([]int, 0, len(a.Statuses))
	for s := range a.Statuses {
		codes = append(codes, s)
	}
	sort.Ints(codes)
	for _, s := range codes {
		if s < 100 || s > 599 {
			return bad(fmt.Sprintf("statuses: %d is not an HTTP status", s), "statuses", strconv.Itoa(s))
		}
		if o := a.Statuses[s]; o.Outcome == OutcomeOK && (s < 200 || s > 299) {
			return bad(fmt.Sprintf("statuses: %d is not a success, it cannot mean ok", s), "statuses", strconv.Itoa(s))
		}
	}
	return nil
}

// headerError checks the headers a mapping names: each a valid header
// name (one with a space ended the run at its first request, exit 5), none
// a header chatseq sets itself (a key_header of Content-Type was
// overwritten by the body's type, and every send went without its key),
// and no two the same (a key_header equal to user_header overwrote the
// user).
func (a *API) headerError() *fieldError {
	named := map[string]string{}
	for _, h := range []struct{ field, section, name string }{
		{"user_header", "", a.UserHeader},
		{"send.key_header", "send", a.Send.KeyHeader},
		{"send.replayed_header", "send", a.Send.ReplayedHeader},
	} {
		if h.name == "" {
			continue
		}
		at := []string{h.field}
		if h.section != "" {
			at = []string{h.section, strings.TrimPrefix(h.field, h.section+".")}
		}
		canonical := http.CanonicalHeaderKey(h.name)
		switch {
		case !httpguts.ValidHeaderFieldName(h.name):
			return bad(fmt.Sprintf("%s %q is not a header name", h.field, h.name), at...)
		case slices.Contains(clientHeaders, canonical):
			return bad(fmt.Sprintf("%s %q is a header chatseq sets itself on its requests", h.field, h.name), at...)
		case named[canonical] != "":
			return bad(fmt.Sprintf("%s %q is %s's header too: one header cannot carry both", h.field, h.name, named[canonical]), at...)
		}
		named[canonical] = h.field
	}
	return nil
}

// clientHeaders are what chatseq's client sets on a request itself, so a
// mapping cannot put anything else in them.
var clientHeaders = []string{"Content-Type", "Content-Length", "Host", "Transfer-Encoding", "Connection", httpapi.HeaderFaults, httpapi.HeaderRace}

// pushError checks the push mapping: a handshake path, a way to state the
// device's user, where frames hold what a device needs, an ack that is
// JSON with both placeholders, and a delivery_state to read back.
func (a *API) pushError() *fieldError {
	p := a.Push
	ds := p.DeliveryState
	switch {
	case !strings.HasPrefix(p.Path, "/"):
		return bad(fmt.Sprintf("push.path must start with /, got %q", p.Path), "push", "path")
	case p.UserParam == "" && a.UserHeader == "":
		return bad("push: a device must state its user: give push.user_param (a query parameter of the handshake) or user_header", "push")
	case (p.FrameType == "") != (p.MessagesType == ""):
		return bad("push: frame_type (where a frame names its type) and messages_type (its value on a frame of messages) go together", "push", "frame_type")
	case p.ChatID == "" || p.Sequence == "" || p.MessageID == "":
		return bad("push: chat_id, sequence and message_id must say where a pushed message holds them", "push")
	case !strings.HasPrefix(ds.Path, "/") || !strings.Contains(ds.Path, "{chat}"):
		return bad(fmt.Sprintf("push.delivery_state.path must start with / and hold {chat}, got %q", ds.Path), "push", "delivery_state", "path")
	case ds.Rows == "" || ds.User == "" || ds.Sequence == "":
		return bad("push.delivery_state: rows, user and sequence must say where the answer holds each member's last acknowledged sequence", "push", "delivery_state")
	}
	if !strings.Contains(p.Ack, "{chat}") || !strings.Contains(p.Ack, "{sequence}") {
		return bad(fmt.Sprintf("push.ack must hold {chat} and {sequence}, got %q", p.Ack), "push", "ack")
	}
	if sample := renderAck(p.Ack, "c", 1); !json.Valid(sample) {
		return bad(fmt.Sprintf("push.ack is not JSON once filled in: %s", sample), "push", "ack")
	}
	return nil
}

// renderAck fills in an ack template.
func renderAck(template, chat string, seq uint64) []byte {
	quoted, _ := json.Marshal(chat)
	return []byte(strings.NewReplacer("{chat}", string(quoted), "{sequence}", strconv.FormatUint(seq, 10)).Replace(template))
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lineOf finds the line of the deepest key of path present in the
// document (1 when none is).
func lineOf(root *yaml.Node, path []string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 1
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, next = n.Content[i].Line, n.Content[i+1]
			}
		}
		n = next
	}
	return line
}

// outcome is what status means for a send.
func (a *API) outcome(status int) Outcome {
	if o, ok := a.Statuses[status]; ok {
		return o
	}
	switch {
	case status >= 200 && status < 300:
		return Outcome{Outcome: OutcomeOK}
	case status >= 500:
		return Outcome{Outcome: OutcomeInfo}
	}
	return Outcome{Outcome: OutcomeFail}
}

// unmappedSuccess says how a send's status breaks the API, "" when it
// does not: a success other than 200 and 201 that statuses give no
// meaning. Taken as an ack it claimed most (the message persisted, at a
// sequence) on least: 202 says the request was accepted, not carried
// out, and chatseq's API answers a send 201.
func (a *API) unmappedSuccess(status int) string {
	if _, mapped := a.Statuses[status]; mapped || status/100 != 2 || status == http.StatusOK || status == http.StatusCreated {
		return ""
	}
	return fmt.Sprintf("to a send, a success the mapping gives no meaning (chatseq's API acknowledges with 201; a service whose %d acknowledges says so in its --api mapping, statuses: {%d: ok})", status, status)
}

// offAPI says how an answer breaks the API, "" when it does not: it was
// longer than limit, or it is a redirect the mapping does not give a
// meaning (statuses), which chatseq's API never answers.
func (a *API) offAPI(ans *answer, limit int64) string {
	if ans.cut && ans.announced > limit {
		return fmt.Sprintf("announcing %d bytes (Content-Length), more than the %d it may have, read no further (--max-answer-bytes bounds a sync page's answer, %d bytes any other)", ans.announced, limit, MaxCallAnswerBytes)
	}
	if ans.cut {
		return fmt.Sprintf("with more than %d bytes, read up to there (--max-answer-bytes bounds a sync page's answer, %d bytes any other)", limit, MaxCallAnswerBytes)
	}
	if _, mapped := a.Statuses[ans.status]; !mapped && ans.status/100 == 3 {
		return redirect(ans)
	}
	if _, mapped := a.Statuses[ans.status]; !mapped && ans.status == http.StatusBadRequest {
		// chatseq's requests are well formed: a 400 refuses one the API
		// must take. A service answering a replay of an acknowledged
		// key 400 passed, each a failure with no effect (an outside
		// tester's). A mapping that gives 400 a meaning opts out.
		return "to a request the API allows (chatseq's are well formed; a mapping's statuses may give 400 a meaning)"
	}
	if !utf8.Valid(ans.body) {
		return notUTF8
	}
	if problem := jsonambig.Problem(ans.body); problem != "" {
		// chatseq would record one reading, the service's clients may
		// take the other (a frame's second "messages" carried a lie).
		return "with " + problem
	}
	return ""
}

// notUTF8 is the problem of an answer that is not UTF-8: read as JSON,
// each invalid byte would become U+FFFD, and two message ids that differ
// there would read as one (a service that acked one id and stored
// another passed).
const notUTF8 = "with a body that is not valid UTF-8, which a JSON text must be (read on, two ids that differ in their invalid bytes would read as one)"
