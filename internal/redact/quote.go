package redact

import "fmt"

// Quote is s quoted for a message: its first shown characters, every
// credential hidden first (Text); "an empty body" when s is empty. The
// caller says how much more there was. An answer or a refusal is quoted
// this way wherever chatseq shows one.
//
// Only a head of s is read, as a service's answer may be megabytes, but
// one long enough that no secret is cut in it within what is shown: a
// token echoed twice, its second copy cut where the head ended, showed
// its first hundred bytes behind the first copy's Mask.
func Quote[T ~string | ~[]byte](s T, shown int) string {
	if len(s) == 0 {
		return "an empty body"
	}
	return fmt.Sprintf("%.*q", shown, Text(string(s[:min(len(s), quoteHead(shown))])))
}

// quoteHead is how much of a text Quote reads to show shown characters.
// Those are at most shown runes of four bytes, or Masks standing for
// whole secrets: a secret that begins within them ends within this.
func quoteHead(shown int) int {
	secrets.RLock()
	longest := 0
	if len(secrets.values) > 0 {
		longest = len(secrets.values[0]) // longest first
	}
	secrets.RUnlock()
	return 4*shown + (shown/len(Mask)+2)*longest
}
