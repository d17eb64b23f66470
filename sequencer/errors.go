package sequencer

import (
	"errors"

	"github.com/chatseq/chatseq/store"
)

// Error codes reported to clients and recorded in histories.
const (
	CodeNotAMember          = "not_a_member"
	CodeCounterMissing      = "counter_missing"
	CodeCrashBeforeAllocate = "crash_before_allocate"
	CodeCrashAfterAllocate  = "crash_after_allocate"
	// CodeTransactionCanceled: step 4's transaction was cancelled for a
	// reason other than the idempotency condition; nothing was written.
	CodeTransactionCanceled = "transaction_canceled"
	CodeCrashInPersist      = "crash_in_persist"
	CodeCrashAfterPersist   = "crash_after_persist"
	CodePublishFailed       = "publish_failed"
	CodeStoreError          = "store_error"
)

// Error is a failed operation. Definite means the operation certainly had no
// effect (a history "fail"); otherwise its outcome is unknown to the client
// ("info") — a crash, a timeout, or a publish failure after the message was
// already persisted.
type Error struct {
	Code     string
	Definite bool
	Err      error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Err.Error()
	}
	return e.Code
}

func (e *Error) Unwrap() error { return e.Err }

func definite(code string, err error) *Error { return &Error{Code: code, Definite: true, Err: err} }
func unknown(code string, err error) *Error  { return &Error{Code: code, Err: err} }

// classifyStoreError maps a failed write to a client-visible error: an
// unknown outcome (a 500, a timeout: the write may have been applied)
// stays unknown; a refused call (throttled), a cancelled transaction and
// anything else definitely did not apply.
func classifyStoreError(err error) *Error {
	var uo *store.UnknownOutcomeError
	if errors.As(err, &uo) {
		return unknown(uo.Code, err)
	}
	var rej *store.RejectedError
	if errors.As(err, &rej) {
		return definite(rej.Code, err)
	}
	if errors.Is(err, store.ErrCounterMissing) {
		return definite(CodeCounterMissing, err)
	}
	var canceled *store.TransactionCanceledError
	if errors.As(err, &canceled) {
		return definite(CodeTransactionCanceled, err)
	}
	return definite(CodeStoreError, err)
}

// readFailed maps a failed read to a client-visible error. The core reads
// only before it writes a message or an idempotency record (step 1, step
// 2, occ's counter read, and the re-read after a cancelled transaction),
// so whatever the store says of the read, even that its outcome is
// unknown, the operation definitely took no effect: fail, not info. (A
// counter ADD before it is an allocation, a gap its trace explains.)
func readFailed(err error) *Error {
	e := classifyStoreError(err)
	e.Definite = true
	return e
}

// AsError returns err as *Error, classifying foreign errors as unknown
// outcomes (a client that cannot tell what happened must assume anything).
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return unknown(CodeStoreError, err)
}
