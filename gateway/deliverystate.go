package gateway

import (
	"context"
	"sort"
	"sync"
)

// DeliveryState is one row of ADR-001 §5's delivery_state: the highest
// sequence a user's device acknowledged receiving in a chat (and, by it,
// every sequence below).
type DeliveryState struct {
	ChatID            string
	UserID            string
	LastAckedSequence uint64
}

// DeliveryStore persists delivery acks. The PostgreSQL target keeps them
// in a delivery_state table; MemoryDeliveryStore keeps them in process.
type DeliveryStore interface {
	// RecordAck raises (chat, user)'s last_acked_sequence to seq and
	// never lowers it (a late or repeated ack changes nothing); it
	// returns the value stored after the call.
	RecordAck(ctx context.Context, chat, user string, seq uint64) (uint64, error)
	// DeliveryStates reads chat's rows, by user id.
	DeliveryStates(ctx context.Context, chat string) ([]DeliveryState, error)
}

// MemoryDeliveryStore is a DeliveryStore in process memory: a restart
// forgets it.
type MemoryDeliveryStore struct {
	mu    sync.Mutex
	chats map[string]map[string]uint64
}

// RecordAck implements DeliveryStore.
func (s *MemoryDeliveryStore) RecordAck(_ context.Context, chat, user string, seq uint64) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chats == nil {
		s.chats = map[string]map[string]uint64{}
	}
	users := s.chats[chat]
	if users == nil {
		users = map[string]uint64{}
		s.chats[chat] = users
	}
	if seq > users[user] {
		users[user] = seq
	}
	return users[user], nil
}

// DeliveryStates implements DeliveryStore.
func (s *MemoryDeliveryStore) DeliveryStates(_ context.Context, chat string) ([]DeliveryState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]DeliveryState, 0, len(s.chats[chat]))
	for u, seq := range s.chats[chat] {
		out = append(out, DeliveryState{ChatID: chat, UserID: u, LastAckedSequence: seq})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UserID < out[j].UserID })
	return out, nil
}
