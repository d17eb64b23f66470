package store

import (
	"cmp"
	"slices"
)

// MemberLines answers, for a persist's chat and sender (the Log's
// numbers), what the join and leave lines say of that user in that chat:
// send_authorization's evidence. Receiver lines come in time order with
// the operation lines, so "before the invoke" is a smaller line number.
type MemberLines struct {
	chatOf []int32 // by Log chat: the delivery's chat, -1 none
	userOf []int32 // by Log sender: the delivery's user, -1 none
	lines  map[MemberKey][]Membership
	joined []bool // by delivery chat: some join line names it
}

// MemberLinesOf indexes x's join and leave lines; nil when the history
// has no join line (it records no membership).
func (x *Index) MemberLinesOf() *MemberLines {
	d := x.Delivery
	if d == nil || d.Joins == 0 {
		return nil
	}
	m := &MemberLines{
		chatOf: make([]int32, len(x.ChatNames)),
		userOf: make([]int32, len(x.SenderNames)),
		lines:  map[MemberKey][]Membership{},
		joined: make([]bool, len(d.Chats)),
	}
	for i := range m.chatOf {
		m.chatOf[i] = -1
	}
	for dc, lc := range d.LogChats {
		if lc >= 0 {
			m.chatOf[lc] = int32(dc)
		}
	}
	users := make(map[string]int32, len(d.Users))
	for u, name := range d.Users {
		users[name] = int32(u)
	}
	for s, name := range x.SenderNames {
		m.userOf[s] = -1
		if u, ok := users[name]; ok && name != "" {
			m.userOf[s] = u
		}
	}
	for _, ms := range d.Members {
		m.lines[ms.MemberKey] = append(m.lines[ms.MemberKey], ms)
		if !ms.Leave {
			m.joined[ms.Chat] = true
		}
	}
	return m
}

// Recorded says whether the history records chat c's membership (a join
// line names it): only then can a sender be known not to be a member.
func (m *MemberLines) Recorded(c int32) bool {
	dc := m.chatOf[c]
	return dc >= 0 && m.joined[dc]
}

// MemberDuring says whether sender s could have been a member of chat c
// at some time between lines from and to: a member at line from (its
// last join or leave line before it a join), or joined between them.
// Only for a chat whose membership is Recorded; a sender the receiver
// lines never name was never a member.
func (m *MemberLines) MemberDuring(c int32, s uint32, from, to int32) bool {
	ls, i := m.linesFrom(c, s, from)
	if i > 0 && !ls[i-1].Leave {
		return true
	}
	for ; i < len(ls) && ls[i].Line < to; i++ {
		if !ls[i].Leave {
			return true
		}
	}
	return false
}

// LastLeave is sender s's last leave line of chat c before line, 0:
// none (it never was a member, or is one).
func (m *MemberLines) LastLeave(c int32, s uint32, line int32) int32 {
	if ls, i := m.linesFrom(c, s, line); i > 0 && ls[i-1].Leave {
		return ls[i-1].Line
	}
	return 0
}

// linesFrom is sender s's join and leave lines of chat c, and the index
// of the first at or after line (those before it are ls[:i]); none for
// a sender the receiver lines never name.
func (m *MemberLines) linesFrom(c int32, s uint32, line int32) (ls []Membership, i int) {
	if int(s) >= len(m.userOf) || m.userOf[s] < 0 {
		return nil, 0
	}
	ls = m.lines[MemberKey{Chat: m.chatOf[c], User: m.userOf[s]}]
	i, _ = slices.BinarySearchFunc(ls, line, func(ms Membership, l int32) int { return cmp.Compare(ms.Line, l) })
	return ls, i
}
