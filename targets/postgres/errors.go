package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chatseq/chatseq/sequencer"
)

// Error codes this target adds to the history's vocabulary.
const (
	// CodeDBUnavailable: the database refused or dropped the connection
	// before the send could have taken effect.
	CodeDBUnavailable = "db_unavailable"
	// CodeCommitUnacknowledged: COMMIT was sent but its answer never came;
	// the message may or may not be stored.
	CodeCommitUnacknowledged = "commit_unacknowledged"
	// CodeAllocateUnknown: the counter update was sent but its answer never
	// came; a sequence may have been consumed.
	CodeAllocateUnknown = "allocate_unknown"
	// CodeSequenceCollision: UNIQUE(conversation_id, sequence) rejected the
	// message on every retry of step 2.
	CodeSequenceCollision = "sequence_collision"
)

// Constraint names PostgreSQL gives the schema's unique indexes.
const (
	constraintMessageSequence = "messages_conversation_id_sequence_key"
	constraintIdempotencyKey  = "idempotency_keys_pkey"
)

// notSent reports whether err came before the statement reached the server,
// so the statement had no effect: the scheduled refusal, a failure pgconn
// knows happened before sending, or no connection at all.
func notSent(err error) bool {
	var connectErr *pgconn.ConnectError
	return errors.Is(err, errDBDown) || pgconn.SafeToRetry(err) || errors.As(err, &connectErr)
}

// serverRejected reports whether the server answered with an error (the
// statement ran and failed; its transaction will not commit).
func serverRejected(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}

// serverShuttingDown reports a server error that ends the session rather
// than answering the statement: FATAL or PANIC severity, operator
// intervention (class 57: admin shutdown, crash of another backend) or a
// connection exception (class 08).
func serverShuttingDown(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Severity == "FATAL" || pgErr.Severity == "PANIC" ||
		strings.HasPrefix(pgErr.Code, "57") || strings.HasPrefix(pgErr.Code, "08")
}

// uniqueViolation returns the constraint a unique violation names, or "".
func uniqueViolation(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return pgErr.ConstraintName
	}
	return ""
}

// failBeforeCommit classifies an error met before COMMIT was sent: the
// transaction cannot have committed, so the send definitely had no effect.
func failBeforeCommit(err error) error {
	if notSent(err) {
		return &sequencer.Error{Code: CodeDBUnavailable, Definite: true, Err: err}
	}
	return &sequencer.Error{Code: sequencer.CodeStoreError, Definite: true, Err: err}
}

// failAtCommit classifies an error of COMMIT itself. openBefore says the
// connection was open when COMMIT started, so COMMIT may have left: then
// only the server's own answer is definite. pgx (v5.12) reports an answer
// lost after COMMIT left as "conn closed", which pgconn.SafeToRetry calls
// safe: MultiResultReader.NextResult drops the read error and the next
// read finds the connection it closed. A lost answer leaves the outcome
// unknown.
func failAtCommit(err error, openBefore bool) error {
	switch {
	case serverShuttingDown(err):
		// The server is going down (a crash, an immediate shutdown): it
		// may have made the commit durable before it stopped answering.
		return &sequencer.Error{Code: CodeCommitUnacknowledged, Err: err}
	case serverRejected(err):
		return &sequencer.Error{Code: sequencer.CodeStoreError, Definite: true, Err: err}
	case notSent(err) && !openBefore:
		return &sequencer.Error{Code: CodeDBUnavailable, Definite: true, Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &sequencer.Error{Code: "timeout", Err: err}
	}
	return &sequencer.Error{Code: CodeCommitUnacknowledged, Err: err}
}

// commitTx sends COMMIT and classifies its failure.
func commitTx(ctx context.Context, tx pgx.Tx) error {
	openBefore := !tx.Conn().PgConn().IsClosed()
	if err := tx.Commit(ctx); err != nil {
		return failAtCommit(err, openBefore)
	}
	return nil
}

// failAllocate classifies an error of the autocommit counter update: the
// send certainly stored no message, but if the update may have run, a
// sequence may be gone untraced, which only an unknown outcome explains.
func failAllocate(err error) error {
	if notSent(err) {
		return &sequencer.Error{Code: CodeDBUnavailable, Definite: true, Err: err}
	}
	if serverRejected(err) && !serverShuttingDown(err) {
		return &sequencer.Error{Code: sequencer.CodeStoreError, Definite: true, Err: err}
	}
	return &sequencer.Error{Code: CodeAllocateUnknown, Err: err}
}

// failRead classifies an error of a read: it changed nothing.
func failRead(err error) error {
	if notSent(err) {
		return &sequencer.Error{Code: CodeDBUnavailable, Definite: true, Err: err}
	}
	return &sequencer.Error{Code: sequencer.CodeStoreError, Definite: true, Err: err}
}
