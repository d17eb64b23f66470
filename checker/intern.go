package checker

// Keys and message ids are numbered by their 64-bit hash, each hit checked
// against the kept string, so that two strings never share a number: a
// uint64-keyed map costs a fraction of a string-keyed one per look-up (no
// hashing inside the map, one string compare), and these look-ups were most
// of a million-key history's ingest. Strings whose hash another string
// already holds (odds of about n²/2⁶⁵) go to an exact map.

// collisionKey is scope and s as one exact map key.
func collisionKey(scope int32, s string) string {
	return string([]byte{byte(scope >> 24), byte(scope >> 16), byte(scope >> 8), byte(scope)}) + s
}

// scopedHash mixes a chat into a key's hash.
func scopedHash(scope int32, s string) uint64 {
	return stringHash(s) ^ (uint64(uint32(scope)) * 0x9E3779B97F4A7C15)
}

// keyID numbers scoped keys densely. Keys are scoped per chat, as ADR-004's
// idempotency table is keyed (scopeOf is the seam for per-sender scoping).
func (l *Log) keyID(chat int32, key string) int32 {
	h := scopedHash(chat, key)
	id, hit := l.keyByHash[h]
	if hit && l.keyChat[id] == chat && l.keyNames[id] == key {
		return id
	}
	if hit { // another key holds this hash
		ck := collisionKey(chat, key)
		if id, ok := l.keyCollided[ck]; ok {
			return id
		}
		if l.keyCollided == nil {
			l.keyCollided = map[string]int32{}
		}
		id = l.newKey(chat, key)
		l.keyCollided[ck] = id
		return id
	}
	id = l.newKey(chat, key)
	l.keyByHash[h] = id
	return id
}

func (l *Log) newKey(chat int32, key string) int32 {
	id := int32(len(l.keyNames))
	l.keyNames = append(l.keyNames, l.names.string(key))
	l.keyChat = append(l.keyChat, chat)
	return id
}

// mid interns a message id (0 is "none") and keeps its hash, which sync
// answers are compared by.
func (l *Log) mid(s string) uint32 {
	if s == "" {
		return 0
	}
	h := stringHash(s)
	id, hit := l.midByHash[h]
	if hit && l.midNames[id] == s {
		return id
	}
	if hit {
		if id, ok := l.midCollided[s]; ok {
			return id
		}
		if l.midCollided == nil {
			l.midCollided = map[string]uint32{}
		}
		id = l.newMid(s, h)
		l.midCollided[l.midNames[id]] = id
		return id
	}
	id = l.newMid(s, h)
	l.midByHash[h] = id
	return id
}

func (l *Log) newMid(s string, h uint64) uint32 {
	id := uint32(len(l.midNames))
	l.midNames = append(l.midNames, l.names.string(s))
	l.midHash = append(l.midHash, h)
	return id
}
