// Package history is the chatseq history format, version 1 (see FORMAT.md):
// the events a run records, and the reader and recorder for them.
package history

// Format and Version are the header's "format" and "version" values.
const (
	Format  = "chatseq-history"
	Version = 1
)

// Kind is an event's "type".
type Kind uint8

const (
	KindInvoke Kind = iota + 1
	KindOK
	KindFail
	KindInfo
	KindTrace
	KindFinal
	// KindEnd is the end line, {"type":"end"}: never an Event, it marks
	// a complete file (History.End).
	KindEnd
	// KindTableRead is a table_read line, {"type":"table_read",...}:
	// never an Event, it says a final table was read and how many of its
	// lines the file holds (History.TablesRead).
	KindTableRead
	// The receivers' lines (FORMAT.md, "Receivers"): never an Event, each
	// is a Receiver.
	KindConnect
	KindDisconnect
	KindPush
	KindDeliveryAck
	KindJoin
	KindLeave
	KindSettled
	// KindStateRead is a state_read line: a user's read of a chat's
	// delivery_state, answered or refused (FORMAT.md, "Receivers").
	KindStateRead
)

// lastKind is the highest Kind a line may name.
const lastKind = KindStateRead

var kindNames = [...]string{"", "invoke", "ok", "fail", "info", "trace", "final", "end", "table_read",
	"connect", "disconnect", "push", "delivery_ack", "join", "leave", "settled", "state_read"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// IsCompletion reports whether k ends an operation.
func (k Kind) IsCompletion() bool { return k == KindOK || k == KindFail || k == KindInfo }

// Function names ("f").
const (
	FPersist  = "persist"
	FSync     = "sync"
	FAllocate = "allocate" // trace only
)

// ErrorBadResponse is the error code of a completion whose answer broke
// the service's API (FORMAT.md): a finding about the service, which the
// checker's api_conformance fails on, whatever the completion's outcome.
const ErrorBadResponse = "bad_response"

// DisconnectBadFrame starts the error of a disconnect line whose device
// ended the connection on a push frame in breach of the push channel's
// API (FORMAT.md, "Receivers"): the checker's api_conformance fails on
// it, as on a bad_response.
const DisconnectBadFrame = "bad_frame"

// Final-state tables.
const (
	TableCounters    = "counters"
	TableMessages    = "messages"
	TableIdempotency = "idempotency"
	TableEvents      = "events"
	// TableDeliveryState is ADR-001 §5's delivery_state: each (chat, user)'s
	// last_acked_sequence. Its lines are Receivers (Kind KindFinal).
	TableDeliveryState = "delivery_state"
)

// Event is one operation or trace line. Fields that a kind does not carry are
// zero. Sync results live behind a pointer to keep the common event small.
type Event struct {
	Line    int // 1-based line in the file it was read from; 0 if recorded
	Process int
	F       string
	Time    int64
	Start   int64 // trace allocate: when the call was issued; 0 if absent
	Chat    string
	Key     string
	// Sender is a persist invoke's sender, and on a sync invoke the user
	// the read was made as (the line's "user"): one field, since an event
	// is one or the other and a history holds millions of them.
	Sender      string
	PayloadHash string
	Seq         uint64 // persist ok; trace allocate
	MessageID   string
	Error       string
	After       uint64 // sync invoke
	Limit       int    // sync invoke
	Sync        *SyncResult
	// The one-byte fields last, together: a history holds millions of
	// events, and padding after each would cost 16 bytes apiece.
	Kind     Kind
	HasStart bool
	Dedup    bool
	// Reader marks a sync invoke of a catch-up client (FORMAT.md,
	// "Readers"): its After is the highest sequence the process has
	// received from the chat.
	Reader bool
}

// SyncResult is what a sync returned, in the order returned.
type SyncResult struct {
	Seqs       []uint64
	MessageIDs []string
	// IDHashes replaces MessageIDs when the Sink reading the history is an
	// IDHasher: the ids' hashes, in the same order.
	IDHashes []uint64
	// Keys, Senders and PayloadHashes, where the answer gave them, are
	// each message's client_message_id, sender and content hashed as the
	// persists' payload_hash (FORMAT.md): nil when not given at all, ""
	// for a message that came without one. The check compares them with
	// what the message's persist sent.
	Keys, Senders, PayloadHashes []string
}

// Final is one "final" line: state read after the run.
type Final struct {
	Line      int
	Table     string
	Chat      string
	Value     uint64 // counters
	Seq       uint64 // messages, idempotency, events
	MessageID string
	Key       string // messages, idempotency
	// Sender is who sent the message whose key this is (messages,
	// idempotency): optional, a chatseq extension that lets key_scope
	// client attribute the line (FORMAT.md); "" when not known.
	Sender string
	// PayloadHash is the stored message's content hashed as the
	// persists' payload_hash hashes theirs (messages): optional, a
	// chatseq extension that lets ack_implies_persistence find a message
	// stored with other content; "" when not read.
	PayloadHash string
	Offset      int64 // events
	Partition   int32 // events
	Missing     bool  // counters: the item is gone
}

// TableRead is a table_read line: the writer read a final table, even one
// it found empty, and wrote Lines of its lines to the file. Found is how
// many final lines of Table the file holds, as the reader counted them; a
// table whose Found differs from Lines was cut short (History.ShortTables).
type TableRead struct {
	Line  int
	Table string
	Lines uint64
	Found uint64
}

// Short reports whether the file holds another number of the table's
// lines than the table_read line promised.
func (t TableRead) Short() bool { return t.Lines != t.Found }

// Contract is what the sequencer under test promises. ContractFields
// describes each field: its values, default and spellings. The tags are
// the header's names, which an --api mapping's contract uses too.
type Contract struct {
	Gaps     string `json:"gaps,omitempty" yaml:"gaps,omitempty"`           // GapsAllowed | GapsForbidden
	KeyReuse string `json:"key_reuse,omitempty" yaml:"key_reuse,omitempty"` // KeyReuseReturnOriginal | KeyReuseReject
	Events   string `json:"events,omitempty" yaml:"events,omitempty"`       // EventsNone | EventsAtLeastOnce
	// CatchUp is how clients catch up: CatchUpCursor (ADR-001 §4: sync
	// with sequence > the last one received, never waiting for gaps), so
	// every persisted message must reach every reader whose cursor passed
	// it; CatchUpNone promises nothing to readers.
	CatchUp string `json:"catch_up,omitempty" yaml:"catch_up,omitempty"`
	// EventOrder is what the event stream promises about order:
	// EventOrderPerChat (each chat's events reach the topic in sequence
	// order) or EventOrderNone.
	EventOrder string `json:"event_order,omitempty" yaml:"event_order,omitempty"`
	// KeyScope is what an idempotency key is unique within: KeyScopeChat
	// (ADR-004: the idempotency table is keyed by chat and key),
	// KeyScopeClient (ADR-001: unique per client per chat, so two senders
	// may use one key in one chat for two messages), or KeyScopeSender
	// (the Message Service: (key, user_id) across chats, each key sent
	// once by its client, so no key reaches two chats; within a chat it
	// is judged as KeyScopeClient).
	KeyScope string `json:"key_scope,omitempty" yaml:"key_scope,omitempty"`
	// SendMembership is whether a send from a user who is not a member of
	// the chat must be refused: SendMembershipChecked (ADR-004 §3's step
	// 2, not_a_member) or SendMembershipUnchecked (a design whose send
	// path reads no membership).
	SendMembership string `json:"send_membership,omitempty" yaml:"send_membership,omitempty"`
	// ReadMembership is whether a sync by a user who is not a member of
	// the chat must be refused: ReadMembershipChecked (chatseq's HTTP
	// API, 403 chat.not_a_member) or ReadMembershipUnchecked (a design
	// whose read path reads no membership).
	ReadMembership string `json:"read_membership,omitempty" yaml:"read_membership,omitempty"`
	// StreamStart is when a push connection must begin streaming its
	// user's chats: StreamStartWithinASecond (ADR-001 states no bound; a
	// second's allowance) or StreamStartAtConnect (chatseq's HTTP API
	// subscribes before the 101: a device misses nothing first sent after
	// its connection opened).
	StreamStart string `json:"stream_start,omitempty" yaml:"stream_start,omitempty"`
}

// Contract values.
const (
	GapsAllowed              = "allowed"
	GapsForbidden            = "forbidden"
	KeyReuseReturnOriginal   = "return-original"
	KeyReuseReject           = "reject"
	EventsNone               = "none"
	EventsAtLeastOnce        = "at-least-once"
	CatchUpCursor            = "cursor"
	CatchUpNone              = "none"
	EventOrderPerChat        = "per-chat"
	EventOrderNone           = "none"
	KeyScopeChat             = "chat"
	KeyScopeClient           = "client"
	KeyScopeSender           = "sender"
	SendMembershipChecked    = "checked"
	SendMembershipUnchecked  = "unchecked"
	ReadMembershipChecked    = "checked"
	ReadMembershipUnchecked  = "unchecked"
	StreamStartWithinASecond = "within-1s"
	StreamStartAtConnect     = "at-connect"
)

// KeysPerSender: the key scope judges keys as their sender's within a
// chat (client and sender do).
func (c Contract) KeysPerSender() bool {
	return c.KeyScope == KeyScopeClient || c.KeyScope == KeyScopeSender
}

// Header is line 1. Extra keeps unknown fields verbatim (raw JSON values).
type Header struct {
	Version  int
	Contract Contract
	Target   string
	Scenario string
	Seed     int64
	HasSeed  bool
	// EndLine is the header's "end_line": true, the writer's promise to
	// end a complete file with the end line {"type":"end"}. A file that
	// promises it and lacks it was cut short (History.CutShort).
	EndLine bool
	Extra   map[string]string
}

// Warning is a problem the reader tolerated, such as a cut-off last line.
type Warning struct {
	Line    int
	Message string
}

// History is a whole file, read.
type History struct {
	File     string
	Header   Header
	Events   []Event // operations and traces, in file order
	Finals   []Final
	Warnings []Warning
	// End is the line of the end line ({"type":"end"}), 0 if the file
	// has none.
	End int
	// CutMidLine is the line the file ended inside of (a last line that
	// is not valid JSON and has no terminating newline: what a writer
	// killed mid-write leaves, skipped), 0 if none.
	CutMidLine int
	// TablesRead are the file's table_read lines, at most one a table
	// (a merged history may hold one a file: ReadFiles).
	TablesRead []TableRead
	// Receivers are the delivery plane's lines (FORMAT.md, "Receivers"),
	// in file order, final delivery_state lines included; a Sink that is a
	// ReceiverSink gets them instead.
	Receivers []Receiver
}

// TableRead reports whether the writer said it read table: a table_read
// line names it. A table with final lines and no table_read line is
// present as well (older files), but only this tells "read and empty"
// from "not read".
func (h *History) TableRead(table string) bool {
	for _, t := range h.TablesRead {
		if t.Table == table {
			return true
		}
	}
	return false
}

// ShortTables are the table_read lines whose promised count the file does
// not hold: those tables were cut short, and the final state proves
// nothing, as in a file that lacks its promised end line.
func (h *History) ShortTables() []TableRead {
	var short []TableRead
	for _, t := range h.TablesRead {
		if t.Short() {
			short = append(short, t)
		}
	}
	return short
}

// CutShort reports whether h promised an end line (Header.EndLine) and
// lacks it, or ends inside a line (CutMidLine): the writer stopped before
// it finished, perhaps halfway through the final state, so the final
// lines it holds prove nothing. A file killed inside a final line without
// the promise was judged on the lines before it: a message it was
// writing failed ack_implies_persistence (an outside walk-through).
func (h *History) CutShort() bool { return h.Header.EndLine && h.End == 0 || h.CutMidLine > 0 }

// EndLineMissing reports whether h promised an end line and lacks it.
func (h *History) EndLineMissing() bool { return h.Header.EndLine && h.End == 0 }
