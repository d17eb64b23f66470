package checker

import "github.com/chatseq/chatseq/checker/online"

// OnlineInvariants are the invariants the online check judges while the
// run goes (package checker/online): those a pair of operations proves
// broken the moment the second completes. Every other invariant is judged
// after the run only (INVARIANTS.md, "The online check", says why).
var OnlineInvariants = online.Invariants

// Violation is an invariant the online check found broken while the
// history was being written: the first counterexample, by the lines of
// the file the offline check reads.
type Violation = online.Violation

// Online judges, line by line in file order, the rules of
// OnlineInvariants that two operations alone break (online.Checker).
type Online = online.Checker

// NewOnline starts an online check; notify, if not nil, is called with
// each invariant's first violation as it is found (from the goroutine
// feeding the lines).
func NewOnline(notify func(Violation)) *Online { return online.New(notify) }
