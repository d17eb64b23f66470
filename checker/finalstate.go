package checker

import (
	"maps"
	"slices"
)

// Invariants over the final state (counters and messages tables), read
// after the run. The history format has no initial state, so every chat is
// taken to start with its counter at 0 and no messages (ADR-004 §9).

// unjudged lists active chats that lack a usable counter, by reason.
type unjudged map[string][]int32

func (u unjudged) add(why string, c int32) { u[why] = append(u[why], c) }

func (u unjudged) report(x *index, v *verdict) {
	for _, why := range slices.Sorted(maps.Keys(u)) {
		v.unknown("%s: %s", why, x.ChatList(u[why]))
	}
}
