package history

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The contract's fields by name, as the header, a scenario's contract:, an
// --api mapping and the checker's JSON report spell them. Code outside
// this table that means one field names it by its constant (or reads the
// row's column), so that a rename is one edit here and the compiler finds
// every reader; the root package's TestContractOneTable fails on a field
// name spelled as a string literal elsewhere.
const (
	FieldGaps        = "gaps"
	FieldKeyReuse    = "key_reuse"
	FieldEvents      = "events"
	FieldCatchUp     = "catch_up"
	FieldEventOrder  = "event_order"
	FieldKeyScope    = "key_scope"
	FieldSendMember  = "send_membership"
	FieldReadMember  = "read_membership"
	FieldStreamStart = "stream_start"
)

// ContractFields is the contract, one row per field of Contract: every
// place that names, parses, checks, merges, defaults or prints a contract
// field reads it here (the header reader and writer, the shard merge, the
// checker, chatseq check's flags, scenarios, the http target's mapping,
// the run report). Adding a field is one row (and Contract's field);
// each reader's test loops over the rows.
var ContractFields = []ContractField{
	{
		Name: FieldGaps, Flag: "gaps", Prose: "gaps",
		Values: []ContractValue{
			{GapsAllowed, "sequences may skip numbers, as ADR-004's two-phase allocation does"},
			{GapsForbidden, "sequences are assigned at apply time and must be gapless"},
		},
		Default:       GapsAllowed,
		ModelReads:    true,
		MappingStates: true,
		Of:            func(c *Contract) *string { return &c.Gaps },
	},
	{
		Name: FieldKeyReuse, Flag: "key-reuse", Prose: "key reuse",
		Values: []ContractValue{
			{KeyReuseReturnOriginal, "a key reused with other content gets the original sequence, as ADR-001 says"},
			{KeyReuseReject, "a key reused with other content fails: idempotency_key_reused, HTTP 409 style"},
		},
		Default:       KeyReuseReturnOriginal,
		ModelReads:    true,
		MappingStates: true,
		Of:            func(c *Contract) *string { return &c.KeyReuse },
	},
	{
		Name: FieldEvents, Flag: "events", Prose: "events",
		Values: []ContractValue{
			{EventsNone, "no event stream"},
			{EventsAtLeastOnce, "every message reaches the topic at least once"},
		},
		Default:           EventsNone,
		DefaultWithEvents: EventsAtLeastOnce,
		Of:                func(c *Contract) *string { return &c.Events },
	},
	{
		Name: FieldCatchUp, Flag: "catch-up", Prose: "catch-up",
		Values: []ContractValue{
			{CatchUpCursor, "readers must receive every message their cursor passed, as ADR-001 §4 says"},
			{CatchUpNone, "the design promises readers nothing"},
		},
		Default: CatchUpCursor,
		Of:      func(c *Contract) *string { return &c.CatchUp },
	},
	{
		Name: FieldEventOrder, Flag: "event-order", Prose: "event order",
		Values: []ContractValue{
			{EventOrderPerChat, "each chat's events on the topic in sequence order"},
			{EventOrderNone, "no order is promised"},
		},
		Default: EventOrderNone,
		Of:      func(c *Contract) *string { return &c.EventOrder },
	},
	{
		Name: FieldKeyScope, Flag: "key-scope", Prose: "key scope",
		Values: []ContractValue{
			{KeyScopeChat, "ADR-004: a key is unique in its chat"},
			{KeyScopeClient, "ADR-001: unique per sender per chat"},
			{KeyScopeSender, "the Message Service: unique per sender across chats (its clients never send a key to two chats)"},
		},
		Default:       KeyScopeChat,
		ModelReads:    true,
		MappingStates: true,
		Of:            func(c *Contract) *string { return &c.KeyScope },
	},
	{
		Name: FieldSendMember, Flag: "send-membership", Prose: "send membership",
		Values: []ContractValue{
			{SendMembershipChecked, "ADR-004 §3: a send from a user not a member of the chat is refused (not_a_member)"},
			{SendMembershipUnchecked, "the design's send path reads no membership"},
		},
		Default:       SendMembershipChecked,
		MappingStates: true,
		Of:            func(c *Contract) *string { return &c.SendMembership },
	},
	{
		Name: FieldReadMember, Flag: "read-membership", Prose: "read membership",
		Values: []ContractValue{
			{ReadMembershipChecked, "a sync by a user not a member of the chat is refused (chatseq's HTTP API: 403 chat.not_a_member)"},
			{ReadMembershipUnchecked, "the design's read path reads no membership"},
		},
		Default:       ReadMembershipChecked,
		MappingStates: true,
		Of:            func(c *Contract) *string { return &c.ReadMembership },
	},
	{
		Name: FieldStreamStart, Flag: "stream-start", Prose: "stream start",
		Values: []ContractValue{
			{StreamStartWithinASecond, "a push connection has a second to begin streaming its user's chats (ADR-001 states no bound)"},
			{StreamStartAtConnect, "a device misses nothing first sent after its connection opened, as chatseq's HTTP API promises (subscribed before the 101)"},
		},
		Default:       StreamStartWithinASecond,
		MappingStates: true,
		Of:            func(c *Contract) *string { return &c.StreamStart },
	},
}

// ContractField is one field of the contract and every way it is spelled.
type ContractField struct {
	// Name is the field in the header's "contract", in a scenario's
	// contract: and in the checker's JSON report ("key_reuse").
	Name string
	// Flag is chatseq check's flag for it, without the dashes
	// ("key-reuse").
	Flag string
	// Prose is how the run report's settings name it ("key reuse").
	Prose string
	// Values are the values HISTORY.md defines, in the order messages
	// list them.
	Values []ContractValue
	// Default is what the checker applies when neither the header nor a
	// flag states the field; DefaultWithEvents, when set, instead when
	// the history holds final events lines (or read the events table).
	Default, DefaultWithEvents string
	// ModelReads marks a field the linearizability model reads: a value
	// outside Values makes that check's contract problem (checker).
	ModelReads bool
	// MappingStates marks a field an --api mapping may state of the
	// service (targets/httptarget); target http fixes the others.
	MappingStates bool
	// Of is the field in a Contract.
	Of func(*Contract) *string
}

// ContractValue is one value of a contract field and what it promises.
type ContractValue struct {
	Name  string
	Gloss string
}

// LookupContractField returns the row named name, or nil.
func LookupContractField(name string) *ContractField {
	for i := range ContractFields {
		if ContractFields[i].Name == name {
			return &ContractFields[i]
		}
	}
	return nil
}

// Allows reports whether v is one of the field's values.
func (f *ContractField) Allows(v string) bool {
	for _, x := range f.Values {
		if x.Name == v {
			return true
		}
	}
	return false
}

// ValueNames lists the field's values.
func (f *ContractField) ValueNames() []string {
	names := make([]string, len(f.Values))
	for i, v := range f.Values {
		names[i] = v.Name
	}
	return names
}

// Choices lists the field's values for a message, "a or b" (with quoted,
// `"a" or "b"`); last is the word before the last one ("or", "nor").
func (f *ContractField) Choices(quoted bool, last string) string {
	names := f.ValueNames()
	if quoted {
		for i, n := range names {
			names[i] = strconv.Quote(n)
		}
	}
	return joinChoices(names, last)
}

// Glossed lists the field's values each with its gloss, for --help:
// "a (what a promises) or b (what b promises)".
func (f *ContractField) Glossed() string {
	parts := make([]string, len(f.Values))
	for i, v := range f.Values {
		parts[i] = v.Name + " (" + v.Gloss + ")"
	}
	return joinChoices(parts, "or")
}

// DefaultText says what the checker applies when no one states the field.
func (f *ContractField) DefaultText() string {
	if f.DefaultWithEvents != "" {
		return f.Default + ", or " + f.DefaultWithEvents + " when the history has final events lines or read the events table (its table_read line)"
	}
	return f.Default
}

// DefaultFor is the value the checker applies when the field is not
// stated; hasEvents says whether the history holds final events lines.
func (f *ContractField) DefaultFor(hasEvents bool) string {
	if hasEvents && f.DefaultWithEvents != "" {
		return f.DefaultWithEvents
	}
	return f.Default
}

// ContractFieldNames lists the fields' names, "a, b or c".
func ContractFieldNames() string {
	names := make([]string, len(ContractFields))
	for i, f := range ContractFields {
		names[i] = f.Name
	}
	return joinChoices(names, "or")
}

func joinChoices(items []string, last string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + last + " " + items[len(items)-1]
}

// Over returns base with every field c states put over base's.
func (c Contract) Over(base Contract) Contract {
	for _, f := range ContractFields {
		if v := *f.Of(&c); v != "" {
			*f.Of(&base) = v
		}
	}
	return base
}

// WithDefaults returns c with every field it leaves empty set to HISTORY.md's
// default (the events default depends on whether the history holds events).
func (c Contract) WithDefaults(hasEvents bool) Contract {
	for _, f := range ContractFields {
		if v := f.Of(&c); *v == "" {
			*v = f.DefaultFor(hasEvents)
		}
	}
	return c
}

// ModelProblem describes invalid values of the fields the linearizability
// model reads (the rows marked ModelReads), "" when there are none.
func (c Contract) ModelProblem() string {
	for i := range ContractFields {
		f := &ContractFields[i]
		if v := *f.Of(&c); f.ModelReads && !f.Allows(v) {
			return fmt.Sprintf("%s %q is neither %s", f.Name, v, f.Choices(true, "nor"))
		}
	}
	return ""
}

// Validate checks that every field c states holds one of its values; one
// error per field that does not, each worded by bad(field, value).
func (c Contract) Validate(bad func(f *ContractField, value string) error) error {
	var errs []error
	for i := range ContractFields {
		f := &ContractFields[i]
		if v := *f.Of(&c); v != "" && !f.Allows(v) {
			errs = append(errs, bad(f, v))
		}
	}
	return errors.Join(errs...)
}

// agree checks that two files of one run state the same contract, field
// by field, and returns it; otherwise it is an error listing every field
// they state differently. A field one states and the other leaves out
// differs too: taking the stated value for both made one file's
// key_scope or events judge the other's chats, which passed a violation
// that file fails alone (outside walk-through, 2026-12-06).
func (c Contract) agree(other Contract) (Contract, error) {
	var diffs []string
	for _, f := range ContractFields {
		if x, y := *f.Of(&c), *f.Of(&other); x != y {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", f.Name, statedOrNot(x), statedOrNot(y)))
		}
	}
	if len(diffs) > 0 {
		return c, fmt.Errorf("%s", strings.Join(diffs, ", "))
	}
	return c, nil
}

// statedOrNot is a contract field's value as a disagreement names it.
func statedOrNot(v string) string {
	if v == "" {
		return "not stated"
	}
	return v
}
