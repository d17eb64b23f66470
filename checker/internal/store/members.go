package store

import (
	"cmp"
	"slices"
)

// SettledByUser lists the devices with a settled line by their user, and
// counts those without one.
func (d *Delivery) SettledByUser() (byUser map[int32][]int32, unsettled int) {
	byUser = map[int32][]int32{}
	for i := range d.Devs {
		if d.Devs[i].Settled == 0 {
			unsettled++
			continue
		}
		byUser[d.Devs[i].User] = append(byUser[d.Devs[i].User], int32(i))
	}
	return byUser, unsettled
}

// MemberPair is a settled device whose user was a member of a chat from
// the device's first connect to its settle; Join is that membership's
// join line.
type MemberPair struct {
	Dev, Chat, Join int32
}

// MembersThroughout lists the settled devices (byUser, SettledByUser) and
// the chats their users were members of throughout: a join line before
// the device's first connect and no membership line between it and its
// settled line (memberThroughout).
func (d *Delivery) MembersThroughout(byUser map[int32][]int32) []MemberPair {
	var pairs []MemberPair
	for k, ms := range d.membershipsByMember() {
		for _, dev := range byUser[k.User] {
			dv := &d.Devs[dev]
			if join, ok := memberThroughout(ms, dv.First, dv.Settled); ok {
				pairs = append(pairs, MemberPair{Dev: dev, Chat: k.Chat, Join: join})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b MemberPair) int {
		return cmp.Or(cmp.Compare(a.Dev, b.Dev), cmp.Compare(a.Chat, b.Chat))
	})
	return pairs
}

// ChatsOf counts the distinct chats of pairs.
func ChatsOf(pairs []MemberPair) int {
	seen := map[int32]bool{}
	for _, p := range pairs {
		seen[p.Chat] = true
	}
	return len(seen)
}

// ReceivedBySettle reports whether pushes (sorted by seq, from the first
// with seq >= s) hold (s, id) pushed before their device's settled line.
func (d *Delivery) ReceivedBySettle(pushes []int32, s, id uint64) bool {
	for _, i := range pushes {
		p := d.Pushes.At(i)
		if p.Seq != s {
			return false
		}
		if p.ID == id && !p.AfterSettle {
			return true
		}
	}
	return false
}

// membershipsByMember is the join and leave lines of each (chat, user),
// in file order.
func (d *Delivery) membershipsByMember() map[MemberKey][]Membership {
	out := map[MemberKey][]Membership{}
	for _, m := range d.Members {
		out[m.MemberKey] = append(out[m.MemberKey], m)
	}
	return out
}
