package sequencer

// FaultPlan is what goes wrong during one persist, decided by the caller in
// advance (from its seed) so a run's faults are reproducible.
type FaultPlan struct {
	// StaleIdempotencyRead: step 1's eventually consistent read misses a
	// record that exists, as DynamoDB allows; step 4's condition must
	// catch what it missed.
	StaleIdempotencyRead bool
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
	// Race, when set, is this send's place in a race with a twin sending
	// the same key at once: it waits after its idempotency look-up until
	// the twin has looked up too, so the two overlap (see Race). Not a
	// fault: Any does not count it.
	Race *RaceParty
}

// Any reports whether the plan injects anything.
func (p FaultPlan) Any() bool {
	return p.StaleIdempotencyRead || p.CrashAfterAllocate || p.CrashInPersist || p.CrashAfterPersist || p.PublishFails
}
