package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/chatseq/chatseq/checker/internal/store"
)

// NameEventualVisibility is ADR-001's "Eventual Visibility": other
// participants observe every message, once connectivity allows.
const NameEventualVisibility = "eventual_visibility"

// checkEventualVisibility: every message of the final messages table
// (without it, every acknowledged message) above initial_counter reached,
// by its settled line, every device whose user was a member of the
// message's chat from the device's first connect to its settle (history
// FORMAT.md, "Receivers"). Pushes streamed and caught up count alike; a
// duplicate is one receipt. The counterexample is the membership's join
// line, the device's first connect, the message's line and the device's
// settled line.
func checkEventualVisibility(x *index) Result {
	v := newVerdict(NameEventualVisibility)
	if why := x.ReceiversAbsent(); why != "" {
		v.notApplicable("%s", why)
		return v.result()
	}
	d := x.Delivery
	byUser := map[int32][]int32{} // settled devices by user
	unsettled := 0
	for i := range d.Devs {
		if d.Devs[i].Settled == 0 {
			unsettled++
			continue
		}
		byUser[d.Devs[i].User] = append(byUser[d.Devs[i].User], int32(i))
	}
	if len(byUser) == 0 {
		v.notApplicable("no device settled (%s, none with a settled line): what a device received before its settle ended proves nothing missing", plural(len(d.Devs), "device"))
		return v.result()
	}
	if !x.HasMessages && len(x.Acks) == 0 {
		v.notApplicable("nothing is known to be persisted: no final messages lines and no acknowledged persist")
		return v.result()
	}
	pairs := membersThroughout(d, byUser)
	if len(pairs) == 0 {
		v.notApplicable("no settled device's user was a member of a chat from the device's first connect to its settle (join lines before it, no leave until it)")
		return v.result()
	}
	view := d.SortedView()
	var msgs []store.PersistedMsg
	judged, missed, devsMissing := 0, 0, map[int32]bool{}
	for _, p := range pairs {
		dev := &d.Devs[p.dev]
		lc := x.LogChat(d, p.chat)
		if lc < 0 {
			continue // no operation or final line of the history names the chat: nothing persisted is known
		}
		msgs = x.PersistedIn(lc, msgs)
		lo, hi := view.DeviceRange(d, p.dev, p.chat)
		got := view.Sorted[lo:hi]
		k := 0
		for m := range msgs {
			s := msgs[m].Seq
			if s <= x.InitialCounter {
				continue // from before the run: a device starts after it
			}
			judged++
			for k < len(got) && d.Pushes.At(got[k]).Seq < s {
				k++
			}
			if receivedBySettle(d, got[k:], s, x.MidHash[msgs[m].ID]) {
				continue
			}
			missed++
			devsMissing[p.dev] = true
			where := "final line"
			if msgs[m].Fin < 0 {
				where = "acknowledged at line"
			}
			v.fail([]int{int(p.join), int(dev.First), msgs[m].Line, int(dev.Settled)},
				"device %q (user %q, a member of chat %q since line %d) never received seq %d (%q, %s %d) by its settle (line %d): %s",
				dev.Name, d.Users[dev.User], d.Chats[p.chat], p.join, s, x.MidName(msgs[m].ID), where, msgs[m].Line, dev.Settled,
				describeReceipt(d, got))
		}
	}
	source := "persisted"
	if !x.HasMessages {
		source = "acknowledged"
		v.note("no final messages lines: judged over acknowledged messages only")
	}
	if missed > 0 {
		v.note("%s missed by %s", plural(missed, "device-message pair"), plural(len(devsMissing), "device"))
	}
	if unsettled > 0 {
		v.note("not judged: %s that never settled", plural(unsettled, "device"))
	}
	v.pass("%s on %s: every %s message of their chats reached them by their settle (%s)",
		plural(len(pairs), "member device"), plural(countChats(pairs), "chat"), source, plural(judged, "device-message pair"))
	return v.result()
}

// receivedBySettle reports whether pushes (sorted by seq, from the first
// with seq >= s) hold (s, id) pushed before their device's settled line.
func receivedBySettle(d *store.Delivery, pushes []int32, s, id uint64) bool {
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

// describeReceipt says what the device did receive of the chat.
func describeReceipt(d *store.Delivery, got []int32) string {
	if len(got) == 0 {
		return "it received nothing of the chat"
	}
	lo, hi := d.Pushes.At(got[0]).Seq, d.Pushes.At(got[len(got)-1]).Seq
	return fmt.Sprintf("it was pushed %d (seq, message_id) pairs of the chat, seqs %d to %d", len(got), lo, hi)
}

// memberPair is a settled device whose user was a member of a chat from
// the device's first connect to its settle; join is that membership's
// join line.
type memberPair struct {
	dev, chat, join int32
}

// membersThroughout lists the settled devices (byUser) and the chats
// their users were members of throughout: a join line before the
// device's first connect and no leave before its settled line.
func membersThroughout(d *store.Delivery, byUser map[int32][]int32) []memberPair {
	open := map[store.MemberKey]int32{}
	var pairs []memberPair
	end := func(k store.MemberKey, until int32) {
		from := open[k]
		delete(open, k)
		for _, dev := range byUser[k.User] {
			if dv := &d.Devs[dev]; from < dv.First && until > dv.Settled {
				pairs = append(pairs, memberPair{dev: dev, chat: k.Chat, join: from})
			}
		}
	}
	for _, m := range d.Members {
		if m.Leave {
			end(m.MemberKey, m.Line)
		} else {
			open[m.MemberKey] = m.Line
		}
	}
	for k := range open {
		end(k, math.MaxInt32)
	}
	slices.SortFunc(pairs, func(a, b memberPair) int {
		return cmp.Or(cmp.Compare(a.dev, b.dev), cmp.Compare(a.chat, b.chat))
	})
	return pairs
}

func countChats(pairs []memberPair) int {
	seen := map[int32]bool{}
	for _, p := range pairs {
		seen[p.chat] = true
	}
	return len(seen)
}
