package ledger

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/chatseq/chatseq/store"
)

// Codes the state machine answers with.
const (
	CodeUnknownChat = "unknown_chat"
	// CodeKeyReused is the ADR's IDEMPOTENCY_KEY_REUSED, as the history
	// spells it.
	CodeKeyReused = "idempotency_key_reused"
)

// message is one applied write.
type message struct {
	Seq         uint64 `json:"seq"`
	MessageID   string `json:"message_id"`
	Sender      string `json:"sender"`
	Key         string `json:"key"`
	Content     string `json:"content"`
	ContentType string `json:"content_type"`
	Time        int64  `json:"time"`
}

// chatState is one chat (the ADR's vault): its last sequence and messages
// in sequence order.
type chatState struct {
	Last     uint64    `json:"last"`
	Messages []message `json:"messages"`
}

// keyRecord is the state machine's idempotency record: the result a key
// got, with its payload hash and when (log time) it was applied.
type keyRecord struct {
	Chat        string `json:"chat"`
	Sender      string `json:"sender"`
	Key         string `json:"key"`
	Seq         uint64 `json:"seq"`
	MessageID   string `json:"message_id"`
	PayloadHash []byte `json:"payload_hash"`
	Time        int64  `json:"time"`
}

// keyAge is one entry of the expiry queue, in apply order.
type keyAge struct {
	Scope string `json:"scope"`
	Time  int64  `json:"time"`
}

// fsmState is everything a node's state machine holds; snapshots are its
// JSON.
type fsmState struct {
	// Index is the last log entry applied. Raft's own AppliedIndex moves
	// when entries are handed to the FSM goroutine, before they are
	// applied, so convergence is judged by this one.
	Index uint64                `json:"index"`
	Chats map[string]*chatState `json:"chats"`
	Keys  map[string]*keyRecord `json:"keys"`
	Ages  []keyAge              `json:"ages"` // oldest first
}

// fsm applies log entries. Sequences are assigned here, at apply time, so
// every node computes the same ones; idempotency is judged here too (unless
// the variant leaves it to the leader's cache). Expiry and the size bound
// go by log time and apply order, never by a node's own clock, so nodes
// forget keys at the same entry.
type fsm struct {
	mu  sync.RWMutex
	st  fsmState
	ttl time.Duration
	max int // keys kept at most

	variant Variant
	// assigned is told of every new sequence (from every node: the hook
	// keeps the first).
	assigned func(messageID, chat string, seq uint64)
}

func newFSM(variant Variant, ttl time.Duration, maxKeys int, assigned func(string, string, uint64)) *fsm {
	return &fsm{
		st:  fsmState{Chats: map[string]*chatState{}, Keys: map[string]*keyRecord{}},
		ttl: ttl, max: maxKeys, variant: variant, assigned: assigned,
	}
}

// Apply implements raft.FSM.
func (f *fsm) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	c, err := decodeCommand(l.Data)
	if err != nil {
		f.mu.Lock()
		f.st.Index = l.Index
		f.mu.Unlock()
		return result{Err: "bad entry: " + err.Error()}
	}
	f.mu.Lock()
	res, fresh := f.apply(&c)
	f.st.Index = l.Index
	f.mu.Unlock()
	if fresh && f.assigned != nil {
		f.assigned(c.MessageID, c.Chat, res.Seq)
	}
	return res
}

// apply runs one command under the lock; fresh reports a new sequence.
func (f *fsm) apply(c *command) (res result, fresh bool) {
	switch c.Op {
	case opCreate:
		if f.st.Chats[c.Chat] == nil {
			f.st.Chats[c.Chat] = &chatState{}
		}
		return result{}, false
	case opSetCounter:
		ch := f.st.Chats[c.Chat]
		if ch == nil {
			return result{Err: CodeUnknownChat}, false
		}
		ch.Last = c.Value
		return result{}, false
	case opWrite:
		return f.write(c)
	}
	return result{Err: "unknown op " + c.Op}, false
}

func (f *fsm) write(c *command) (result, bool) {
	ch := f.st.Chats[c.Chat]
	if ch == nil {
		return result{Err: CodeUnknownChat}, false
	}
	f.expire(c.Time)
	sc := scope(c.Chat, c.Sender, c.Key16)
	if f.variant != LeaderCacheOnly {
		if rec := f.st.Keys[sc]; rec != nil {
			if !bytes.Equal(rec.PayloadHash, c.PayloadHash) {
				return result{Reused: true}, false
			}
			return result{Seq: rec.Seq, MessageID: rec.MessageID, Dedup: true}, false
		}
	}
	seq := ch.Last + 1
	if f.variant == ProposeTimeSequence {
		seq = c.Seq
	}
	ch.Last = max(ch.Last, seq)
	m := message{
		Seq: seq, MessageID: c.MessageID, Sender: c.Sender, Key: c.Key,
		Content: c.Content, ContentType: c.ContentType, Time: c.Time,
	}
	// Apply-time sequences only grow; propose-time ones may arrive out of
	// order, so the message goes after every one with a sequence ≤ its own.
	at := sort.Search(len(ch.Messages), func(i int) bool { return ch.Messages[i].Seq > seq })
	ch.Messages = slices.Insert(ch.Messages, at, m)
	f.st.Keys[sc] = &keyRecord{Chat: c.Chat, Sender: c.Sender, Key: c.Key, Seq: seq, MessageID: c.MessageID, PayloadHash: c.PayloadHash, Time: c.Time}
	f.st.Ages = append(f.st.Ages, keyAge{Scope: sc, Time: c.Time})
	return result{Seq: seq, MessageID: c.MessageID}, true
}

// expire forgets keys older than the TTL at log time now, and the oldest
// beyond the size bound: after that a key counts as new (the ADR's "key
// after TTL expiry: process as new write").
func (f *fsm) expire(now int64) {
	drop := 0
	for _, a := range f.st.Ages {
		if now-a.Time < int64(f.ttl) && len(f.st.Ages)-drop <= f.max {
			break
		}
		// A key applied again since has a newer age entry: only the
		// record this entry stands for is dropped.
		if rec := f.st.Keys[a.Scope]; rec != nil && rec.Time == a.Time {
			delete(f.st.Keys, a.Scope)
		}
		drop++
	}
	if drop > 0 {
		f.st.Ages = append(f.st.Ages[:0:0], f.st.Ages[drop:]...)
	}
}

// Snapshot implements raft.FSM: the state as JSON, taken under the lock.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	b, err := json.Marshal(&f.st)
	if err != nil {
		return nil, err
	}
	return jsonSnapshot(b), nil
}

// Restore implements raft.FSM.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var st fsmState
	if err := json.NewDecoder(rc).Decode(&st); err != nil {
		return err
	}
	if st.Chats == nil {
		st.Chats = map[string]*chatState{}
	}
	if st.Keys == nil {
		st.Keys = map[string]*keyRecord{}
	}
	f.mu.Lock()
	f.st = st
	f.mu.Unlock()
	return nil
}

type jsonSnapshot []byte

func (s jsonSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s); err != nil {
		_ = sink.Cancel()
		return err
	}
	return sink.Close()
}

func (jsonSnapshot) Release() {}

// index is the last log entry this state machine applied.
func (f *fsm) index() uint64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.st.Index
}

// read returns chat's messages with sequence > after, at most limit.
func (f *fsm) read(chat string, after uint64, limit int) ([]store.Message, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	ch := f.st.Chats[chat]
	if ch == nil {
		return nil, false
	}
	i := sort.Search(len(ch.Messages), func(i int) bool { return ch.Messages[i].Seq > after })
	var out []store.Message
	for ; i < len(ch.Messages) && (limit <= 0 || len(out) < limit); i++ {
		out = append(out, toStore(chat, ch.Messages[i]))
	}
	return out, true
}

// dump is the node's final state for chats, in a canonical order.
func (f *fsm) dump(chats []string) store.State {
	f.mu.RLock()
	defer f.mu.RUnlock()
	st := store.State{Read: store.AllTables}
	want := map[string]bool{}
	for _, c := range chats {
		want[c] = true
		ch := f.st.Chats[c]
		if ch == nil {
			st.Counters = append(st.Counters, store.Counter{Chat: c, Missing: true})
			continue
		}
		st.Counters = append(st.Counters, store.Counter{Chat: c, Value: ch.Last})
		for _, m := range ch.Messages {
			st.Messages = append(st.Messages, toStore(c, m))
		}
	}
	for _, rec := range f.st.Keys {
		if want[rec.Chat] {
			st.Idempotency = append(st.Idempotency, store.IdempotencyRecord{
				Chat: rec.Chat, Key: rec.Key, Sender: rec.Sender, Seq: rec.Seq, MessageID: rec.MessageID,
				CreatedAt: time.Unix(0, rec.Time).UTC(), ExpiresAt: time.Unix(0, rec.Time+int64(f.ttl)).UTC(),
			})
		}
	}
	sort.Slice(st.Idempotency, func(i, j int) bool {
		a, b := st.Idempotency[i], st.Idempotency[j]
		if a.Chat != b.Chat {
			return a.Chat < b.Chat
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		if a.Sender != b.Sender {
			return a.Sender < b.Sender
		}
		return a.MessageID < b.MessageID
	})
	return st
}

func toStore(chat string, m message) store.Message {
	return store.Message{
		Chat: chat, Seq: m.Seq, MessageID: m.MessageID, Sender: m.Sender, Key: m.Key,
		Content: m.Content, ContentType: m.ContentType, CreatedAt: time.Unix(0, m.Time).UTC(),
	}
}
