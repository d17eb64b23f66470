package history

import (
	"bytes"
	"strings"
	"testing"
)

// A final messages line keeps the stored message's payload_hash (written
// only when known) and reads it back; an idempotency line carries none.
func TestAFinalMessageKeepsItsPayloadHash(t *testing.T) {
	var file bytes.Buffer
	rec, err := NewRecorder(&file, Header{Target: "memory"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.RecordFinals([]Final{
		{Table: TableMessages, Chat: "c", Seq: 1, MessageID: "m1", Key: "k1", PayloadHash: "9f3a"},
		{Table: TableMessages, Chat: "c", Seq: 2, MessageID: "m2", Key: "k2"},
		{Table: TableIdempotency, Chat: "c", Seq: 1, MessageID: "m1", Key: "k1", PayloadHash: "9f3a"},
	})
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	if n := strings.Count(file.String(), `"payload_hash":"9f3a"`); n != 1 {
		t.Fatalf("payload_hash written %d times, want once (the messages line):\n%s", n, file.String())
	}
	h, err := Read(&file, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range h.Finals {
		got = append(got, f.Table+":"+f.PayloadHash)
	}
	if want := "messages:9f3a messages: idempotency:"; strings.Join(got, " ") != want {
		t.Fatalf("read back %q, want %q", strings.Join(got, " "), want)
	}
}
