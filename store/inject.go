package store

import (
	"errors"
	"fmt"
)

// RejectedError is a call the store refused before applying anything, such
// as DynamoDB's throttling (ProvisionedThroughputExceededException,
// ThrottlingException, RequestLimitExceeded on one request): definitely
// not applied, whatever the call was.
type RejectedError struct {
	Code string // short machine code for the history
	Err  error
}

func (e *RejectedError) Error() string { return fmt.Sprintf("%s: %v", e.Code, e.Err) }
func (e *RejectedError) Unwrap() error { return e.Err }

// ReasonThrottlingError is DynamoDB's cancellation reason for an item whose
// write was throttled inside a transaction.
const ReasonThrottlingError = "ThrottlingError"

// Codes of the store errors chatseq injects (ADR-004 §10's "DynamoDB
// unavailable" and its kin).
const (
	// CodeThrottled: the call was throttled, refused before anything
	// was applied (*RejectedError).
	CodeThrottled = "store_throttled"
	// CodeInternalError: DynamoDB answered 500 InternalServerError; a
	// write may or may not have been applied (*UnknownOutcomeError).
	CodeInternalError = "store_internal_error"
)

// errInjected marks every injected store error.
var errInjected = errors.New("injected fault")

// Throttled is what a throttled call op returns.
func Throttled(op string) error {
	return &RejectedError{Code: CodeThrottled, Err: fmt.Errorf("%s: ThrottlingException (%w)", op, errInjected)}
}

// InternalError is what call op returns when DynamoDB fails it with a 500:
// the caller cannot know whether a write was applied.
func InternalError(op string) error {
	return &UnknownOutcomeError{Code: CodeInternalError, Err: fmt.Errorf("%s: InternalServerError (%w)", op, errInjected)}
}

// CanceledOther is a TransactWriteItems of n items cancelled for a reason
// other than a condition: another transaction held its last item
// (TransactionConflict). Nothing was written.
func CanceledOther(n int) *TransactionCanceledError {
	reasons := make([]string, max(n, 1))
	for i := range reasons {
		reasons[i] = ReasonNone
	}
	reasons[len(reasons)-1] = ReasonTransactionConflict
	return &TransactionCanceledError{Reasons: reasons}
}
