package httpapi

import (
	"fmt"
	"strings"
	"sync"

	"github.com/chatseq/chatseq/sequencer"
)

// The Chatseq-Faults header carries a sequencer.FaultPlan, so that chatseq
// serve fails a request the way bench would fail it in process: a
// comma-separated list of these tokens, and store=KIND/CALL[/applied].
var faultFlags = []struct {
	token string
	field func(*sequencer.FaultPlan) *bool
}{
	{"stale_read", func(p *sequencer.FaultPlan) *bool { return &p.StaleIdempotencyRead }},
	{"crash_before_allocate", func(p *sequencer.FaultPlan) *bool { return &p.CrashBeforeAllocate }},
	{"crash_after_allocate", func(p *sequencer.FaultPlan) *bool { return &p.CrashAfterAllocate }},
	{"crash_in_persist", func(p *sequencer.FaultPlan) *bool { return &p.CrashInPersist }},
	{"crash_in_persist_committed", func(p *sequencer.FaultPlan) *bool { return &p.CrashInPersistCommitted }},
	{"crash_after_persist", func(p *sequencer.FaultPlan) *bool { return &p.CrashAfterPersist }},
	{"publish_fails", func(p *sequencer.FaultPlan) *bool { return &p.PublishFails }},
}

var storeErrorKinds = map[sequencer.StoreErrorKind]string{
	sequencer.StoreThrottled:     "throttled",
	sequencer.StoreInternalError: "internal_error",
	sequencer.TxnCanceledOther:   "txn_canceled_other",
}

var storeCalls = map[sequencer.StoreCall]string{
	sequencer.CallLookup:     "lookup",
	sequencer.CallMembership: "membership",
	sequencer.CallAllocate:   "allocate",
	sequencer.CallTransact:   "transact",
}

// FormatFaults encodes p for the Chatseq-Faults header ("" when p injects
// nothing). Its race is not part of it: see HeaderRace.
func FormatFaults(p sequencer.FaultPlan) string {
	var tokens []string
	for _, f := range faultFlags {
		if *f.field(&p) {
			tokens = append(tokens, f.token)
		}
	}
	if sf := p.StoreError; sf.Kind != sequencer.NoStoreError {
		t := "store=" + storeErrorKinds[sf.Kind] + "/" + storeCalls[sf.Call]
		if sf.Applied {
			t += "/applied"
		}
		tokens = append(tokens, t)
	}
	return strings.Join(tokens, ",")
}

// ParseFaults decodes a Chatseq-Faults header; "" is no fault.
func ParseFaults(h string) (sequencer.FaultPlan, error) {
	var p sequencer.FaultPlan
	if strings.TrimSpace(h) == "" {
		return p, nil
	}
	for _, tok := range strings.Split(h, ",") {
		tok = strings.TrimSpace(tok)
		if spec, ok := strings.CutPrefix(tok, "store="); ok {
			sf, err := parseStoreFault(spec)
			if err != nil {
				return sequencer.FaultPlan{}, err
			}
			p.StoreError = sf
			continue
		}
		known := false
		for _, f := range faultFlags {
			if f.token == tok {
				*f.field(&p), known = true, true
			}
		}
		if !known {
			return sequencer.FaultPlan{}, fmt.Errorf("unknown fault %q", tok)
		}
	}
	return p, nil
}

func parseStoreFault(spec string) (sequencer.StoreFault, error) {
	parts := strings.Split(spec, "/")
	if len(parts) < 2 || len(parts) > 3 || (len(parts) == 3 && parts[2] != "applied") {
		return sequencer.StoreFault{}, fmt.Errorf("store fault %q is not KIND/CALL[/applied]", spec)
	}
	sf := sequencer.StoreFault{Applied: len(parts) == 3}
	for k, name := range storeErrorKinds {
		if name == parts[0] {
			sf.Kind = k
		}
	}
	for c, name := range storeCalls {
		if name == parts[1] {
			sf.Call = c
		}
	}
	if sf.Kind == sequencer.NoStoreError || storeCalls[sf.Call] != parts[1] {
		return sequencer.StoreFault{}, fmt.Errorf("store fault %q: kind is throttled, internal_error or txn_canceled_other, call lookup, membership, allocate or transact", spec)
	}
	return sf, nil
}

// raceRegistry pairs the two sends of a raced key (Chatseq-Race: both
// carry it): each takes a party of one sequencer.Race, so they overlap
// after their look-ups as in process. A twin that never comes lets the
// other go after sequencer.RaceMaxWait.
type raceRegistry struct {
	mu      sync.Mutex
	pending map[string][]*sequencer.RaceParty
}

func (r *raceRegistry) join(chat, key string) *sequencer.RaceParty {
	id := chat + "\x00" + key
	r.mu.Lock()
	defer r.mu.Unlock()
	if parties, ok := r.pending[id]; ok {
		delete(r.pending, id)
		return parties[1]
	}
	if r.pending == nil {
		r.pending = map[string][]*sequencer.RaceParty{}
	}
	parties := sequencer.NewRace(2)
	r.pending[id] = parties
	return parties[0]
}
