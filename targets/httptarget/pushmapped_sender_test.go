package httptarget

import (
	"encoding/json"
	"strings"
	"testing"
)

// A message of a mapped push frame without the sender its mapping names
// is a breach: one read as "not said" was never compared, so a channel
// that dropped the sender passed identical_order.
func TestAMappedPushMessageNeedsTheSenderItsMappingNames(t *testing.T) {
	c := &mappedConn{spec: &DefaultAPI().Push}
	for _, tc := range []struct {
		message string
		ok      bool
	}{
		{`{"chat_id":"c","sequence":1,"message_id":"m","sender_id":"u1","content":"x"}`, true},
		{`{"chat_id":"c","sequence":1,"message_id":"m","content":"x"}`, false},
		{`{"chat_id":"c","sequence":1,"message_id":"m","sender_id":"","content":"x"}`, false},
		{`{"chat_id":"c","sequence":1,"message_id":"m","sender_id":{},"content":"x"}`, false},
	} {
		dec := json.NewDecoder(strings.NewReader(tc.message))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		m, err := c.message(v)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %+v, %v; want ok %v", tc.message, m, err, tc.ok)
		}
		if err == nil && m.SenderID != "u1" {
			t.Errorf("%s: sender %q", tc.message, m.SenderID)
		}
	}
}
