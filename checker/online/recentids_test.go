package online

import "testing"

// BenchmarkRecentIDs is what a run's acks cost sequence_uniqueness's id
// half online: each ack a new id, as in a correct run, settled in
// batches as a run's are.
func BenchmarkRecentIDs(b *testing.B) {
	var r recentIDs
	for i := range b.N {
		if r.add(int32(i%64), uint64(i)*0xd6e8feb86659fd93+1, uint64(i), int32(i), 0) {
			if _, twice := r.settle(); twice {
				b.Fatal("a new id sighted twice")
			}
		}
	}
}
