package target

// PayloadHash is what chatseq's clients send as a message's payload_hash
// and record for what a read or a push said a message carried: FNV-1a of
// its content, in lower-case hexadecimal. One function for all, so a
// message read back hashes as it was sent.
func PayloadHash(content string) string { return string(AppendPayloadHash(nil, content)) }

// AppendPayloadHash appends content's PayloadHash to b.
func AppendPayloadHash[T string | []byte](b []byte, content T) []byte {
	return appendHex(b, fnv1a(content))
}

// appendHex appends v in lower-case hexadecimal without leading zeros, as
// strconv.AppendUint(b, v, 16) does at a third of its cost (it divides).
func appendHex(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	var hex [16]byte
	i := len(hex)
	for {
		i--
		hex[i] = digits[v&0xF]
		if v >>= 4; v == 0 {
			return append(b, hex[i:]...)
		}
	}
}

// fnv1a is FNV-1a, computed in place (hash.Hash would copy the string on
// every persist).
func fnv1a[T string | []byte](content T) uint64 {
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for i := 0; i < len(content); i++ {
		h ^= uint64(content[i])
		h *= prime64
	}
	return h
}
