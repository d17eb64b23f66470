package httpapi

import (
	"net/http"
	"strings"

	"github.com/chatseq/chatseq/sequencer"
)

// codeKeyReused is the sequencer's code for a key reused with other
// content under the reject contract (the ledger's).
const codeKeyReused = "idempotency_key_reused"

// retryAfterSeconds is what a 503 asks a client to wait.
const retryAfterSeconds = "1"

// writePersistError answers a failed send by what the client may conclude:
// a definite failure is a 4xx or a 503 (nothing was written, retry later);
// an unknown outcome is a 500; a crash of the server drops the connection
// with no answer at all, as a crashed process would.
func writePersistError(w http.ResponseWriter, err error) {
	e := sequencer.AsError(err)
	switch {
	case strings.HasPrefix(e.Code, "crash_"):
		// net/http closes the connection without a response and logs
		// nothing for this panic.
		panic(http.ErrAbortHandler)
	case e.Code == sequencer.CodeNotAMember:
		writeError(w, http.StatusForbidden, CodeNotAMember, e.Error(), e.Code)
	case e.Code == codeKeyReused:
		writeError(w, http.StatusConflict, CodePayloadMismatch, "the Idempotency-Key was used with another payload", e.Code)
	case e.Definite:
		w.Header().Set(HeaderRetryAfter, retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, CodeUnavailable, e.Error(), e.Code)
	default:
		writeError(w, http.StatusInternalServerError, CodeUnknownOutcome, e.Error(), e.Code)
	}
}

// writeUnavailable answers a failed read or set-up call: nothing changed.
func writeUnavailable(w http.ResponseWriter, err error) {
	e := sequencer.AsError(err)
	w.Header().Set(HeaderRetryAfter, retryAfterSeconds)
	writeError(w, http.StatusServiceUnavailable, CodeUnavailable, err.Error(), e.Code)
}
