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

// Final lines mostly repeat what acks said: the messages and idempotency
// tables list, in sequence order, the message ids and keys the run
// acknowledged. recentAcks remembers, per chat and sequence, the message
// id first acknowledged there and, per message id, the key of its ack, so
// that a final line finds both by index (checked against the strings)
// rather than by two look-ups in maps of millions of entries.
type recentAcks struct {
	base  []uint64   // by chat: the sequence at index 0 of bySeq
	bySeq [][]uint32 // by chat: message id acknowledged at base+i, 0 none
	keyOf []int32    // by message id: the key of its first ack, -1
}

// remember notes that an ack of chat acknowledged seq with mid for key.
func (r *recentAcks) remember(chat int32, seq uint64, mid uint32, key int32) {
	for int(chat) >= len(r.bySeq) {
		r.bySeq = append(r.bySeq, nil)
		r.base = append(r.base, 0)
	}
	for int(mid) >= len(r.keyOf) {
		r.keyOf = append(r.keyOf, -1)
	}
	if r.keyOf[mid] < 0 {
		r.keyOf[mid] = key
	}
	s := r.bySeq[chat]
	if len(s) == 0 {
		r.base[chat] = seq
	}
	if seq < r.base[chat] {
		return
	}
	i := seq - r.base[chat]
	// Sequences grow by about one per ack: a far jump (a corrupt or
	// hostile sequence) is left to the maps rather than allocated for.
	if i >= uint64(len(s)) {
		if i > uint64(2*len(s)+1024) {
			return
		}
		s = append(s, make([]uint32, int(i)+1-len(s))...)
		r.bySeq[chat] = s
	}
	if s[i] == 0 {
		s[i] = mid
	}
}

// finalMid is the interned id of a final line's message id s at chat and
// seq: the one acknowledged there if it is the same string.
func (l *Log) finalMid(chat int32, seq uint64, s string) uint32 {
	r := &l.acked
	if int(chat) < len(r.bySeq) && seq >= r.base[chat] {
		if i := seq - r.base[chat]; i < uint64(len(r.bySeq[chat])) {
			if id := r.bySeq[chat][i]; id != 0 && l.midNames[id] == s {
				return id
			}
		}
	}
	return l.mid(s)
}

// finalKey is the key id of a final line's key in chat, whose message id
// is mid: the key of mid's ack if it is the same string.
func (l *Log) finalKey(chat int32, key string, mid uint32) int32 {
	if r := &l.acked; int(mid) < len(r.keyOf) {
		if k := r.keyOf[mid]; k >= 0 && l.keyChat[k] == chat && l.keyNames[k] == key {
			return k
		}
	}
	return l.keyID(chat, key)
}
