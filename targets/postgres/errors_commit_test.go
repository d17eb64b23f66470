package postgres

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/chatseq/chatseq/sequencer"
)

// A server that reads COMMIT and dies before it answers may have
// committed: the send's outcome is unknown. pgx reports this lost answer as
// "conn closed", an error pgconn.SafeToRetry calls safe; a definite fail
// here let the crash test's checker see a committed message no persist
// could explain.
func TestCommitWhoseAnswerIsLostIsUnknown(t *testing.T) {
	ctx := context.Background()
	tx := beginOnServerDyingAtCommit(t)
	var serr *sequencer.Error
	if err := commitTx(ctx, tx); !errors.As(err, &serr) || serr.Definite {
		t.Fatalf("COMMIT sent, answer lost: classified %+v (%v), want an unknown outcome", serr, err)
	}
	if serr.Code != CodeCommitUnacknowledged {
		t.Fatalf("COMMIT sent, answer lost: code %q, want %q", serr.Code, CodeCommitUnacknowledged)
	}
}

// A connection already closed when COMMIT is due never sends it: the
// transaction is lost, a definite fail.
func TestCommitOnAClosedConnectionIsDefinite(t *testing.T) {
	ctx := context.Background()
	tx := beginOnServerDyingAtCommit(t)
	if err := tx.Conn().PgConn().Close(ctx); err != nil {
		t.Fatalf("closing the connection: %v", err)
	}
	var serr *sequencer.Error
	if err := commitTx(ctx, tx); !errors.As(err, &serr) || !serr.Definite || serr.Code != CodeDBUnavailable {
		t.Fatalf("COMMIT on a closed connection: classified %+v (%v), want a definite %s", serr, err, CodeDBUnavailable)
	}
}

// safeToRetryErr is an error a driver calls safe to retry.
type safeToRetryErr struct{}

func (safeToRetryErr) Error() string     { return "conn closed" }
func (safeToRetryErr) SafeToRetry() bool { return true }

func TestCommitSafeToRetryIsDefiniteOnlyBeforeCommitLeft(t *testing.T) {
	var serr *sequencer.Error
	if !errors.As(failAtCommit(safeToRetryErr{}, true), &serr) || serr.Definite {
		t.Fatalf("safe to retry after COMMIT left: %+v, want an unknown outcome", serr)
	}
	if !errors.As(failAtCommit(safeToRetryErr{}, false), &serr) || !serr.Definite {
		t.Fatalf("safe to retry on a connection closed before COMMIT: %+v, want a definite fail", serr)
	}
}

// beginOnServerDyingAtCommit opens a transaction on a fake server that
// answers BEGIN and closes the connection when it reads COMMIT.
func beginOnServerDyingAtCommit(t *testing.T) pgx.Tx {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveUntilCommit(c)
		}
	}()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://chatseq@"+ln.Addr().String()+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatalf("connecting to the fake server: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatalf("BEGIN on the fake server: %v", err)
	}
	return tx
}

// serveUntilCommit speaks just enough of the protocol for a connection and
// a BEGIN, then takes COMMIT and dies without a word.
func serveUntilCommit(c net.Conn) {
	defer c.Close()
	be := pgproto3.NewBackend(c, c)
	if _, err := be.ReceiveStartupMessage(); err != nil {
		return
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if be.Flush() != nil {
		return
	}
	for {
		msg, err := be.Receive()
		if err != nil {
			return
		}
		q, ok := msg.(*pgproto3.Query)
		if !ok || strings.HasPrefix(strings.ToLower(q.String), "commit") {
			return
		}
		be.Send(&pgproto3.CommandComplete{CommandTag: []byte("BEGIN")})
		be.Send(&pgproto3.ReadyForQuery{TxStatus: 'T'})
		if be.Flush() != nil {
			return
		}
	}
}
