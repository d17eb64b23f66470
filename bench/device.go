package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/target"
)

// A device is one receiver as ADR-001's client: it keeps a reorder buffer
// per chat (§6), settles a gap that stays open past gapWait by a sync
// from what it has, acknowledges what it has (§5), and on a dropped
// connection reconnects and catches up by a paged sync from its last
// acknowledged sequence before it goes on with the stream (§4).
type device struct {
	id, user string
	ch       gateway.Channel
	rec      *history.Recorder
	tally    *receiverTally
	limit    int // a catch-up page
	gapWait  time.Duration

	views     map[string]*chatView
	conn      *liveConn // nil: not connected
	connected bool      // it has connected once: its lines may follow
	dialErr   error     // the last failed dial
	settling  <-chan struct{}
	drop      chan dropOrder // the nemesis' strikes
	pause     chan time.Duration
	resumeAt  time.Time // it reads nothing before (slow_receivers)
	// dials bounds the devices dialling at once (a herd of thousands of
	// handshakes times out on a busy service); ready is called once the
	// first connect and catch-up are done, or given up.
	dials chan struct{}
	ready func()
	// firstDial, when set, hears how the device's first handshake ended
	// (nil: it connected), once.
	firstDial func(error)
	// outsider: the device's user is a member of no chat (an outsider
	// or anonymous device): the run owes it nothing, it never keeps the
	// run from going on, and a handshake the service refuses
	// (gateway.ErrRefused) is recorded as a refused connect and closed,
	// and not tried again. anonymous: its handshake names no user
	// (gateway.AnonymousDialer); its lines name user.
	outsider, anonymous bool
	refused             bool // its handshake was refused
	// stateChat, for an outsider device, is the chat whose delivery_state
	// it reads as its user as it settles (readState); "": none.
	stateChat string
}

// chatView is what a device has of one chat.
type chatView struct {
	chat    string
	acked   uint64              // delivery acked up to here (its cursor)
	ackedOn *liveConn           // the connection the last ack went on
	shown   uint64              // displayed up to here: ≥ acked once the ack is sent
	pending map[uint64]struct{} // received above shown: the reorder buffer
	have    seqSet              // every sequence received, for duplicates
	highest uint64              // the highest sequence received
	gapAt   time.Time           // when the buffer's gap opened; zero: none
	// What the open connection streamed of the chat (not caught up):
	// every sequence, and the lowest; 0, none yet.
	streamed    seqSet
	lowStreamed uint64
	// catchUpCut: a catch-up of the chat was cut short (syncFrom): the
	// service pages for ever, and is not read again.
	catchUpCut bool
}

// liveConn is an open connection and the goroutine reading it.
type liveConn struct {
	c       gateway.Conn
	batches chan []gateway.Message
	ended   chan error // the reader's end, once
	done    chan struct{}
	// streamed counts the messages the device took from batches.
	streamed uint64
	// pushed counts them by chat (cutPushes).
	pushed map[string]int64
}

// gapWait is how long a device waits for a gap's message to be streamed
// before a sync settles it: in flight commits and reorders close on their
// own well within it.
const defaultGapWait = 50 * time.Millisecond

func newDevice(user string, chats []string, ch gateway.Channel, rec *history.Recorder, tally *receiverTally, limit int) *device {
	d := &device{
		id: user + "/d1", user: user, ch: ch, rec: rec, tally: tally, limit: limit, gapWait: defaultGapWait,
		views: map[string]*chatView{}, drop: make(chan dropOrder, 1), pause: make(chan time.Duration, 1),
	}
	for _, c := range chats {
		d.views[c] = &chatView{chat: c, pending: map[uint64]struct{}{}}
	}
	return d
}

// mostMessages is the most messages a catch-up of chat reads: the
// channel's bound, or none.
func (d *device) mostMessages(chat string) int64 {
	if b, ok := d.ch.(gateway.MessageBound); ok {
		return b.MostMessages(chat)
	}
	return math.MaxInt64
}

// dropNow asks the device to drop its connection (the nemesis' strike
// window); one still pending is not repeated.
func (d *device) dropNow(window int, offline time.Duration) {
	select {
	case d.drop <- dropOrder{window: window, offline: offline}:
	default:
	}
}

// dropOrder is one strike: its drop window, and how long the device
// stays offline.
type dropOrder struct {
	window  int
	offline time.Duration
}

// pauseNow has the device stop reading for p (slow_receivers); one
// still pending is not repeated.
func (d *device) pauseNow(p time.Duration) {
	select {
	case d.pause <- p:
	default:
	}
}

// connect dials until it is connected, ctx ends, quit closes or, if
// within > 0, that long has passed; a refused or failed dial is retried
// after a pause. The connection reads under ctx, not under the dials'
// deadline: it outlives them (a settling device's, read under a
// deadline cancelled once it connected, ended at once).
func (d *device) connect(ctx context.Context, quit <-chan struct{}, within time.Duration) bool {
	dialCtx := ctx
	if within > 0 {
		var cancel context.CancelFunc
		dialCtx, cancel = context.WithTimeout(ctx, within)
		defer cancel()
	}
	pause := 5 * time.Millisecond
	for {
		c, err := d.dial(dialCtx)
		if d.firstDial != nil {
			d.firstDial(err)
			d.firstDial = nil
		}
		if err != nil && d.outsider && errors.Is(err, gateway.ErrRefused) {
			d.refuse(err)
			return false
		}
		if err == nil {
			d.rec.RecordReceiver(&history.Receiver{Kind: history.KindConnect, Device: d.id, User: d.user})
			lc := &liveConn{c: c, batches: make(chan []gateway.Message, 16), ended: make(chan error, 1), done: make(chan struct{})}
			go lc.read(ctx)
			d.conn, d.connected = lc, true
			for _, v := range d.views {
				v.streamed, v.lowStreamed = nil, 0
			}
			d.tally.connects.Add(1)
			return true
		}
		d.tally.dialErrors.Add(1)
		d.dialErr = err
		if !errors.Is(err, context.DeadlineExceeded) && d.ready != nil {
			// Refused, not slow: the writers need not wait for it (it
			// goes on dialling, and Settle names it if it never gets in).
			d.ready()
		}
		select {
		case <-dialCtx.Done():
			return false
		case <-quit:
			return false
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
	}
}

// refuse records an outsider's handshake the service refused, as the
// format has it: a connect whose identity was refused, the refusal its
// error, and its end. Nothing can be pushed on it; it is not dialled
// again.
func (d *device) refuse(err error) {
	d.rec.RecordReceiver(&history.Receiver{Kind: history.KindConnect, Device: d.id, User: d.user, Refused: true, Error: endReason(err)})
	d.rec.RecordReceiver(&history.Receiver{Kind: history.KindDisconnect, Device: d.id, Error: "refused"})
	d.connected, d.refused = true, true
	d.tally.refused.Add(1)
	if d.ready != nil {
		d.ready()
	}
}

// dial is one handshake, waiting for a turn among the devices' dials.
func (d *device) dial(ctx context.Context) (gateway.Conn, error) {
	if d.dials != nil {
		select {
		case d.dials <- struct{}{}:
			defer func() { <-d.dials }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if d.anonymous {
		return gateway.Anonymous(d.ch).DialAnonymous(ctx)
	}
	return d.ch.Dial(ctx, d.user)
}

func (lc *liveConn) read(ctx context.Context) {
	for {
		b, err := lc.c.Next(ctx)
		if err == nil {
			err = unrecordable(b)
		}
		if err != nil {
			lc.ended <- err
			return
		}
		select {
		case lc.batches <- b:
		case <-lc.done:
			return
		}
	}
}

// unrecordable is why a pushed batch cannot go into the history, nil
// when it can: a string longer than a history's may be would leave a
// file chatseq check refuses. The connection ends on it, as on a frame
// it cannot read; the device reconnects and catches up.
func unrecordable(b []gateway.Message) error {
	for _, m := range b {
		for _, f := range [...]struct{ name, v string }{{"chat id", m.ChatID}, {"message id", m.MessageID}, {"sender", m.SenderID}} {
			if problem := history.TooLong(f.name, f.v); problem != "" {
				return fmt.Errorf("%w: push channel: %s", gateway.ErrBadFrame, problem)
			}
		}
	}
	return nil
}

// disconnect records the connection's end; drop ends it at once, as a
// lost network does, else it closes normally.
func (d *device) disconnect(why string, drop bool) {
	if d.conn == nil {
		return
	}
	close(d.conn.done)
	if drop {
		d.conn.c.Drop()
	} else {
		d.conn.c.Close()
	}
	d.conn = nil
	d.rec.RecordReceiver(&history.Receiver{Kind: history.KindDisconnect, Device: d.id, Error: why})
}

// connectionEnded records the end of a connection whose reader stopped
// on err. Dropped, not closed: a connection that failed has no closing
// handshake to wait for (and a frame past the read limit would be read
// to its end first).
func (d *device) connectionEnded(err error) {
	d.tally.ended.Add(1)
	d.disconnect(endReason(err), true)
}

// run connects, catches up and follows the stream until settle closes;
// then it settles: a last catch-up, its ack, the settled line.
func (d *device) run(ctx context.Context, settle <-chan struct{}) {
	d.settling = settle
	if d.connect(ctx, settle, 0) {
		d.catchUp(ctx)
	}
	if d.ready != nil {
		d.ready()
	}
	gap := time.NewTimer(time.Hour)
	gap.Stop()
	defer gap.Stop()
	wake := time.NewTimer(time.Hour)
	wake.Stop()
	defer wake.Stop()
	for {
		var batches <-chan []gateway.Message
		var ended <-chan error
		paused := time.Now().Before(d.resumeAt)
		if d.conn != nil {
			ended = d.conn.ended
			if !paused {
				batches = d.conn.batches
			}
		}
		select {
		case <-settle:
			d.settle(ctx)
			return
		case <-ctx.Done():
			d.settle(context.WithoutCancel(ctx))
			return
		case b := <-batches:
			d.stream(ctx, b)
		case err := <-ended:
			d.connectionEnded(err)
			d.reconnect(ctx)
		case o := <-d.drop:
			d.tally.drops.Add(1)
			d.disconnect("dropped", true)
			if !d.stayOffline(ctx, o.offline) {
				continue // the settle or the run's end comes next
			}
			d.reconnect(ctx)
			d.tally.recovered(o.window, time.Now())
		case p := <-d.pause:
			d.resumeAt = time.Now().Add(p)
			wake.Reset(p)
		case <-wake.C:
			// reading again
		case <-gap.C:
			if !paused {
				d.settleGaps(ctx, true)
			}
		}
		if wait, open := d.nextGap(); open {
			gap.Reset(max(wait, time.Until(d.resumeAt)))
		}
	}
}

func endReason(err error) string {
	if err == nil {
		return "closed"
	}
	// Credentials hidden before the cut: the error may quote what a
	// hostile service sent, and the history and the report show it.
	msg := redact.Text(err.Error())
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}

// stayOffline keeps a dropped device off the network for offline;
// false when the settle or ctx came first.
func (d *device) stayOffline(ctx context.Context, offline time.Duration) bool {
	if offline <= 0 {
		return true
	}
	t := time.NewTimer(offline)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-d.settling:
		return false
	case <-ctx.Done():
		return false
	}
}

func (d *device) reconnect(ctx context.Context) {
	if d.outsider && !d.stayOffline(ctx, outsiderRedial) {
		return // a service that ends an outsider's every connection is not dialled in a loop
	}
	d.tally.reconnects.Add(1)
	if d.connect(ctx, d.settling, 0) {
		d.catchUp(ctx)
	}
}

// stream takes one pushed batch: one push line a chat, the messages into
// the reorder buffer, and an ack of what is now shown.
func (d *device) stream(ctx context.Context, b []gateway.Message) {
	now := time.Now()
	if d.conn != nil {
		d.conn.streamed += uint64(len(b))
	}
	for len(b) > 0 {
		chat := b[0].ChatID
		n := 1
		for n < len(b) && b[n].ChatID == chat {
			n++
		}
		part := b[:n]
		b = b[n:]
		if d.cutPushes(chat, len(part)) {
			continue
		}
		v := d.views[chat]
		d.recordPush(chat, part, false)
		if v == nil {
			// A chat the device's user is not a member of: recorded for
			// push_authorization to judge, and kept out of every view.
			d.tally.foreign.Add(int64(len(part)))
			continue
		}
		for _, m := range part {
			d.receive(v, m.Sequence, m.CreatedAt, now, false)
			v.streamed.set(m.Sequence)
			if v.lowStreamed == 0 || m.Sequence < v.lowStreamed {
				v.lowStreamed = m.Sequence
			}
		}
		v.advance()
		if len(v.pending) > 0 && v.gapAt.IsZero() {
			v.gapAt = now
		}
		d.ack(ctx, v)
	}
}

// cutPushes counts n messages of chat pushed on the open connection and
// reports whether they go past the most the chat can hold
// (gateway.MessageBound): a service that pushes for ever is read no
// further, as its catch-up is not (syncFrom). Those are counted (pushes
// cut), neither recorded nor shown; what came before them is, and the
// check judges it. Without it a flood of frames took the run's memory
// past a gigabyte, all of it recorded.
//
// Chats the device's user is not a member of share one bound,
// foreignPushBound, whatever their number: a flood of made-up chat ids
// grows nothing.
func (d *device) cutPushes(chat string, n int) bool {
	if d.conn == nil {
		return false
	}
	if d.conn.pushed == nil {
		d.conn.pushed = map[string]int64{}
	}
	key, most := chat, int64(foreignPushBound)
	if _, member := d.views[chat]; member {
		most = d.mostMessages(chat)
	} else {
		key = "" // no chat's id
	}
	d.conn.pushed[key] += int64(n)
	if d.conn.pushed[key] <= most {
		return false
	}
	d.tally.pushesCut.Add(int64(n))
	return true
}

// foreignPushBound is how many messages of chats its user is not a member
// of a connection records: push_authorization fails the first.
const foreignPushBound = 10000

func (d *device) recordPush(chat string, msgs []gateway.Message, catchUp bool) {
	seqs := make([]uint64, len(msgs))
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		seqs[i], ids[i] = m.Sequence, m.MessageID
	}
	hashes, senders := pushedContent(msgs)
	d.rec.RecordReceiver(&history.Receiver{Kind: history.KindPush, Device: d.id, Chat: chat, Seqs: seqs, MessageIDs: ids, CatchUp: catchUp, PayloadHashes: hashes, Senders: senders})
	d.tally.pushes.Add(1)
}

// pushedContent is what msgs carried, for identical_order to compare
// with what their persists sent: each one's content hashed as the
// writers hash theirs (payload_hash), an empty one too where the channel
// carries content (a push channel that strips it passed), and its
// sender; "" where a message came without one (a sync page over HTTP
// carries no content), and nil when none came with one.
func pushedContent(msgs []gateway.Message) (hashes, senders []string) {
	for i, m := range msgs {
		if m.Content != "" || m.ContentGiven {
			if hashes == nil {
				hashes = make([]string, len(msgs))
			}
			hashes[i] = target.PayloadHash(m.Content)
		}
		if m.SenderID != "" {
			if senders == nil {
				senders = make([]string, len(msgs))
			}
			senders[i] = m.SenderID
		}
	}
	return hashes, senders
}

// receive counts one message's arrival: a duplicate, out of order, or a
// first receipt whose fan-out latency is measured; caughtUp: by a
// catch-up sync, not streamed.
func (d *device) receive(v *chatView, seq uint64, created, now time.Time, caughtUp bool) {
	d.tally.received.Add(1)
	if v.have.has(seq) {
		d.tally.duplicates.Add(1)
		return
	}
	v.have.set(seq)
	if caughtUp {
		d.tally.caughtUp.Add(1)
	}
	if seq < v.highest {
		d.tally.outOfOrder.Add(1)
	}
	v.highest = max(v.highest, seq)
	d.tally.firstReceipt(v.chat, seq, created, now)
	if seq > v.shown {
		v.pending[seq] = struct{}{}
	}
}

// advance shows what follows shown without a gap.
func (v *chatView) advance() {
	for {
		if _, ok := v.pending[v.shown+1]; !ok {
			break
		}
		delete(v.pending, v.shown+1)
		v.shown++
	}
	if len(v.pending) == 0 {
		v.gapAt = time.Time{}
	}
}

// ack acknowledges what the view shows, if it moved.
func (d *device) ack(ctx context.Context, v *chatView) {
	if v.shown <= v.acked || d.conn == nil {
		return
	}
	d.sendAck(ctx, v, v.shown)
}

// sendAck acknowledges v's chat up to seq on the open connection and
// records it.
func (d *device) sendAck(ctx context.Context, v *chatView, seq uint64) {
	if err := d.conn.c.Ack(ctx, v.chat, seq); err != nil {
		return // the connection is going: its end comes through ended
	}
	v.acked, v.ackedOn = seq, d.conn
	d.rec.RecordReceiver(&history.Receiver{Kind: history.KindDeliveryAck, Device: d.id, Chat: v.chat, Seq: seq})
	d.tally.acks.Add(1)
}

// nextGap is how long until the oldest open gap is due a sync.
func (d *device) nextGap() (time.Duration, bool) {
	var oldest time.Time
	for _, v := range d.views {
		if !v.gapAt.IsZero() && (oldest.IsZero() || v.gapAt.Before(oldest)) {
			oldest = v.gapAt
		}
	}
	if oldest.IsZero() {
		return 0, false
	}
	return max(time.Until(oldest.Add(d.gapWait)), time.Millisecond), true
}

// settleGaps syncs each chat whose gap is due (all with open gaps when
// due is false): what the sync returns is what the service has, so the
// view is shown up to its highest.
func (d *device) settleGaps(ctx context.Context, due bool) {
	for _, v := range d.views {
		if v.gapAt.IsZero() || (due && time.Since(v.gapAt) < d.gapWait) {
			continue
		}
		d.tally.gapSyncs.Add(1)
		d.syncFrom(ctx, v, v.shown)
	}
}

// catchUp is §4's catch-up after a connect: every chat, paged, from its
// last acked sequence.
func (d *device) catchUp(ctx context.Context) {
	for _, c := range d.sortedChats() {
		v := d.views[c]
		d.tally.catchUps.Add(1)
		d.syncFrom(ctx, v, v.acked)
	}
}

// syncFrom reads v's chat after from, page by page until a short page,
// records each page as a catch-up push, shows everything up to the
// highest sequence returned and acks it.
//
// A service that pages for ever is read no further, as the final state's
// read back is not: a full page that ends at or below after (one that
// ignores after), or more messages than the chat can hold
// (gateway.MessageBound), cut the catch-up short, and the device catches
// that chat up no more. Without it a device read the same page, or
// made-up ones, until memory ran out, and the run never ended. What the
// pages held is recorded, so the check judges it.
func (d *device) syncFrom(ctx context.Context, v *chatView, from uint64) {
	if v.catchUpCut {
		return
	}
	after, read := from, int64(0)
	for ctx.Err() == nil {
		msgs, err := d.ch.CatchUp(ctx, d.user, v.chat, after, d.limit)
		if err != nil {
			d.tally.syncErrors.Add(1)
			return // the gap stays open: the next timer tries again
		}
		before := after
		if len(msgs) > 0 {
			d.recordPush(v.chat, msgs, true)
			now := time.Now()
			for _, m := range msgs {
				d.receive(v, m.Sequence, m.CreatedAt, now, true)
				after = max(after, m.Sequence)
			}
		}
		if len(msgs) < d.limit {
			break
		}
		if read += int64(len(msgs)); after <= before || read > d.mostMessages(v.chat) {
			v.catchUpCut = true
			d.tally.catchUpsCut.Add(1)
			return
		}
	}
	// A gap below what the service returned is a sequence it does not
	// hold: ADR-001 §6, gaps are not missing messages.
	if after > v.shown {
		for s := range v.pending {
			if s <= after {
				delete(v.pending, s)
			}
		}
		v.shown = after
	}
	v.gapAt = time.Time{}
	v.advance()
	if len(v.pending) > 0 {
		v.gapAt = time.Now()
	}
	d.ack(ctx, v)
}

// settle is the device's end once the writers stopped and the service
// settled: connected again if it is not, a last catch-up of every chat,
// its acks (every chat it has shown acknowledged again on this
// connection), a moment with the connection held open, the settled line,
// and a normal close.
//
// An acknowledgement is a lower bound on the final delivery_state row
// only if its connection is still open at the settled line (one on a
// connection that dropped may have been lost in flight). So the device
// leaves one on its last connection for every chat, and holds that
// connection open for settleAckHold first: a service that answers an ack
// by closing the connection (a refusal, 1008) closes it there, and the
// device tries again on a new connection, settleTries times in all. One
// that closes it every time leaves no acknowledgement to judge its rows
// by, and delivery_state_consistency says so (unknown), rather than
// passing rows nothing bounded from below.
func (d *device) settle(ctx context.Context) {
	if !d.connected {
		return // no line of it may stand in the history; the run fails
	}
	if d.refused {
		d.readState(ctx)
		d.rec.RecordReceiver(&history.Receiver{Kind: history.KindSettled, Device: d.id})
		return
	}
	for try := 1; ; try++ {
		if d.conn == nil {
			d.connect(ctx, nil, settleDialWithin)
		}
		// What was streamed and not yet taken is the stream's; the
		// catch-up brings it all anyway.
		if d.conn != nil {
			d.drain(ctx)
		}
		d.catchUp(ctx)
		if d.conn == nil {
			break
		}
		d.ackAgain(ctx)
		d.awaitStream(ctx)
		if d.holdOpen(ctx) || try == settleTries {
			break
		}
	}
	d.readState(ctx)
	d.rec.RecordReceiver(&history.Receiver{Kind: history.KindSettled, Device: d.id})
	d.disconnect("settled", false)
}

// readState is an outsider device's read of its stateChat's
// delivery_state as its user, once: a state_read line, refused or
// answered (read_authorization fails an answer, the user a member of no
// chat); a read that was neither (a network error, a 5xx) is counted in
// sync errors, not recorded.
func (d *device) readState(ctx context.Context) {
	r, ok := d.ch.(gateway.StateReaderAs)
	if d.stateChat == "" || !ok {
		return
	}
	err := r.ReadStateAs(ctx, d.user, d.stateChat)
	if err != nil && !errors.Is(err, gateway.ErrRefused) {
		d.tally.syncErrors.Add(1)
		return
	}
	d.rec.RecordReceiver(&history.Receiver{Kind: history.KindStateRead, Chat: d.stateChat, User: d.user, Refused: err != nil})
	d.tally.stateReads.Add(1)
}

const (
	// outsiderRedial is how long an outsider device whose connection the
	// service ended waits before it dials again.
	outsiderRedial = 200 * time.Millisecond
	// settleTries is how many connections a settling device tries to
	// leave its acknowledgements on.
	settleTries = 3
	// settleAckHold is how long a settling device holds its connection
	// open after acknowledging, before its settled line.
	settleAckHold = 250 * time.Millisecond
	// settleDialWithin bounds a settling device's dials.
	settleDialWithin = 30 * time.Second
)

// ackAgain acknowledges, on the open connection, every chat the device
// has shown: what catchUp acknowledged is left as it is, and a chat
// acknowledged on an earlier connection only is acknowledged again (the
// same sequence: ADR-001 §5 keeps the highest, so it changes nothing on a
// correct service).
func (d *device) ackAgain(ctx context.Context) {
	for _, c := range d.sortedChats() {
		if v := d.views[c]; v.acked > 0 && v.ackedOn != d.conn {
			d.sendAck(ctx, v, v.acked)
		}
	}
}

// holdOpen keeps the connection open for settleAckHold, taking what it
// streams, and reports whether it was still open then. A connection that
// ended is recorded as dropped.
func (d *device) holdOpen(ctx context.Context) bool {
	t := time.NewTimer(settleAckHold)
	defer t.Stop()
	for d.conn != nil {
		select {
		case b := <-d.conn.batches:
			d.stream(ctx, b)
		case err := <-d.conn.ended:
			d.connectionEnded(err)
			return false
		case <-t.C:
			return true
		case <-ctx.Done():
			return true
		}
	}
	return false
}

// streamWait bounds how long a settling device waits for its connection
// to stream what it received otherwise (stream_completeness fails a push
// channel that never streams it; a slower one fails too).
const streamWait = 5 * time.Second

// awaitStream waits, up to streamWait, until the open connection has
// streamed every message the device has of a chat above the lowest it
// streamed of it: once a connection streams a chat, what is sent to it
// afterwards comes on the stream, and a message the settle's catch-up
// brought first must not be judged missing for want of a moment's wait.
// It waits for more than stream_completeness asks (a message published
// as the gateway subscribed may come only by catch-up), at worst
// streamWait once.
func (d *device) awaitStream(ctx context.Context) {
	owed := d.streamOwed()
	if len(owed) == 0 {
		return
	}
	t := time.NewTimer(streamWait)
	defer t.Stop()
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for len(owed) > 0 {
		select {
		case <-poll.C:
			if d.streamDrained() {
				d.tally.streamOwing.Add(1) // nothing more is coming
				return
			}
		case b := <-d.conn.batches:
			d.stream(ctx, b)
			owed = slices.DeleteFunc(owed, func(o owedMsg) bool { return o.v.streamed.has(o.seq) })
		case err := <-d.conn.ended:
			d.connectionEnded(err)
			return
		case <-t.C:
			d.tally.streamOwing.Add(1)
			return
		case <-ctx.Done():
			return
		}
	}
}

// streamDrained reports whether a push channel that can tell (the
// in-process gateway, whose feed Quiesce caught up) has no message left
// for the connection: it has handed over all it holds, and the device
// took it all.
func (d *device) streamDrained() bool {
	b, ok := d.conn.c.(interface{ Backlog() (int, uint64) })
	if !ok {
		return false
	}
	queued, handed := b.Backlog()
	return queued == 0 && handed == d.conn.streamed
}

// owedMsg is a message a device's connection has yet to stream.
type owedMsg struct {
	v   *chatView
	seq uint64
}

// streamOwed lists what the connection owes (awaitStream): of each chat
// it streamed, what the device has above the lowest it streamed and the
// connection has not streamed.
func (d *device) streamOwed() []owedMsg {
	var owed []owedMsg
	for _, v := range d.views {
		if v.lowStreamed == 0 {
			continue
		}
		for word, bits := range v.have {
			for b := uint64(0); bits != 0; b, bits = b+1, bits>>1 {
				if s := word*64 + b; bits&1 != 0 && s > v.lowStreamed && !v.streamed.has(s) {
					owed = append(owed, owedMsg{v, s})
				}
			}
		}
	}
	return owed
}

// drain takes the batches already read from the connection.
func (d *device) drain(ctx context.Context) {
	for {
		select {
		case b := <-d.conn.batches:
			d.stream(ctx, b)
		default:
			return
		}
	}
}

func (d *device) sortedChats() []string {
	out := make([]string, 0, len(d.views))
	for c := range d.views {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// seqSet holds the sequences a device received of a chat, 64 to a
// word, the words in a map: a sequence far above the others (a hostile
// push, or a service whose counters stand near 2^32) costs one word. In
// a slice it cost every word below it: 512 MiB a device and chat for a
// sequence at 2^32 (14 GB for one hostile push to each device).
type seqSet map[uint64]uint64

func (s seqSet) has(i uint64) bool { return s[i/64]&(1<<(i%64)) != 0 }

func (s *seqSet) set(i uint64) {
	if *s == nil {
		*s = seqSet{}
	}
	(*s)[i/64] |= 1 << (i % 64)
}
