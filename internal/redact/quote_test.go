package redact

import (
	"strings"
	"testing"
)

// No piece of a secret shows in a quote, however long the secret and
// however often the text repeats it: a token of 702 bytes echoed twice
// was cut where the quoted head ended, and its first hundred bytes
// showed behind the first copy's Mask.
func TestQuoteShowsNoPieceOfASecret(t *testing.T) {
	for _, n := range []int{8, 90, 233, 700, 3000} {
		secret := "tok" + strings.Repeat("Zq9", n)
		Secret(secret)
		for copies := 1; copies <= 80; copies *= 3 {
			body := `{"error":"bad","seen":[` + strings.Repeat(`"`+secret+`",`, copies) + `"end"]}`
			for _, shown := range []int{20, 200} {
				q := Quote(body, shown)
				if strings.Contains(q, "Zq9Zq9") {
					t.Fatalf("a secret of %d bytes echoed %d times, %d shown: %s", len(secret), copies, shown, q)
				}
				if shown == 200 && !strings.Contains(q, Mask) { // the first copy begins within it
					t.Fatalf("a secret of %d bytes echoed %d times, %d shown: no mask in %s", len(secret), copies, shown, q)
				}
			}
		}
	}
	if got := Quote([]byte(nil), 10); got != "an empty body" {
		t.Errorf("empty: %q", got)
	}
	if got := Quote("plain answer", 5); got != `"plain"` {
		t.Errorf("plain: %q", got)
	}
}
