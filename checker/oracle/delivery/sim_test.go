package delivery

import (
	"fmt"
	"math/rand/v2"
)

// simulate runs a small model of a CORRECT delivery plane (ADR-001 §4-§5)
// and records what it did as a history. The model is built so that every
// delivery invariant holds by construction:
//
//   - a persist commits at most once per key (a retry of a committed key
//     is a replay), takes the next sequence of its chat, and appends one
//     event to the topic; a producer retry may append a copy later;
//   - each committed event is queued on every open, accepted connection of
//     a member's device, and frames deliver a queue's head in topic order,
//     so a connection's stream is a contiguous run of the topic;
//   - a connection catches up right after it connects (sync pages from
//     the device's last ack), so nothing committed before it was opened
//     is missed; a dropped connection loses its queue and the next one
//     catches up again;
//   - a join closes the user's open connections first (the stream of a
//     chat on one connection never resumes after a gap); a leave stops
//     the chat's stream at once;
//   - a refused connection is pushed nothing;
//   - a device acknowledges the highest sequence it holds, and the server
//     stores the highest acknowledgement of a user's devices;
//   - a user now and then reads a chat's delivery_state (a state_read
//     line): a member is answered; a non-member (a user of the history
//     or an outsider no join line names) is refused by a service that
//     checks membership and answered by one that does not, whose header
//     then states read_membership: unchecked half the time (otherwise
//     read_authorization fails it, as it should);
//   - at the end the writers stop, and each settling device reconnects if
//     it must, drains its queues, acknowledges and settles.
func simulate(r *rand.Rand) doc {
	s := &sim{
		r:           r,
		t:           10,
		step:        10,
		member:      map[[2]string]bool{},
		counter:     map[string]uint64{},
		store:       map[string][]*simMsg{},
		byKey:       map[[2]string]*simMsg{},
		offsets:     map[uint64]uint64{},
		outstanding: map[int]*simPersist{},
		retryable:   map[string][]*simPersist{},
		state:       map[[2]string]uint64{},
	}
	s.d.hdr = header{Format: "chatseq-history", Version: 1, EndLine: true}
	if r.IntN(3) == 0 {
		// Lines a fifth of a second apart: runs of several seconds, so
		// that stream_completeness's one-second allowances come into play.
		s.step = 200_000_000
	}
	if r.IntN(3) == 0 {
		s.initial = uint64(r.IntN(6))
		s.d.hdr.InitialCounter = u64(s.initial)
	}
	if r.IntN(2) == 0 {
		// The model's clients are its chats' only writers, besides the
		// messages from before the run.
		s.d.hdr.SoleWriter = true
	}
	for c := 1; c <= 1+r.IntN(2); c++ {
		chat := fmt.Sprintf("c%d", c)
		s.chats = append(s.chats, chat)
		s.counter[chat] = s.initial
		// Messages from before the run: in the store (so catch-up returns
		// them and the messages table holds them), never in the history's
		// persists or the run's topic.
		for seq := uint64(1); seq <= s.initial; seq++ {
			if r.IntN(10) < 6 {
				key := fmt.Sprintf("old-%s-%d", chat, seq)
				m := &simMsg{chat: chat, seq: seq, id: fmt.Sprintf("%s-old%d", chat, seq), key: key, sender: "u1", hash: "h-" + key}
				s.store[chat] = append(s.store[chat], m)
				s.byKey[[2]string{chat, key}] = m
			}
		}
	}
	for u := 1; u <= 2+r.IntN(3); u++ {
		user := fmt.Sprintf("u%d", u)
		s.users = append(s.users, user)
		for k := 1; k <= 1+r.IntN(2); k++ {
			s.devices = append(s.devices, &simDevice{name: fmt.Sprintf("%s/d%d", user, k), user: user})
		}
	}
	// Members from the start join before the first operation.
	for _, chat := range s.chats {
		for _, user := range s.users {
			if r.IntN(10) < 7 {
				s.member[[2]string{chat, user}] = true
				s.emit(line{Type: tJoin, Chat: chat, User: user})
			}
		}
	}
	s.checksMembers = r.IntN(4) != 0
	if !s.checksMembers && r.IntN(2) == 0 {
		s.stateContract("send_membership", "unchecked")
	}
	if !s.checksMembers && r.IntN(2) == 0 {
		s.stateContract("read_membership", "unchecked")
	}
	for n := 30 + r.IntN(50); n > 0; n-- {
		s.act()
	}
	s.finish()
	// Drawn after the lines, so that a seed's lines are what they were
	// before the contract had stream_start.
	switch r.IntN(4) {
	case 0:
		s.stateContract("stream_start", "at-connect")
	case 1:
		s.stateContract("stream_start", "within-1s")
	}
	return s.d
}

type simMsg struct {
	chat        string
	seq         uint64
	id          string
	key         string
	sender      string
	hash        string
	part, order uint64
}

type simPersist struct {
	process                 int
	chat, key, sender, hash string
	msg                     *simMsg // set once committed (or found committed)
	dedup                   bool
	// outside: sent by a user not a member of the chat at its invoke, to a
	// service that checks membership: refused (not_a_member), unless
	// keyFirst and its key is written: a service that looks the key up
	// before the membership (ADR-004 §6/§7) answers it as a replay.
	outside, keyFirst bool
}

type simDevice struct {
	name, user         string
	connected, refused bool
	queue              map[string][]*simMsg // streamed, not yet framed, per chat
	maxRecv, acked     map[string]uint64
}

type sim struct {
	r           *rand.Rand
	d           doc
	t           int64
	step        int64 // between two consecutive lines' times
	initial     uint64
	chats       []string
	users       []string
	devices     []*simDevice
	member      map[[2]string]bool
	counter     map[string]uint64
	store       map[string][]*simMsg
	byKey       map[[2]string]*simMsg
	topic       []*simMsg // events in append order (copies repeat a message)
	offsets     map[uint64]uint64
	outstanding map[int]*simPersist
	retryable   map[string][]*simPersist // per chat: persists that ended info or fail
	state       map[[2]string]uint64     // the server's delivery_state
	keys        int
	// checksMembers: the service refuses a non-member's send (ADR-004
	// §3); otherwise it stores it, which send_authorization fails unless
	// the header states send_membership: unchecked.
	checksMembers bool
}

// emit appends an operation or receiver line stamped with a fresh time:
// times strictly increase, so file order and time order never differ.
func (s *sim) emit(l line) {
	l.Time = s.t
	s.t += s.step
	s.d.lines = append(s.d.lines, l)
}

func (s *sim) pick(n int) int { return s.r.IntN(n) }

func (s *sim) act() {
	if s.pick(20) == 0 {
		s.stateRead("")
		return
	}
	switch w := s.pick(100); {
	case w < 18:
		s.invoke()
	case w < 34:
		s.complete()
	case w < 38:
		s.commitSome()
	case w < 62:
		s.deliverSome()
	case w < 72:
		s.ackSome()
	case w < 86:
		s.connectSome()
	case w < 90:
		s.disconnectSome()
	case w < 96:
		s.changeMembership()
	default:
		s.copyEvent()
	}
}

func (s *sim) invoke() {
	proc := 1 + s.pick(3)
	if s.outstanding[proc] != nil {
		return
	}
	chat := s.chats[s.pick(len(s.chats))]
	var p *simPersist
	if rs := s.retryable[chat]; len(rs) > 0 && s.pick(3) == 0 {
		// A retry of a send whose outcome the client did not learn: the
		// same key and content (ADR-001 §2).
		old := rs[s.pick(len(rs))]
		for _, o := range s.outstanding {
			if o.chat == old.chat && o.key == old.key {
				return
			}
		}
		p = &simPersist{process: proc, chat: chat, key: old.key, sender: old.sender, hash: old.hash}
	} else if news := s.runMessages(chat); s.checksMembers && len(news) > 0 && s.pick(10) == 0 {
		// Another user resends a message's key, with its content, as a
		// client that shares the key would: a non-member among them is
		// answered the message when the service looks the key up first.
		m := news[s.pick(len(news))]
		p = &simPersist{process: proc, chat: chat, key: m.key, sender: s.users[s.pick(len(s.users))], hash: m.hash, keyFirst: s.pick(2) == 0}
	} else if olds := s.oldKeys(chat); len(olds) > 0 && s.pick(12) == 0 {
		// A key from before the run sent again with other content: the
		// store answers it as a replay of the original (ADR-001 Appendix
		// B), whose content the pushes carry.
		key := olds[s.pick(len(olds))]
		p = &simPersist{process: proc, chat: chat, key: key, sender: s.users[s.pick(len(s.users))], hash: "h-resent-" + key}
	} else {
		s.keys++
		key := fmt.Sprintf("k%d", s.keys)
		p = &simPersist{process: proc, chat: chat, key: key, sender: s.users[s.pick(len(s.users))], hash: "h-" + key}
	}
	p.outside = s.checksMembers && !s.member[[2]string{chat, p.sender}]
	s.outstanding[proc] = p
	s.emit(line{Type: tInvoke, Process: proc, F: "persist", Chat: chat, Key: p.key, Sender: p.sender, PayloadHash: p.hash})
}

// runMessages lists chat's messages written during the run, each by a
// persist of the history.
func (s *sim) runMessages(chat string) []*simMsg {
	var out []*simMsg
	for _, m := range s.store[chat] {
		if m.seq > s.initial {
			out = append(out, m)
		}
	}
	return out
}

// oldKeys lists the keys of chat's messages from before the run.
func (s *sim) oldKeys(chat string) []string {
	var out []string
	for _, m := range s.store[chat] {
		if m.seq <= s.initial {
			out = append(out, m.key)
		}
	}
	return out
}

// commit writes the persist's message, or finds it already written under
// its key (a replay).
func (s *sim) commit(p *simPersist) {
	if p.msg != nil || p.outside {
		return
	}
	if m := s.byKey[[2]string{p.chat, p.key}]; m != nil {
		p.msg, p.dedup = m, true
		return
	}
	s.counter[p.chat]++
	seq := s.counter[p.chat]
	m := &simMsg{chat: p.chat, seq: seq, id: fmt.Sprintf("%s-m%d", p.chat, seq), key: p.key, sender: p.sender, hash: p.hash}
	s.store[p.chat] = append(s.store[p.chat], m)
	s.byKey[[2]string{p.chat, p.key}] = m
	p.msg = m
	s.append(m)
}

// append puts an event of m on the topic and queues it on every open,
// accepted connection of a member's device.
func (s *sim) append(m *simMsg) {
	part := uint64(0)
	for i, c := range s.chats {
		if c == m.chat {
			part = uint64(i % 2)
		}
	}
	if s.initial%2 == 1 {
		// A sixth of the runs spread each chat over two partitions (a
		// relay keyed by message, not chat), the gateway streaming them
		// interleaved as they come: stream_continuity is judged a
		// partition at a time. Decided from what is drawn already, so
		// that a seed's run is the one it was.
		part = m.seq % 2
	}
	ev := *m
	ev.part, ev.order = part, s.offsets[part]
	s.offsets[part]++
	s.topic = append(s.topic, &ev)
	for _, dv := range s.devices {
		if dv.connected && !dv.refused && s.member[[2]string{m.chat, dv.user}] {
			dv.queue[m.chat] = append(dv.queue[m.chat], m)
		}
	}
}

func (s *sim) outstandingList() []*simPersist {
	var out []*simPersist
	for proc := 1; proc <= 3; proc++ {
		if p := s.outstanding[proc]; p != nil {
			out = append(out, p)
		}
	}
	return out
}

func (s *sim) commitSome() {
	if ps := s.outstandingList(); len(ps) > 0 {
		s.commit(ps[s.pick(len(ps))])
	}
}

func (s *sim) complete() {
	ps := s.outstandingList()
	if len(ps) == 0 {
		return
	}
	s.completeOne(ps[s.pick(len(ps))], s.pick(10))
}

// completeOne ends a persist: ok (outcome < 8), info (8) or fail (9).
func (s *sim) completeOne(p *simPersist, outcome int) {
	delete(s.outstanding, p.process)
	switch {
	case p.outside && p.keyFirst && s.byKey[[2]string{p.chat, p.key}] != nil:
		m := s.byKey[[2]string{p.chat, p.key}]
		p.msg, p.dedup = m, true
		s.emit(line{Type: tOK, Process: p.process, F: "persist", Seq: u64(m.seq), MessageID: m.id, Dedup: flag(true)})
		return
	case p.outside:
		s.emit(line{Type: tFail, Process: p.process, F: "persist", Error: "not_a_member"})
	case outcome < 8:
		s.commit(p)
		s.emit(line{Type: tOK, Process: p.process, F: "persist", Seq: u64(p.msg.seq), MessageID: p.msg.id, Dedup: flag(p.dedup)})
		return
	case outcome == 8 || p.msg != nil:
		if p.msg == nil && s.pick(2) == 0 {
			s.commit(p) // written, but the answer was lost
		}
		s.emit(line{Type: tInfo, Process: p.process, F: "persist", Error: "timeout"})
	default:
		s.emit(line{Type: tFail, Process: p.process, F: "persist", Error: "counter_missing"})
	}
	s.retryable[p.chat] = append(s.retryable[p.chat], p)
}

func (s *sim) connected() []*simDevice {
	var out []*simDevice
	for _, dv := range s.devices {
		if dv.connected && !dv.refused {
			out = append(out, dv)
		}
	}
	return out
}

// frame pushes msgs of chat to dv, streamed or as a catch-up page,
// sometimes with their content hashes and senders.
func (s *sim) frame(dv *simDevice, chat string, msgs []*simMsg, catchUp bool) {
	l := line{Type: tPush, Device: dv.name, Chat: chat, CatchUp: catchUp}
	withContent := s.pick(3) == 0
	for _, m := range msgs {
		l.Seqs = append(l.Seqs, m.seq)
		l.MessageIDs = append(l.MessageIDs, m.id)
		if withContent {
			hash, sender := m.hash, m.sender
			if s.pick(6) == 0 {
				hash = "" // came without it
			}
			if s.pick(6) == 0 {
				sender = ""
			}
			l.PayloadHashes = append(l.PayloadHashes, hash)
			l.Senders = append(l.Senders, sender)
		}
		if m.seq > dv.maxRecv[chat] {
			dv.maxRecv[chat] = m.seq
		}
	}
	s.emit(l)
}

func (s *sim) deliver(dv *simDevice, chat string, all bool) {
	q := dv.queue[chat]
	if len(q) == 0 {
		return
	}
	k := len(q)
	if !all {
		k = 1 + s.pick(len(q))
	}
	s.frame(dv, chat, q[:k], false)
	dv.queue[chat] = q[k:]
}

func (s *sim) deliverSome() {
	ds := s.connected()
	if len(ds) == 0 {
		return
	}
	dv := ds[s.pick(len(ds))]
	s.deliver(dv, s.chats[s.pick(len(s.chats))], false)
}

func (s *sim) ack(dv *simDevice, chat string) {
	n := dv.maxRecv[chat]
	s.emit(line{Type: tAck, Device: dv.name, Chat: chat, LastAcked: u64(n)})
	if n > dv.acked[chat] {
		dv.acked[chat] = n
	}
	k := [2]string{chat, dv.user}
	if n > s.state[k] {
		s.state[k] = n
	}
}

func (s *sim) ackSome() {
	ds := s.connected()
	if len(ds) == 0 {
		return
	}
	dv := ds[s.pick(len(ds))]
	chat := s.chats[s.pick(len(s.chats))]
	if dv.maxRecv[chat] > 0 || s.member[[2]string{chat, dv.user}] {
		s.ack(dv, chat)
	}
}

func (s *sim) connect(dv *simDevice, mayRefuse bool) {
	if dv.maxRecv == nil {
		dv.maxRecv, dv.acked = map[string]uint64{}, map[string]uint64{}
	}
	dv.connected, dv.queue = true, map[string][]*simMsg{}
	if mayRefuse && s.pick(8) == 0 {
		dv.refused = true
		s.emit(line{Type: tConnect, Device: dv.name, User: dv.user, Refused: true, Error: "bad_token"})
		return
	}
	s.emit(line{Type: tConnect, Device: dv.name, User: dv.user})
	s.catchUp(dv)
}

// catchUp syncs every chat the user is a member of from the device's last
// acknowledged sequence, in pages (ADR-001 §4).
func (s *sim) catchUp(dv *simDevice) {
	for _, chat := range s.chats {
		if !s.member[[2]string{chat, dv.user}] {
			continue
		}
		var missed []*simMsg
		for _, m := range s.store[chat] {
			if m.seq > dv.acked[chat] {
				missed = append(missed, m)
			}
		}
		limit := 1 + s.pick(3)
		for len(missed) > 0 {
			k := min(limit, len(missed))
			s.frame(dv, chat, missed[:k], true)
			missed = missed[k:]
		}
	}
}

func (s *sim) connectSome() {
	dv := s.devices[s.pick(len(s.devices))]
	if !dv.connected {
		s.connect(dv, true)
	}
}

func (s *sim) disconnect(dv *simDevice, why string) {
	s.emit(line{Type: tDisconnect, Device: dv.name, Error: why})
	dv.connected, dv.refused, dv.queue = false, false, nil
}

func (s *sim) disconnectSome() {
	dv := s.devices[s.pick(len(s.devices))]
	if dv.connected {
		s.disconnect(dv, []string{"", "dropped", "slow_consumer"}[s.pick(3)])
	}
}

func (s *sim) changeMembership() {
	chat := s.chats[s.pick(len(s.chats))]
	user := s.users[s.pick(len(s.users))]
	k := [2]string{chat, user}
	if s.member[k] {
		s.member[k] = false
		s.emit(line{Type: tLeave, Chat: chat, User: user})
		for _, dv := range s.devices {
			if dv.user == user && dv.connected {
				delete(dv.queue, chat) // the gateway stops the chat's stream
			}
		}
		return
	}
	for _, dv := range s.devices {
		if dv.user == user && dv.connected {
			s.disconnect(dv, "membership_changed")
		}
	}
	s.member[k] = true
	s.emit(line{Type: tJoin, Chat: chat, User: user})
}

// stateRead records a read of a chat's delivery_state as user (a user of
// the history, or an outsider no join line names, when user is ""),
// FORMAT.md's state_read line: "refused": true when the service refused
// it, else it was answered. A member is answered (now and then refused
// all the same, as a 4xx for another cause would be); a non-member is
// refused by a service that checks membership, answered by one that
// does not.
func (s *sim) stateRead(user string) {
	chat := s.chats[s.pick(len(s.chats))]
	if user == "" {
		user = "outsider-1"
		if s.pick(4) != 0 {
			user = s.users[s.pick(len(s.users))]
		}
	}
	member := s.member[[2]string{chat, user}]
	refused := !member && s.checksMembers
	if member && s.pick(12) == 0 {
		refused = true
	}
	s.emit(line{Type: tStateRead, Chat: chat, User: user, Refused: refused})
}

// copyEvent is a producer retry: the topic holds a message twice.
func (s *sim) copyEvent() {
	if len(s.topic) > 0 {
		m := *s.topic[s.pick(len(s.topic))]
		s.append(&m)
	}
}

// finish stops the writers, settles devices and records the final tables.
func (s *sim) finish() {
	for _, p := range s.outstandingList() {
		s.completeOne(p, s.pick(9))
	}
	if s.pick(4) == 0 {
		s.copyEvent()
	}
	order := s.r.Perm(len(s.devices))
	for _, i := range order {
		dv := s.devices[i]
		if s.pick(7) == 0 {
			continue // never settles
		}
		if s.pick(5) == 0 {
			// As bench's outsider devices do, a user reads one chat's
			// delivery_state as its device settles.
			s.stateRead(dv.user)
		}
		if dv.connected && dv.refused {
			s.disconnect(dv, "refused")
		}
		if !dv.connected {
			s.connect(dv, false)
		} else if s.pick(4) == 0 {
			s.catchUp(dv) // a last catch-up, besides the stream
		}
		for _, chat := range s.chats {
			for len(dv.queue[chat]) > 0 {
				s.deliver(dv, chat, s.pick(2) == 0)
			}
		}
		for _, chat := range s.chats {
			if dv.maxRecv[chat] > dv.acked[chat] || (s.member[[2]string{chat, dv.user}] && s.pick(2) == 0) {
				s.ack(dv, chat)
			}
		}
		s.emit(line{Type: tSettled, Device: dv.name})
		if s.pick(4) == 0 {
			s.disconnect(dv, "")
		}
	}
	if s.pick(3) == 0 {
		// An outsider device (bench --outsider-devices) reads a chat's
		// delivery_state as it settles: a user no join line names.
		s.stateRead("outsider-2")
	}
	s.finalTables()
	s.d.lines = append(s.d.lines, line{Type: tEnd})
}

func (s *sim) finalTables() {
	var finals []line
	tableRead := func(table string, n int) {
		if s.pick(10) < 9 {
			finals = append(finals, line{Type: tTableRead, Table: table, Lines: u64(uint64(n))})
		}
	}
	if s.pick(10) < 7 {
		n := 0
		for _, chat := range s.chats {
			for _, m := range s.store[chat] {
				finals = append(finals, line{Type: tFinal, Table: tableMessages, Chat: chat, Seq: u64(m.seq), MessageID: m.id, Key: m.key, Sender: m.sender})
				n++
			}
		}
		tableRead(tableMessages, n)
	}
	if s.pick(10) < 7 {
		for _, m := range s.topic {
			finals = append(finals, line{Type: tFinal, Table: tableEvents, Chat: m.chat, Seq: u64(m.seq), MessageID: m.id, Partition: u64(m.part), Offset: u64(m.order)})
		}
		tableRead(tableEvents, len(s.topic))
	}
	if s.pick(10) < 8 {
		n := 0
		for _, chat := range s.chats {
			for _, user := range s.users {
				v, ok := s.state[[2]string{chat, user}]
				if (ok && v > 0) || s.pick(8) == 0 {
					finals = append(finals, line{Type: tFinal, Table: tableDeliveryState, Chat: chat, User: user, LastAcked: u64(v)})
					n++
				}
			}
		}
		tableRead(tableDeliveryState, n)
	}
	// Final lines and table_read lines come in any order among themselves.
	s.r.Shuffle(len(finals), func(i, j int) { finals[i], finals[j] = finals[j], finals[i] })
	s.d.lines = append(s.d.lines, finals...)
}

// stateContract puts a field into the header's contract.
func (s *sim) stateContract(field, value string) {
	if s.d.hdr.Contract == nil {
		s.d.hdr.Contract = map[string]string{}
	}
	s.d.hdr.Contract[field] = value
}
