// Package store holds a history as a check reads it, so that the
// invariants (package checker) read records, not lines:
//
//   - the Log takes the history's lines one at a time into compact records
//     (ingest.go, intern.go; the receivers' lines into a Delivery,
//     logdelivery.go);
//   - the Index sorts them into the views every invariant shares
//     (index.go, viewsort.go) and answers the questions several invariants
//     ask of them: a chat's final counter and persisted messages, the
//     final lines of a key, the sorted views' cursors, the operations'
//     stats (finalstate.go, persisted.go, finallines.go, seqcursor.go,
//     acks.go, stats.go, deliveryview.go);
//   - a chat's linearizability model for checker/linearize (chatmodel.go)
//     and the order sweep allocation_monotonicity and sequence_monotonic
//     decide by (sweep.go);
//   - StringHash stands for a message id everywhere in a check (hash.go).
package store
