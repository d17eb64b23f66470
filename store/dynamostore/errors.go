package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/chatseq/chatseq/store"
)

// Codes of *store.UnknownOutcomeError returned by this store.
const (
	CodeThrottled             = "throttled"
	CodeTimeout               = "timeout"
	CodeCanceled              = "canceled"
	CodeServerError           = "server_error"
	CodeTransactionInProgress = "transaction_in_progress"
	CodeConnection            = "connection"
)

// codeTransactionConflict: a single-item write refused because a transaction
// holds the item.
const codeTransactionConflict = "TransactionConflictException"

var throttlingCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
	"Throttling":                             true,
	"TooManyRequestsException":               true,
}

var serverErrorCodes = map[string]bool{
	"InternalServerError": true,
	"InternalFailure":     true,
	"ServiceUnavailable":  true,
}

// classify turns an SDK error into what the sequencing core needs to know:
// *store.UnknownOutcomeError when the write may or may not have been applied,
// otherwise a definite error (the call certainly changed nothing). op names
// the call for the message. Condition failures are mapped by the callers,
// which know what the condition meant.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	wrapped := fmt.Errorf("dynamostore: %s: %w", op, err)
	if code := unknownOutcomeCode(err); code != "" {
		return &store.UnknownOutcomeError{Code: code, Err: wrapped}
	}
	return wrapped
}

// unknownOutcomeCode returns the UnknownOutcomeError code for err, or "" if
// err is definite.
func unknownOutcomeCode(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return CodeTimeout
	}
	if errors.Is(err, context.Canceled) {
		// The request may have reached DynamoDB before the caller gave up.
		return CodeCanceled
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code := apiErr.ErrorCode()
		switch {
		case throttlingCodes[code]:
			// The throttled attempt itself applied nothing, but it may be
			// the SDK's retry of an earlier attempt whose outcome was never
			// learned (a TransactWriteItems after a 5xx), so the call as a
			// whole is not definitely failed.
			return CodeThrottled
		case code == "TransactionInProgressException":
			return CodeTransactionInProgress
		case serverErrorCodes[code] || apiErr.ErrorFault() == smithy.FaultServer:
			return CodeServerError
		}
	}
	var respErr *smithyhttp.ResponseError
	if errors.As(err, &respErr) && respErr.HTTPStatusCode() >= 500 {
		return CodeServerError
	}
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return CodeTimeout
	}
	var sendErr *smithyhttp.RequestSendError
	if errors.As(err, &sendErr) && !neverSent(err) {
		// The connection broke after the request may have been written.
		return CodeConnection
	}
	return ""
}

// neverSent reports a transport failure before any byte of the request left,
// such as a refused connection.
func neverSent(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// notApplied reports errors after which DynamoDB certainly did not apply the
// request: throttling rejections, a conflicting transaction on the item, and
// connections that never opened.
func notApplied(err error) bool {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code := apiErr.ErrorCode()
		return throttlingCodes[code] || code == codeTransactionConflict
	}
	return neverSent(err)
}

// retryOnlyNotApplied limits the SDK's retries for one non-idempotent call
// (ADD on the counter, a conditional put) to attempts that certainly changed
// nothing. Retrying after a timeout could apply the write twice: a hidden
// allocation the history could not explain, or a condition failing on the
// call's own earlier write.
func retryOnlyNotApplied(o *dynamodb.Options) {
	inner, ok := o.Retryer.(aws.RetryerV2)
	if !ok {
		o.Retryer = aws.NopRetryer{}
		return
	}
	o.Retryer = notAppliedRetryer{inner}
}

type notAppliedRetryer struct{ aws.RetryerV2 }

func (r notAppliedRetryer) IsErrorRetryable(err error) bool {
	return notApplied(err) && r.RetryerV2.IsErrorRetryable(err)
}

// isConditionFailed reports a single-item ConditionalCheckFailedException.
func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// cancellation decodes a TransactionCanceledException into one reason per
// item, in request order.
func cancellation(err error, items int) (*store.TransactionCanceledError, bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false
	}
	reasons := make([]string, items)
	for i := range reasons {
		reasons[i] = store.ReasonNone
		if i < len(tce.CancellationReasons) {
			if c := aws.ToString(tce.CancellationReasons[i].Code); c != "" {
				reasons[i] = c
			}
		}
	}
	return &store.TransactionCanceledError{Reasons: reasons}, true
}
