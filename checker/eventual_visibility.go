package checker

import (
	"fmt"

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
	byUser, unsettled := d.SettledByUser()
	if len(byUser) == 0 {
		v.notApplicable("no device settled (%s, none with a settled line): what a device received before its settle ended proves nothing missing", plural(len(d.Devs), "device"))
		return v.result()
	}
	if !x.HasMessages && len(x.Acks) == 0 {
		v.notApplicable("nothing is known to be persisted: no final messages lines and no acknowledged persist")
		return v.result()
	}
	pairs := d.MembersThroughout(byUser)
	if len(pairs) == 0 {
		v.notApplicable("no settled device's user was a member of a chat from the device's first connect to its settle (join lines before it, no leave until it)")
		return v.result()
	}
	view := d.SortedView()
	var msgs []store.PersistedMsg
	judged, missed, devsMissing := 0, 0, map[int32]bool{}
	for _, p := range pairs {
		dev := &d.Devs[p.Dev]
		lc := x.LogChat(d, p.Chat)
		if lc < 0 {
			continue // no operation or final line of the history names the chat: nothing persisted is known
		}
		msgs = x.PersistedIn(lc, msgs)
		lo, hi := view.DeviceRange(d, p.Dev, p.Chat)
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
			if d.ReceivedBySettle(got[k:], s, x.MidHash[msgs[m].ID]) {
				continue
			}
			missed++
			devsMissing[p.Dev] = true
			where := "final line"
			if msgs[m].Fin < 0 {
				where = "acknowledged at line"
			}
			v.fail([]int{int(p.Join), int(dev.First), msgs[m].Line, int(dev.Settled)},
				"device %q (user %q, a member of chat %q since line %d) never received seq %d (%q, %s %d) by its settle (line %d): %s",
				dev.Name, d.Users[dev.User], d.Chats[p.Chat], p.Join, s, x.MidName(msgs[m].ID), where, msgs[m].Line, dev.Settled,
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
		plural(len(pairs), "member device"), plural(store.ChatsOf(pairs), "chat"), source, plural(judged, "device-message pair"))
	return v.result()
}

// describeReceipt says what the device did receive of the chat.
func describeReceipt(d *store.Delivery, got []int32) string {
	if len(got) == 0 {
		return "it received nothing of the chat"
	}
	lo, hi := d.Pushes.At(got[0]).Seq, d.Pushes.At(got[len(got)-1]).Seq
	return fmt.Sprintf("it was pushed %d (seq, message_id) pairs of the chat, seqs %d to %d", len(got), lo, hi)
}
