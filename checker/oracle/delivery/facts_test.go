package delivery

// facts is what the oracle's judges read of a history, derived from its
// lines by the plain rules of FORMAT.md. Every lookup is a linear scan:
// generated histories are a few hundred lines, and a scan is easier to
// trust than an index.
type facts struct {
	lines []line
	// initial is the header's initial_counter (0 without it): messages at
	// or below it predate the run.
	initial uint64
	// soleWriter is the header's "sole_writer": true: the history's
	// clients are its chats' only writers (besides messages at or below
	// initial_counter).
	soleWriter bool
	// conns are the connections in file order: a connect line up to the
	// device's next disconnect line ("its lines between a connect and the
	// next disconnect are that connection's").
	conns []conn
	// acks are the persists answered ok, with the invoke they answer.
	acks []ack
	// completion: by a persist invoke's index, its completion's (the
	// process's next ok, fail or info line), len(lines) if none came.
	completion map[int]int
}

// conn is one connection of a device.
type conn struct {
	device, user string
	open         int  // index of the connect line
	close        int  // index of the disconnect line, or len(lines) if it never closed
	refused      bool // "refused": true on the connect
}

// ack is a persist ok and its invoke.
type ack struct {
	at        int // index of the ok line
	invokeAt  int
	chat, key string
	seq       uint64
	id        string
	dedup     bool
	sender    string // the invoke's sender ("" when it gave none)
	hash      string // the invoke's payload_hash ("" when it gave none)
}

// msgID identifies a message as the format pairs it everywhere: its
// sequence and its message id.
type msgID struct {
	seq uint64
	id  string
}

func newFacts(d doc) *facts {
	f := &facts{lines: d.lines, initial: val(d.hdr.InitialCounter), soleWriter: d.hdr.SoleWriter}
	open := map[string]int{} // device -> index in f.conns of its open connection
	for i, l := range d.lines {
		switch l.Type {
		case tConnect:
			open[l.Device] = len(f.conns)
			f.conns = append(f.conns, conn{device: l.Device, user: l.User, open: i, close: len(d.lines), refused: l.Refused})
		case tDisconnect:
			if c, ok := open[l.Device]; ok {
				f.conns[c].close = i
				delete(open, l.Device)
			}
		}
	}
	outstanding := map[int]int{} // process -> index of its open invoke
	f.completion = map[int]int{}
	for i, l := range d.lines {
		if l.F != "persist" {
			continue
		}
		switch l.Type {
		case tInvoke:
			outstanding[l.Process] = i
			f.completion[i] = len(d.lines)
		case tOK, tFail, tInfo:
			inv, ok := outstanding[l.Process]
			if !ok {
				continue
			}
			delete(outstanding, l.Process)
			f.completion[inv] = i
			if l.Type != tOK {
				continue
			}
			in := d.lines[inv]
			f.acks = append(f.acks, ack{
				at: i, invokeAt: inv, chat: in.Chat, key: in.Key,
				seq: val(l.Seq), id: l.MessageID, dedup: l.Dedup != nil && *l.Dedup,
				sender: in.Sender, hash: in.PayloadHash,
			})
		}
	}
	return f
}

// userOf is a device's user: the user its connect lines name (the reader
// makes them all name one).
func (f *facts) userOf(device string) string {
	for _, c := range f.conns {
		if c.device == device {
			return c.user
		}
	}
	return ""
}

// connAt is the connection of device open at line index i (-1 if none):
// the one whose connect is before i and whose disconnect is not.
func (f *facts) connAt(device string, i int) int {
	for k, c := range f.conns {
		if c.device == device && c.open < i && i < c.close {
			return k
		}
	}
	return -1
}

// firstConnect is the index of the device's first connect line (-1 if none).
func (f *facts) firstConnect(device string) int {
	for _, c := range f.conns {
		if c.device == device {
			return c.open
		}
	}
	return -1
}

// settledAt is the index of the device's settled line (-1 if none).
func (f *facts) settledAt(device string) int {
	for i, l := range f.lines {
		if l.Type == tSettled && l.Device == device {
			return i
		}
	}
	return -1
}

// devices lists every device that connected, in order of first connect.
func (f *facts) devices() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range f.conns {
		if !seen[c.device] {
			seen[c.device] = true
			out = append(out, c.device)
		}
	}
	return out
}

// chats lists every chat any line names, in order of first appearance.
func (f *facts) chats() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range f.lines {
		if l.Chat != "" && !seen[l.Chat] {
			seen[l.Chat] = true
			out = append(out, l.Chat)
		}
	}
	return out
}

// memberAt says whether user was a member of chat just before line i:
// the last join or leave line of the pair before i is a join. Membership
// is decided by file order, which is time order with ties broken as
// written.
func (f *facts) memberAt(chat, user string, i int) bool {
	member := false
	for k := 0; k < i && k < len(f.lines); k++ {
		l := f.lines[k]
		if l.Chat == chat && l.User == user {
			switch l.Type {
			case tJoin:
				member = true
			case tLeave:
				member = false
			}
		}
	}
	return member
}

// memberThroughout says whether user was a member of chat at line a and
// stayed one until line b: a member before a, and no leave in between.
func (f *facts) memberThroughout(chat, user string, a, b int) bool {
	if !f.memberAt(chat, user, a) {
		return false
	}
	for k := a + 1; k < b; k++ {
		l := f.lines[k]
		if l.Type == tLeave && l.Chat == chat && l.User == user {
			return false
		}
	}
	return true
}

// joinedBefore says whether user had joined chat at any line before i.
func (f *facts) joinedBefore(chat, user string, i int) bool {
	for k := 0; k < i; k++ {
		l := f.lines[k]
		if l.Type == tJoin && l.Chat == chat && l.User == user {
			return true
		}
	}
	return false
}

// tableKnown says whether a final table is judged: FORMAT.md's "read" (a
// table_read line names it, even with no lines) or "present" (it has
// final lines without one).
func (f *facts) tableKnown(table string) bool {
	return f.tableRead(table) || len(f.finals(table)) > 0
}

func (f *facts) tableRead(table string) bool {
	for _, l := range f.lines {
		if l.Type == tTableRead && l.Table == table {
			return true
		}
	}
	return false
}

// finals lists the final lines of one table, in file order.
func (f *facts) finals(table string) []line {
	var out []line
	for _, l := range f.lines {
		if l.Type == tFinal && l.Table == table {
			out = append(out, l)
		}
	}
	return out
}

// reference is a chat's messages as the delivery invariants compare
// against them: the final messages table when it is judged, otherwise
// every acknowledged (seq, message_id), each listed once.
func (f *facts) reference(chat string) []msgID {
	var out []msgID
	seen := map[msgID]bool{}
	add := func(m msgID) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	if f.tableKnown(tableMessages) {
		for _, l := range f.finals(tableMessages) {
			if l.Chat == chat {
				add(msgID{val(l.Seq), l.MessageID})
			}
		}
		return out
	}
	for _, a := range f.acks {
		if a.chat == chat {
			add(msgID{a.seq, a.id})
		}
	}
	return out
}

// entry is one message of a push line.
type entry struct {
	at      int // index of the push line
	device  string
	chat    string
	catchUp bool
	seq     uint64
	id      string
	hash    string // "" when the line gives none for it
	sender  string
}

// pushes lists every pushed message in file order, a line's messages in
// the order the line gives them.
func (f *facts) pushes() []entry {
	var out []entry
	for i, l := range f.lines {
		if l.Type != tPush {
			continue
		}
		for k, s := range l.Seqs {
			e := entry{at: i, device: l.Device, chat: l.Chat, catchUp: l.CatchUp, seq: s}
			if k < len(l.MessageIDs) {
				e.id = l.MessageIDs[k]
			}
			if k < len(l.PayloadHashes) {
				e.hash = l.PayloadHashes[k]
			}
			if k < len(l.Senders) {
				e.sender = l.Senders[k]
			}
			out = append(out, e)
		}
	}
	return out
}
