package store

// UserSync is a sync whose invoke named the user it read as (a sync
// invoke's "user"), and how it ended: read_authorization judges it
// against the join and leave lines. Few syncs name one, so they are kept
// apart from the operations, whose records have no room for a user.
type UserSync struct {
	InvLine, DoneLine int32 // DoneLine 0: never completed
	Chat              int32
	User              uint32 // numbered as a persist's sender (SenderNames)
	Status            opStatus
}

// OK says the read was answered: its page was shown to its user.
func (s UserSync) OK() bool { return s.Status == StOK }

// userSyncInvoked keeps a sync invoke's user until its completion.
func (l *Log) userSyncInvoked(process int, chat int32, line int32, user string) {
	if l.openUserSync == nil {
		l.openUserSync = map[int]int32{}
	}
	l.openUserSync[process] = int32(len(l.UserSyncs))
	l.UserSyncs = append(l.UserSyncs, UserSync{InvLine: line, Chat: chat, User: l.senderOf(process, user)})
}

// userSyncDone records how process's open sync naming a user ended, if
// its open operation is one; an invoke that comes first leaves it open.
func (l *Log) userSyncDone(process int, line int32, st opStatus) {
	if len(l.openUserSync) == 0 {
		return
	}
	if i, ok := l.openUserSync[process]; ok {
		delete(l.openUserSync, process)
		l.UserSyncs[i].DoneLine, l.UserSyncs[i].Status = line, st
	}
}

// userSyncAbandoned forgets process's open sync naming a user: the
// process invoked again, and that sync counts as unfinished.
func (l *Log) userSyncAbandoned(process int) {
	if len(l.openUserSync) > 0 {
		delete(l.openUserSync, process)
	}
}
