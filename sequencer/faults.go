package sequencer

import "time"

// FaultPlan is what goes wrong during one persist, decided by the caller in
// advance (from its seed) so a run's faults are reproducible.
type FaultPlan struct {
	// StaleIdempotencyRead: step 1's eventually consistent read misses a
	// record that exists, as DynamoDB allows; step 4's condition must
	// catch what it missed.
	StaleIdempotencyRead bool
	// CrashBeforeAllocate: the server dies after steps 1 and 2, before
	// step 3 allocates (ADR-004 §10's first row): nothing was written,
	// but the client, whose connection drops, cannot tell this crash from
	// one after step 4, so its outcome is unknown as with every crash.
	CrashBeforeAllocate bool
	// StoreError: one store call of this persist fails with a DynamoDB
	// error (§10's "DynamoDB unavailable"); the core decides from the
	// call and the error whether the client sees fail or info.
	StoreError StoreFault
	// CrashAfterAllocate: the server dies between steps 3 and 4.
	CrashAfterAllocate bool
	// CrashInPersist: the server dies during step 4's transaction; whether
	// the commit landed first is CrashInPersistCommitted (a client cannot
	// tell, and ADR-004 §10's "transaction rolled back" is only one case).
	CrashInPersist          bool
	CrashInPersistCommitted bool
	// CrashAfterPersist: the server dies between steps 4 and 5.
	CrashAfterPersist bool
	// PublishFails: step 5's produce is not acknowledged.
	PublishFails bool
	// CommitDelay, under two-phase allocation, holds the persist this
	// long between step 3's allocation and step 4's commit (a slow
	// server, a GC pause, a throttled retry inside the SDK): a window in
	// which later sequences of the chat commit, are read and are pushed
	// while this one is not yet persisted. Not a fault of the outcome:
	// Any does not count it.
	CommitDelay time.Duration
	// Race, when set, is this send's place in a race with a twin sending
	// the same key at once: it waits after its idempotency look-up until
	// the twin has looked up too, so the two overlap (see Race). Not a
	// fault: Any does not count it.
	Race *RaceParty
}

// Any reports whether the plan injects anything.
func (p FaultPlan) Any() bool {
	return p.StaleIdempotencyRead || p.CrashBeforeAllocate || p.CrashAfterAllocate || p.CrashInPersist ||
		p.CrashAfterPersist || p.PublishFails || p.StoreError.Kind != NoStoreError
}

// StoreErrorKind is an error DynamoDB fails a call with.
type StoreErrorKind uint8

const (
	NoStoreError StoreErrorKind = iota
	// StoreThrottled: the call is throttled, refused before anything was
	// applied (ProvisionedThroughputExceededException and kin).
	StoreThrottled
	// StoreInternalError: the call fails with a 500; a write may have
	// been applied (StoreFault.Applied says whether it was).
	StoreInternalError
	// TxnCanceledOther: step 4's transaction is cancelled for a reason
	// other than the idempotency condition (another transaction held an
	// item): nothing was written.
	TxnCanceledOther
)

// StoreCall names the store call of a persist that a StoreFault strikes.
type StoreCall uint8

const (
	CallLookup     StoreCall = iota // step 1: the idempotency GetItem
	CallMembership                  // step 2: the membership GetItem
	CallAllocate                    // step 3: UpdateItem ADD (occ: its counter read)
	CallTransact                    // step 4: TransactWriteItems
	storeCalls
)

// StoreFault is a store error one persist meets, at its first call of
// kind Call.
type StoreFault struct {
	Kind StoreErrorKind
	Call StoreCall
	// Applied: a StoreInternalError on a write (the counter ADD, the
	// transaction) was applied before the 500 came back.
	Applied bool
}

// StoreCalls is how many kinds of call a StoreFault can strike.
const StoreCalls = int(storeCalls)
