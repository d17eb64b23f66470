package httpapi

import (
	"context"
	"net/http"
	"slices"
	"sync"
)

// HeaderUser names the caller: the user a gateway in front of the service
// authenticated (docs/http-api.md, "Who is calling"). The reference server
// has no credentials of its own and takes the header as its
// authentication, as the strategy's tenancy section takes identity from
// the authenticated request, never from a body field: a send's sender is
// this user, and only a chat's members read it.
const HeaderUser = "X-User-Id"

// caller is the request's authenticated user; "" once it has answered 401.
func caller(w http.ResponseWriter, r *http.Request) string {
	user := r.Header.Get(HeaderUser)
	if user == "" {
		writeError(w, http.StatusUnauthorized, CodeUnauthenticated, "the "+HeaderUser+" header must name the authenticated user", "")
	}
	return user
}

// MemberChecker is a target that stores memberships and answers who
// belongs to a chat (ADR-004's chat_memberships): the server asks it for a
// chat it has not seen created, e.g. after a restart.
type MemberChecker interface {
	IsMember(ctx context.Context, chat, user string) (bool, error)
}

// memberships are the members of the chats this server created, so that
// a read needs no store call; a chat created before it started is asked
// of the target.
type memberships struct {
	mu    sync.RWMutex
	chats map[string][]string
}

func (m *memberships) record(chat string, members []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.chats == nil {
		m.chats = map[string][]string{}
	}
	m.chats[chat] = slices.Clone(members)
}

// isMember reports whether user belongs to chat. A chat neither created
// here nor known to a target that stores memberships has no members.
func (m *memberships) isMember(ctx context.Context, t any, chat, user string) (bool, error) {
	m.mu.RLock()
	members, known := m.chats[chat]
	m.mu.RUnlock()
	if known {
		return slices.Contains(members, user), nil
	}
	if mc, ok := t.(MemberChecker); ok {
		return mc.IsMember(ctx, chat, user)
	}
	return false, nil
}
