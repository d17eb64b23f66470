package delivery

// eventualVisibility, FORMAT.md: "every message of the final messages
// table (without it, every acknowledged message) above initial_counter
// reached, by its settled line, every device whose user was a member of
// the message's chat from the device's first connect to its settle".
//
// Readings:
//   - "reached" means some push line of the device (streamed or catch-up,
//     on any connection) before its settled line carried the message's
//     (seq, message_id) pair; a push of the sequence under another id
//     did not bring that message (identical_order judges the wrong id).
//   - "a member from the first connect to the settle" is decided in file
//     order: a join before the device's first connect line and no leave
//     between it and the settled line. A refused first connect still
//     counts as the first connect (the text does not set it apart).
//   - Devices without a settled line are not judged.
//   - Applicability: the rule relates two kinds of evidence, what had to
//     be delivered (the messages table read or present, or at least one
//     acknowledged persist) and who had to receive it (a settled device
//     whose user was a member of a chat throughout). With both, it is
//     judged, even when a member's chat has no message (a messages table
//     read and empty is "judged as it stands, empty included"). With no
//     source of messages at all, the file holds none of the evidence of
//     what had to arrive, as HISTORY.md's "no final lines of the tables it
//     needs" is n/a. (This boundary is not in the text; it was first read
//     as "a member device is enough" and moved after chatseq reported
//     "nothing is known to be persisted" as n/a, on the reason above.)
func (f *facts) eventualVisibility() verdict {
	pairs, subjects := 0, 0
	for _, dev := range f.devices() {
		settled := f.settledAt(dev)
		if settled < 0 {
			continue
		}
		first := f.firstConnect(dev)
		user := f.userOf(dev)
		for _, chat := range f.chats() {
			if !f.memberThroughout(chat, user, first, settled) {
				continue
			}
			subjects++
			for _, m := range f.reference(chat) {
				if m.seq <= f.initial {
					continue // predates the run
				}
				pairs++
				if !f.reached(dev, chat, m, settled) {
					return failed("message (%d, %q) of chat %s never reached device %s (user %s, a member from its first connect on line %d to its settle on line %d)",
						m.seq, m.id, chat, dev, user, fileLine(first), fileLine(settled))
				}
			}
		}
	}
	if !f.tableKnown(tableMessages) && len(f.acks) == 0 {
		return notApplicable("no final messages table and no acknowledged persist: nothing is known to have to arrive")
	}
	if subjects == 0 {
		return notApplicable("no settled device whose user was a member of a chat from its first connect to its settle")
	}
	return passed("%d member devices on their chats, %d device-message pairs, each pushed by the settle", subjects, pairs)
}

// reached says whether a push line before line index before gave device
// the message m of chat.
func (f *facts) reached(device, chat string, m msgID, before int) bool {
	for _, e := range f.pushes() {
		if e.at < before && e.device == device && e.chat == chat && e.seq == m.seq && e.id == m.id {
			return true
		}
	}
	return false
}
