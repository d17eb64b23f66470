package history

import (
	"bytes"
	"strings"
	"testing"
)

// The reader marker and the two contract fields added for catch-up
// completeness and per-chat event order: what the recorder writes, the
// reader returns, and the reader refuses values outside the format.
func TestReaderSyncAndFindingContractRoundTrip(t *testing.T) {
	var out bytes.Buffer
	rec, err := NewRecorder(&out, Header{Contract: Contract{
		Gaps: GapsAllowed, CatchUp: CatchUpCursor, EventOrder: EventOrderPerChat,
	}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{Kind: KindInvoke, Process: 9, F: FSync, Chat: "c1", After: 4, Limit: 50, Reader: true},
		{Kind: KindOK, Process: 9, F: FSync, Chat: "c1", Sync: &SyncResult{Seqs: []uint64{6}, MessageIDs: []string{"m6"}}},
		{Kind: KindInvoke, Process: 2, F: FSync, Chat: "c1", After: 1, Limit: 50},
		{Kind: KindOK, Process: 2, F: FSync, Chat: "c1", Sync: &SyncResult{}},
	}
	for i := range events {
		rec.Record(&events[i])
	}
	if err := rec.End(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	first, _, _ := strings.Cut(text, "\n")
	if want := `"contract":{"gaps":"allowed","catch_up":"cursor","event_order":"per-chat"}`; !strings.Contains(first, want) {
		t.Errorf("header %s lacks %s", first, want)
	}
	if n := strings.Count(text, `"reader":true`); n != 1 {
		t.Errorf("%d reader markers written, want exactly the reader's one:\n%s", n, text)
	}
	h, err := Read(strings.NewReader(text), "rt.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if c := h.Header.Contract; c.CatchUp != CatchUpCursor || c.EventOrder != EventOrderPerChat || c.Gaps != GapsAllowed {
		t.Errorf("contract read back as %+v", c)
	}
	if !h.Events[0].Reader || h.Events[2].Reader {
		t.Errorf("reader flags read back as %v and %v, want true and false", h.Events[0].Reader, h.Events[2].Reader)
	}
	if len(h.Warnings) != 0 {
		t.Errorf("warnings: %v", h.Warnings)
	}
}

func TestFindingContractAndReaderErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"bad catch_up", `{"format":"chatseq-history","version":1,"contract":{"catch_up":"snapshot"}}`, `"contract.catch_up" must be "cursor" or "none", got "snapshot"`},
		{"bad event_order", `{"format":"chatseq-history","version":1,"contract":{"event_order":"total"}}`, `"contract.event_order" must be "per-chat" or "none", got "total"`},
		{"reader not a bool", `{"format":"chatseq-history","version":1}` + "\n" +
			`{"type":"invoke","process":1,"f":"sync","time":1,"chat":"c","after":0,"limit":1,"reader":"yes"}`, `"reader"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in+"\n"), "bad.jsonl")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %s", err, c.want)
			}
		})
	}
	// On a line whose kind does not carry it, "reader" is ignored with a
	// warning, like any field the kind does not carry.
	in := `{"format":"chatseq-history","version":1}` + "\n" +
		`{"type":"invoke","process":1,"f":"persist","time":1,"chat":"c","key":"k","reader":true}` + "\n"
	h, err := Read(strings.NewReader(in), "w.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0].Message, "reader") || h.Events[0].Reader {
		t.Errorf("persist with reader: warnings %v, flag %v", h.Warnings, h.Events[0].Reader)
	}
	// A recorder refuses a contract value the format does not define.
	if _, err := NewRecorder(&bytes.Buffer{}, Header{Contract: Contract{EventOrder: "total"}}, 0); err == nil {
		t.Error("a recorder accepted event_order \"total\"")
	}
}

func TestMergeFindingContracts(t *testing.T) {
	both := Contract{CatchUp: CatchUpCursor, EventOrder: EventOrderPerChat}
	c, err := both.agree(both)
	if err != nil || c != both {
		t.Fatalf("merged %+v, %v", c, err)
	}
	if _, err := (Contract{CatchUp: CatchUpCursor}).agree(Contract{EventOrder: EventOrderPerChat}); err == nil ||
		!strings.Contains(err.Error(), "catch_up cursor vs not stated, event_order not stated vs per-chat") {
		t.Fatalf("fields each stated by one file merged: %v", err)
	}
	if _, err := (Contract{EventOrder: EventOrderNone}).agree(Contract{EventOrder: EventOrderPerChat}); err == nil || !strings.Contains(err.Error(), "event_order") {
		t.Fatalf("different event_order merged: %v", err)
	}
}

func TestClaimsRoundTripThroughTheHeader(t *testing.T) {
	claims := map[string]string{"event_order": `The design promises "strict order" (§5)`, "catch_up_completeness": "no lost messages"}
	var out bytes.Buffer
	rec, err := NewRecorder(&out, Header{Extra: map[string]string{ClaimsField: EncodeClaims(claims)}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := Read(strings.NewReader(out.String()), "c.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeClaims(h.Header.Extra[ClaimsField])
	if err != nil || len(got) != 2 || got["event_order"] != claims["event_order"] {
		t.Fatalf("claims read back as %v, %v", got, err)
	}
	if _, err := DecodeClaims(`["not","an","object"]`); err == nil {
		t.Fatal("an array was accepted as claims")
	}
}
