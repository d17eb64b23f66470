package sequencer

import (
	"errors"

	"github.com/chatseq/chatseq/store"
)

// Error codes reported to clients and recorded in histories.
const (
	CodeNotAMember         = "not_a_member"
	CodeCounterMissing     = "counter_missing"
	CodeCrashAfterAllocate = "crash_after_allocate"
	CodeCrashInPersist     = "crash_in_persist"
	CodeCrashAfterPersist  = "crash_after_persist"
	CodePublishFailed      = "publish_failed"
	CodeStoreError         = "store_error"
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

// classifyStoreError maps a store failure to a client-visible error: an
// unknown outcome stays unknown, anything else definitely did not apply.
func classifyStoreError(err error) *Error {
	var uo *store.UnknownOutcomeError
	if errors.As(err, &uo) {
		return unknown(uo.Code, err)
	}
	if errors.Is(err, store.ErrCounterMissing) {
		return definite(CodeCounterMissing, err)
	}
	return definite(CodeStoreError, err)
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
