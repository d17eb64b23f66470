package httptarget

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
)

var jsonFieldCases = []struct{ body, path string }{
	{`{"sequence":12,"message_id":"m1"}`, "sequence"},
	{`{"sequence":12,"message_id":"m1"}`, "message_id"},
	{` {"a" : {"b": [1, {"c": "}"}], "seq": "7"} } `, "a.seq"},
	{`{"a":{"b":[1,{"c":"}"}],"seq":"7"}}`, "a.b"},
	{`{"a":{"seq":1}}`, "a.seq.x"},
	{`{"seq":1,"seq":2}`, "seq"},
	{`{"s\u0065q":3}`, "seq"},
	{`{"id":"a\"b\\c\u00e9"}`, "id"},
	{`{"id":12.5}`, "id"},
	{`{"id":-3}`, "id"},
	{`{"id":1e3}`, "id"},
	{`{"id":null}`, "id"},
	{`{"id":true}`, "id"},
	{`{"id":{}}`, "id"},
	{`{"x":"\\"}`, "x"},
	{`{}`, "seq"},
	{`[]`, "seq"},
	{`42`, ""},
	{`"42"`, ""},
	{`{"seq":1`, "seq"},
	{`{"seq":1} trailing`, "seq"},
	{``, "seq"},
	{`not json`, ""},
	{`{"seq":18446744073709551615}`, "seq"},
	{`{"seq":18446744073709551616}`, "seq"},
}

// The scan reads what decoding the body whole and walking it read: the
// same fields found, the same sequences and ids.
func TestJSONFieldAgreesWithDecode(t *testing.T) {
	for _, c := range jsonFieldCases {
		checkJSONField(t, []byte(c.body), c.path)
	}
}

func FuzzJSONField(f *testing.F) {
	for _, c := range jsonFieldCases {
		f.Add(c.body, c.path)
	}
	f.Fuzz(func(t *testing.T, body, path string) { checkJSONField(t, []byte(body), path) })
}

func checkJSONField(t *testing.T, body []byte, path string) {
	t.Helper()
	raw, ok := jsonField(body, path)
	var want any
	doc, okDoc := decode(body)
	wantOK := false
	if okDoc {
		want, wantOK = walk(doc, path)
	}
	if ok != wantOK {
		t.Fatalf("%q at %q: found %v, decoding found %v", body, path, ok, wantOK)
	}
	if !ok {
		return
	}
	if got, w := rawString(raw), stringOf(want); got != w {
		t.Errorf("%q at %q: string %q, decoded %q", body, path, got, w)
	}
	gotN, gotOK := rawUint(raw)
	wantN, wantNOK := uintOf(want)
	if gotN != wantN || gotOK != wantNOK {
		t.Errorf("%q at %q: sequence %d %v, decoded %d %v", body, path, gotN, gotOK, wantN, wantNOK)
	}
}

// A send's body is what marshalling its fields as a map gave: a field
// the mapping names twice (the key and the chat in one field, say)
// holds the later value.
func TestSendBodyAsTheMapWas(t *testing.T) {
	f := sendFields{{"sender", "u\"1"}, {"content", "héllo\n"}}
	f = f.with("chat", "c1").with("sender", "u2")
	var got map[string]any
	if err := json.Unmarshal(f.appendJSON(nil), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"sender": "u2", "content": "héllo\n", "chat": "c1"}
	if len(got) != len(want) {
		t.Fatalf("body %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("body %v, want %v", got, want)
		}
	}
}

// A send's garbage collects inside the run's latency: reflection for the
// body and decoding the answer into maps were 30 of a send's 75
// allocations, which kept the collector busier than vegeta's sends.
// Counted, not timed.
func TestASendAllocatesLittle(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:8480")
	c := newClient(base, DefaultAPI(), defaultSettings(), 4, cannedRT{})
	c.retry = statusRetry{attempts: 1}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.Persist(context.Background(), testSend, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 55 {
		t.Errorf("a send allocates %.0f times; at most 55 expected", allocs)
	}
}
