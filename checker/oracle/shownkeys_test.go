package oracle

import "fmt"

// What the syncs show of a message's key, read from FORMAT.md's text
// (the sync ok's keys, idempotency_guarantee, fail_has_no_effect): a key,
// as key_scope scopes it, holds one message however it is read, and a
// persist that ended fail took no effect, so no read shows its key above
// initial_counter. Under key_scope client a shown key without its sender
// names no key.

// shownKey is the key a sync shows returned message i carrying.
func (s *spec) shownKey(y *operation, i int) (keyRef, bool) {
	key, sender := at(y.shownKeys, i), at(y.shownSenders, i)
	if key == "" || s.clientScope && sender == "" {
		return keyRef{}, false
	}
	return s.scoped(key, sender), true
}

// shownKeysHoldOne: a shown key holds the message its ok answers, its
// final messages line, or another sync give it.
func (s *spec) shownKeysHoldOne(chat string, ops []operation) string {
	type msg struct {
		seq uint64
		mid string
	}
	held := map[string]msg{}
	hold := func(k keyRef, m msg, what string) string {
		if h, ok := held[k.id()]; ok && h != m {
			return fmt.Sprintf("idempotency_guarantee: key %q holds seq %d %q, and %s shows seq %d %q", k.raw, h.seq, h.mid, what, m.seq, m.mid)
		}
		held[k.id()] = m
		return ""
	}
	for _, op := range ops {
		if op.kind == persistOK {
			held[s.scoped(op.key, op.sender).id()] = msg{op.seq, op.mid}
		}
	}
	for _, f := range s.finals {
		if f.table != "messages" || f.chat != chat || f.key == "" || s.clientScope && !f.hasSender {
			continue
		}
		if k := s.scoped(f.key, f.sender); held[k.id()] == (msg{}) {
			held[k.id()] = msg{f.seq, f.mid}
		}
	}
	for _, y := range ops {
		if y.kind != syncOK {
			continue
		}
		for i := range y.seqs {
			if k, ok := s.shownKey(&y, i); ok {
				if why := hold(k, msg{y.seqs[i], y.mids[i]}, "a sync"); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// shownFailedKeys: no sync shows, above initial_counter, a key whose
// persists all ended fail (rejections of a reused key under key_reuse
// reject aside, one fail at least).
func (s *spec) shownFailedKeys(ops []operation) string {
	failed, other := map[string]bool{}, map[string]bool{}
	for _, op := range ops {
		k := s.scoped(op.key, op.sender).id()
		switch {
		case op.kind == persistFail && s.reject && op.errCode == "idempotency_key_reused":
		case op.kind == persistFail:
			failed[k] = true
		case op.kind == persistOK || op.kind == persistInfo:
			other[k] = true
		}
	}
	for _, y := range ops {
		if y.kind != syncOK {
			continue
		}
		for i, seq := range y.seqs {
			k, ok := s.shownKey(&y, i)
			if ok && seq > s.initial && failed[k.id()] && !other[k.id()] {
				return fmt.Sprintf("fail_has_no_effect: a sync shows seq %d with key %q, which only failed persists used", seq, k.raw)
			}
		}
	}
	return ""
}
