package history

import (
	"fmt"
	"hash/maphash"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history/internal/jsonscan"
)

// BenchmarkDecodeSyncLine decodes a sync's answer of 50 messages, the
// line that makes up most of a large history's bytes.
func BenchmarkDecodeSyncLine(b *testing.B) {
	var seqs, ids []string
	for i := range 50 {
		seqs = append(seqs, fmt.Sprint(1_000_000+3*i))
		ids = append(ids, fmt.Sprintf("%q", fmt.Sprintf("msg_01M8CWPCDJN5EHC10YTX%06d", i)))
	}
	line := []byte(`{"type":"ok","process":242,"f":"sync","time":1264567544,"chat":"chat-0000","seqs":[` +
		strings.Join(seqs, ",") + `],"message_ids":[` + strings.Join(ids, ",") + `]}`)
	seed := maphash.MakeSeed()
	var s jsonscan.Scanner
	var l parsedLine
	var v lineViews
	hashID := func(id []byte) uint64 { return maphash.Bytes(seed, id) }
	newString := func(v []byte) string { return string(v) }
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := decodeLine(&s, line, &l, &v, newString, hashID); err != nil {
			b.Fatal(err)
		}
		if len(l.seqs) != 50 || len(l.idHashes) != 50 {
			b.Fatalf("decoded %d seqs and %d ids", len(l.seqs), len(l.idHashes))
		}
	}
}
