package postgres

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chatseq/chatseq/sequencer"
)

// A COMMIT answered by a server going down may have committed: unknown,
// never a definite fail; a COMMIT the server refused did not.
func TestCommitErrorsOfAServerGoingDown(t *testing.T) {
	for _, pg := range []*pgconn.PgError{
		{Severity: "FATAL", Code: "57P01"}, // admin shutdown
		{Severity: "FATAL", Code: "57P02"}, // crash of another backend
		{Severity: "ERROR", Code: "08006"}, // connection failure
	} {
		var serr *sequencer.Error
		if !errors.As(failAtCommit(pg, true), &serr) || serr.Definite {
			t.Fatalf("%s %s at COMMIT classified %+v, want an unknown outcome", pg.Severity, pg.Code, serr)
		}
	}
	// The autocommit counter update likewise may have run.
	var alloc *sequencer.Error
	if !errors.As(failAllocate(&pgconn.PgError{Severity: "FATAL", Code: "57P01"}), &alloc) || alloc.Definite {
		t.Fatalf("admin shutdown at the counter update classified %+v, want an unknown outcome", alloc)
	}
	var serr *sequencer.Error
	if !errors.As(failAtCommit(&pgconn.PgError{Severity: "ERROR", Code: "40001"}, true), &serr) || !serr.Definite {
		t.Fatalf("a serialization failure at COMMIT classified %+v, want a definite fail", serr)
	}
}
