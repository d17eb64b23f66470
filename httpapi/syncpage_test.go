package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The hand-written message encoding reads back, through encoding/json and
// Message's json tags, as the message written: every field, under its
// tag's name, whatever its strings hold.
func TestAMessageEncodesAsItsJSONTagsName(t *testing.T) {
	for _, m := range []Message{
		{},
		{Sequence: 1<<64 - 1, MessageID: "m1", ClientMessageID: "k1", SenderID: "u", Content: "hello"},
		{Sequence: 7, MessageID: `q"uo\te`, ClientMessageID: "tab\tnl\n\x00\x1f", SenderID: "<&>", Content: "ünïcødé \u2028 \U0001F600"},
	} {
		encoded := appendMessageJSON(nil, m)
		dec := json.NewDecoder(bytes.NewReader(encoded))
		dec.DisallowUnknownFields()
		var got Message
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v", encoded, err)
		}
		if got != m {
			t.Errorf("%s reads back as %+v, want %+v", encoded, got, m)
		}
		var fields map[string]any
		if err := json.Unmarshal(encoded, &fields); err != nil {
			t.Fatal(err)
		}
		if want := reflect.TypeOf(m).NumField(); len(fields) != want {
			t.Errorf("%s has %d fields, Message has %d", encoded, len(fields), want)
		}
	}
}
