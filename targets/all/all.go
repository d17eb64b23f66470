// Package all registers the targets beyond ADR-004's core, for their
// init side effects: a blank import of it makes --target postgres and
// --target ledger known to the command line.
package all

import (
	// Any service that speaks chatseq's HTTP API, driven from outside.
	_ "github.com/chatseq/chatseq/targets/httptarget"
	// The Raft ledger with apply-time sequences.
	_ "github.com/chatseq/chatseq/targets/ledger"
	// The Message Service design: PostgreSQL with a transactional outbox.
	_ "github.com/chatseq/chatseq/targets/postgres"
)
