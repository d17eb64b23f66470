// Package columns holds the checker's containers for a history too large
// to keep as Go values: records in blocks that never move (Chunked, and
// Grouped, which keeps each group's records together; Slab for runs),
// names in an arena (NameArena), sequences delta-coded (AppendSeqs) and
// ranked by a table (SeqRanks), and the sort and search over them
// (RadixSortRange, SearchFrom).
package columns
