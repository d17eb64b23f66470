package checker

import "strconv"

// quotedApart quotes two strings a message names side by side as %q
// does, unless they differ and either holds a byte outside ASCII: then
// escaped to ASCII, so that two a terminal draws alike (keys differing
// only in Unicode normalization, "é" against "e\u0301") show where they
// differ.
func quotedApart(a, b string) (string, string) {
	if a != b && (!isASCII(a) || !isASCII(b)) {
		return strconv.QuoteToASCII(a), strconv.QuoteToASCII(b)
	}
	return strconv.Quote(a), strconv.Quote(b)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
