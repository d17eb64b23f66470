package httptarget

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/chatseq/chatseq/internal/redact"
)

// A Basic --header's credentials are hidden where a service echoes them
// decoded (a refusal naming who was refused), as a URL's are: an outside
// tester's service answering "bad credentials alice:hunter2" showed them.
// The padding may be left out and the scheme's case is any; the user
// alone, as a URL's beside its password, is no credential.
func TestSecretHeaderHidesDecodedBasicCredentials(t *testing.T) {
	h := http.Header{}
	h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("b4sic-user:b4sic/pw+5e1f")))
	h.Set("Proxy-Authorization", "basic "+base64.RawStdEncoding.EncodeToString([]byte("pr0xy-user:pr0xy-pw-77a")))
	h.Set("X-Odd", "Basic not/base64!")
	secretHeader(h)
	for in, want := range map[string]string{
		`{"message":"bad credentials b4sic-user:b4sic/pw+5e1f"}`:   `{"message":"bad credentials ***"}`,
		`{"message":"bad password b4sic\/pw+5e1f for b4sic-user"}`: `{"message":"bad password *** for b4sic-user"}`,
		"GET /v1/x?pw=b4sic%2Fpw%2B5e1f":                           "GET /v1/x?pw=***",
		"proxy refused pr0xy-user:pr0xy-pw-77a":                    "proxy refused ***",
		"proxy refused pr0xy-pw-77a":                               "proxy refused ***",
	} {
		if got := redact.Text(in); got != want {
			t.Errorf("Text(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}
