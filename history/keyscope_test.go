package history

import (
	"bytes"
	"strings"
	"testing"
)

// key_scope in the contract and the optional sender of final messages and
// idempotency lines: written, read back, and refused outside the format.
func TestKeyScopeAndFinalSenderRoundTrip(t *testing.T) {
	var out bytes.Buffer
	rec, err := NewRecorder(&out, Header{Contract: Contract{KeyScope: KeyScopeClient}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec.RecordFinals([]Final{
		{Table: TableMessages, Chat: "c", Seq: 1, MessageID: "m1", Key: "k", Sender: "u1"},
		{Table: TableMessages, Chat: "c", Seq: 2, MessageID: "m2", Key: "k"},
		{Table: TableIdempotency, Chat: "c", Seq: 1, MessageID: "m1", Key: "k", Sender: "u1"},
	})
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, `"contract":{"key_scope":"client"}`) {
		t.Errorf("no key_scope in:\n%s", text)
	}
	if n := strings.Count(text, `"sender":"u1"`); n != 2 {
		t.Errorf("%d senders written, want 2:\n%s", n, text)
	}
	h, err := Read(strings.NewReader(text), "ks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if h.Header.Contract.KeyScope != KeyScopeClient {
		t.Errorf("key_scope read back as %q", h.Header.Contract.KeyScope)
	}
	if len(h.Finals) != 3 || h.Finals[0].Sender != "u1" || h.Finals[1].Sender != "" || h.Finals[2].Sender != "u1" {
		t.Errorf("finals read back as %+v", h.Finals)
	}
	if len(h.Warnings) != 0 {
		t.Errorf("warnings: %v", h.Warnings)
	}

	_, err = Read(strings.NewReader(`{"format":"chatseq-history","version":1,"contract":{"key_scope":"user"}}`+"\n"), "bad.jsonl")
	if want := `"contract.key_scope" must be "chat", "client" or "sender", got "user"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %s", err, want)
	}
	if _, err := NewRecorder(&bytes.Buffer{}, Header{Contract: Contract{KeyScope: "user"}}, 0); err == nil {
		t.Error("a recorder accepted key_scope \"user\"")
	}
	if _, err := (Contract{KeyScope: KeyScopeChat}).agree(Contract{KeyScope: KeyScopeClient}); err == nil || !strings.Contains(err.Error(), "key_scope") {
		t.Errorf("different key_scope merged: %v", err)
	}
	// A counters line does not carry a sender: ignored with a warning.
	h, err = Read(strings.NewReader(`{"format":"chatseq-history","version":1}`+"\n"+`{"type":"final","table":"counters","chat":"c","value":1,"sender":"u1"}`+"\n"), "w.jsonl")
	if err != nil || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0].Message, "sender") {
		t.Errorf("counters with sender: %v, %v", err, h.Warnings)
	}
}
