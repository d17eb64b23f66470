package checker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// pushHistory: two devices connect and are pushed chat c's messages; the
// second device's push is last (its line is the proving one).
func pushHistory(second history.Receiver) *history.History {
	h := &history.History{Header: history.Header{Version: history.Version}}
	rs := []history.Receiver{
		{Kind: history.KindJoin, User: "u1", Chat: "c"},
		{Kind: history.KindJoin, User: "u2", Chat: "c"},
		{Kind: history.KindConnect, Device: "u1/d1", User: "u1"},
		{Kind: history.KindConnect, Device: "u2/d1", User: "u2"},
		{Kind: history.KindPush, Device: "u1/d1", Chat: "c", Seqs: []uint64{1, 2}, MessageIDs: []string{"m1", "m2"}},
		second,
	}
	for i := range rs {
		rs[i].Line, rs[i].Time = i+2, int64(10*(i+1))
	}
	h.Receivers = rs
	return h
}

// A push that shows a chat's sequence with another message id than a push
// to another device did, or one message id at another sequence, is
// reported at its line, as the check after the run fails it; a push that
// agrees is not.
func TestOnlineIdenticalOrder(t *testing.T) {
	push := func(seqs []uint64, ids ...string) history.Receiver {
		return history.Receiver{Kind: history.KindPush, Device: "u2/d1", Chat: "c", Seqs: seqs, MessageIDs: ids}
	}
	for _, tc := range []struct {
		name     string
		second   history.Receiver
		violated bool
	}{
		{"another id at seq 2", push([]uint64{2}, "m3"), true},
		{"m1 at seq 3", push([]uint64{3}, "m1"), true},
		{"the same messages", push([]uint64{1, 2}, "m1", "m2"), false},
		{"a new message", push([]uint64{3}, "m3"), false},
		{"to a device that never connected", history.Receiver{Kind: history.KindPush, Device: "u3/d1", Chat: "c", Seqs: []uint64{2}, MessageIDs: []string{"m3"}}, false},
	} {
		h := pushHistory(tc.second)
		off, _ := Check(h, Options{}).Result(NameIdenticalOrder)
		o := NewOnline(nil)
		for i := range h.Receivers {
			o.Receiver(&h.Receivers[i])
		}
		vs := o.Violations()
		i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == NameIdenticalOrder })
		switch {
		case !tc.violated && (i >= 0 || off.Status == Fail):
			t.Errorf("%s: online %+v, offline %s (%s); want neither", tc.name, vs, off.Status, off.Detail)
		case tc.violated && i < 0:
			t.Errorf("%s: not found online; offline %s (%s)", tc.name, off.Status, off.Detail)
		case tc.violated && off.Status != Fail:
			t.Errorf("%s: online %s, offline %s (%s)", tc.name, vs[i].Detail, off.Status, off.Detail)
		case tc.violated && !slices.Equal(vs[i].Lines, []int{6, 7}):
			t.Errorf("%s: lines %v, want [6 7] (%s)", tc.name, vs[i].Lines, vs[i].Detail)
		}
	}
}

// A push to a user with no join line for the chat before it (once the
// history has join lines), or a streamed push on a connection whose
// identity was refused, is reported at its line, as the check after the
// run fails it; a push to a member, a catch-up over a refused connection
// and a history without join lines are not.
func TestOnlinePushAuthorization(t *testing.T) {
	join := func(user, chat string) history.Receiver {
		return history.Receiver{Kind: history.KindJoin, User: user, Chat: chat}
	}
	leave := func(user, chat string) history.Receiver {
		return history.Receiver{Kind: history.KindLeave, User: user, Chat: chat}
	}
	connect := func(dev, user string, refused bool) history.Receiver {
		return history.Receiver{Kind: history.KindConnect, Device: dev, User: user, Refused: refused}
	}
	push := func(dev, chat string, catchUp bool) history.Receiver {
		return history.Receiver{Kind: history.KindPush, Device: dev, Chat: chat, Seqs: []uint64{1}, MessageIDs: []string{"m1"}, CatchUp: catchUp}
	}
	empty := func(dev, chat string) history.Receiver {
		return history.Receiver{Kind: history.KindPush, Device: dev, Chat: chat, Seqs: []uint64{}, MessageIDs: []string{}}
	}
	for _, tc := range []struct {
		name  string
		lines []history.Receiver
		want  []int // the violation's lines; nil: none
	}{
		{"to a non-member", []history.Receiver{join("u1", "c"), connect("u2/d", "u2", false), push("u2/d", "c", false)}, []int{3, 4}},
		{"joined another chat", []history.Receiver{join("u1", "c"), join("u1", "x"), connect("u1/d", "u1", false), push("u1/d", "x", false), push("u1/d", "d", false)}, []int{4, 6}},
		{"on a refused connection", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", true), push("u1/d", "c", false)}, []int{3, 4}},
		{"to a member", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", false), push("u1/d", "c", false)}, nil},
		{"a catch-up over a refused connection", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", true), push("u1/d", "c", true)}, nil},
		{"joined after a reconnect", []history.Receiver{connect("u1/d", "u1", true), connect("u1/d", "u1", false), join("u1", "c"), push("u1/d", "c", false)}, nil},
		{"no join line at all", []history.Receiver{connect("u1/d", "u1", false), push("u1/d", "c", false)}, nil},
		// A push streamed on a connection opened after the user left
		// cannot have been in flight: it passed, counted as after leave
		// (found by an outside tester). On a connection open at the
		// leave, caught up, or after a join again, it is no violation.
		{"on a connection opened after a leave", []history.Receiver{join("u1", "c"), leave("u1", "c"), connect("u1/d", "u1", false), push("u1/d", "c", false)}, []int{4, 5}},
		{"on a connection open at the leave", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", false), leave("u1", "c"), push("u1/d", "c", false)}, nil},
		{"caught up after a leave", []history.Receiver{join("u1", "c"), leave("u1", "c"), connect("u1/d", "u1", false), push("u1/d", "c", true)}, nil},
		{"joined again", []history.Receiver{join("u1", "c"), leave("u1", "c"), join("u1", "c"), connect("u1/d", "u1", false), push("u1/d", "c", false)}, nil},
		// A push line of no message pushed nothing: it failed on a
		// refused connection or to a non-member (an outside tester's
		// false FAIL).
		{"nothing to a non-member", []history.Receiver{join("u1", "c"), connect("u2/d", "u2", false), empty("u2/d", "c")}, nil},
		{"nothing on a refused connection", []history.Receiver{join("u1", "c"), connect("u1/d", "u1", true), empty("u1/d", "c")}, nil},
	} {
		h := &history.History{Header: history.Header{Version: history.Version}, Receivers: tc.lines}
		onlineAsOffline(t, tc.name, h, NamePushAuthorization, tc.want)
	}
}

// onlineAsOffline numbers h's receiver lines from line 2, judges them
// online and offline, and fails unless both find name violated (online
// at lines want) or neither does (want nil).
func onlineAsOffline(t *testing.T, name string, h *history.History, invariant string, want []int) {
	t.Helper()
	for i := range h.Receivers {
		h.Receivers[i].Line, h.Receivers[i].Time = i+2, int64(10*(i+1))
	}
	off, _ := Check(h, Options{}).Result(invariant)
	o := NewOnline(nil)
	o.Header(&h.Header)
	for i := range h.Receivers {
		o.Receiver(&h.Receivers[i])
	}
	vs := o.Violations()
	i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == invariant })
	switch {
	case want == nil && (i >= 0 || off.Status == Fail):
		t.Errorf("%s: online %+v, offline %s (%s); want neither", name, vs, off.Status, off.Detail)
	case want != nil && i < 0:
		t.Errorf("%s: not found online; offline %s (%s)", name, off.Status, off.Detail)
	case want != nil && off.Status != Fail:
		t.Errorf("%s: online %s, offline %s (%s)", name, vs[i].Detail, off.Status, off.Detail)
	case want != nil && !slices.Equal(vs[i].Lines, want):
		t.Errorf("%s: lines %v, want %v (%s)", name, vs[i].Lines, want, vs[i].Detail)
	}
}

// A delivery_ack above what its device was pushed of the chat before it
// (streamed or caught up, on any connection of that device), and above
// the header's initial_counter, is reported at the ack's line, as the
// check after the run fails it; an ack within what the device received,
// or at most initial_counter, is not. Each case's verdict is the offline
// check's too.
func TestOnlineDeliveryAckAheadOfWhatItsDeviceReceived(t *testing.T) {
	connect := func(dev, user string) history.Receiver {
		return history.Receiver{Kind: history.KindConnect, Device: dev, User: user}
	}
	push := func(dev, chat string, catchUp bool, seqs ...uint64) history.Receiver {
		ids := make([]string, len(seqs))
		for i, s := range seqs {
			ids[i] = fmt.Sprintf("%s-m%d", chat, s)
		}
		return history.Receiver{Kind: history.KindPush, Device: dev, Chat: chat, Seqs: seqs, MessageIDs: ids, CatchUp: catchUp}
	}
	ack := func(dev, chat string, seq uint64) history.Receiver {
		return history.Receiver{Kind: history.KindDeliveryAck, Device: dev, Chat: chat, Seq: seq}
	}
	joins := []history.Receiver{
		{Kind: history.KindJoin, User: "u1", Chat: "c"}, {Kind: history.KindJoin, User: "u1", Chat: "x"},
		{Kind: history.KindJoin, User: "u2", Chat: "c"},
	}
	for _, tc := range []struct {
		name    string
		initial string // the header's initial_counter, "" none
		lines   []history.Receiver
		want    []int // the violation's lines; nil: none
	}{
		{"within what was streamed", "", []history.Receiver{connect("u1/d", "u1"), push("u1/d", "c", false, 2, 1, 3), ack("u1/d", "c", 3)}, nil},
		{"within what was caught up", "", []history.Receiver{connect("u1/d", "u1"), push("u1/d", "c", true, 1, 2), ack("u1/d", "c", 2)}, nil},
		{"ahead of the pushes", "", []history.Receiver{connect("u1/d", "u1"), push("u1/d", "c", false, 1, 2), ack("u1/d", "c", 3)}, []int{7}},
		{"ahead, the push coming after", "", []history.Receiver{connect("u1/d", "u1"), push("u1/d", "c", false, 1), ack("u1/d", "c", 2), push("u1/d", "c", false, 2)}, []int{7}},
		{"another chat's pushes", "", []history.Receiver{connect("u1/d", "u1"), push("u1/d", "x", false, 1, 2, 3), ack("u1/d", "c", 1)}, []int{7}},
		{"another device's pushes", "", []history.Receiver{connect("u1/d", "u1"), connect("u2/d", "u2"), push("u2/d", "c", false, 1, 2), ack("u1/d", "c", 1)}, []int{8}},
		{"pushed on an earlier connection", "", []history.Receiver{connect("u1/d", "u1"), push("u1/d", "c", false, 1, 2),
			{Kind: history.KindDisconnect, Device: "u1/d"}, connect("u1/d", "u1"), ack("u1/d", "c", 2)}, nil},
		{"up to initial_counter, nothing pushed", "5", []history.Receiver{connect("u1/d", "u1"), ack("u1/d", "c", 5)}, nil},
		{"above initial_counter", "5", []history.Receiver{connect("u1/d", "u1"), push("u1/d", "c", false, 6), ack("u1/d", "c", 7)}, []int{7}},
	} {
		h := &history.History{Header: history.Header{Version: history.Version}, Receivers: append(slices.Clone(joins), tc.lines...)}
		if tc.initial != "" {
			h.Header.Extra = map[string]string{history.InitialCounterField: tc.initial}
		}
		onlineAsOffline(t, tc.name, h, NameDeliveryStateConsistency, tc.want)
	}
}

// The online check reads initial_counter from the header the readers hand
// it (history.HeaderSink), through a run's tapped recorder (the Feed) and
// a file read back alike: an ack at initial_counter with nothing pushed is
// no violation, one above it is, at its line.
func TestOnlineDeliveryAckReadsTheHeadersInitialCounter(t *testing.T) {
	for _, tc := range []struct {
		seq  uint64
		want bool
	}{{4, false}, {5, true}} {
		path := filepath.Join(t.TempDir(), "h.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		live := NewOnline(nil)
		feed := NewOnlineFeed(path, live)
		rec, err := history.NewTappedRecorder(f, history.Header{Extra: map[string]string{history.InitialCounterField: "4"}}, 0, feed.Tap())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []history.Receiver{
			{Kind: history.KindJoin, Chat: "A", User: "u1"},
			{Kind: history.KindConnect, Device: "d1", User: "u1"},
			{Kind: history.KindDeliveryAck, Device: "d1", Chat: "A", Seq: tc.seq},
		} {
			if _, err := rec.RecordReceiver(&r); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.End(); err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		rep, _, err := feed.Check(Options{})
		if err != nil {
			t.Fatal(err)
		}
		read := NewOnline(nil)
		if _, err := history.ScanFile(path, onlineOnly{read}); err != nil {
			t.Fatal(err)
		}
		off, _ := rep.Result(NameDeliveryStateConsistency)
		for name, o := range map[string]*Online{"the feed": live, "the file read back": read} {
			vs := o.Violations()
			found := len(vs) == 1 && vs[0].Invariant == NameDeliveryStateConsistency && slices.Equal(vs[0].Lines, []int{4})
			if found != tc.want || (off.Status == Fail) != tc.want || len(vs) > 1 {
				t.Errorf("an ack of seq %d over initial_counter 4, online through %s: %+v, offline %s (%s); want flagged at line 4: %v", tc.seq, name, vs, off.Status, off.Detail, tc.want)
			}
		}
	}
}

// onlineOnly is a sink that hands the lines to an online check alone.
type onlineOnly struct{ *Online }

// On 3,000 random receivers' histories (devices connecting, dropping,
// pushed streamed and caught-up batches of two chats, acking any
// sequence, over an initial_counter of 0 to 3) the online check flags
// delivery_state_consistency exactly when the check after the run fails
// it: without a final delivery_state table, the acks are all it judges.
func TestOnlineDeliveryAckAgreesOnRandomHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	devices := []struct{ name, user string }{{"u0/a", "u0"}, {"u0/b", "u0"}, {"u1/a", "u1"}}
	chats := []string{"c0", "c1"}
	flagged, failed := 0, 0
	runs := randomRuns(3000)
	for n := range runs {
		h := &history.History{Header: history.Header{Version: history.Version, Extra: map[string]string{history.InitialCounterField: fmt.Sprint(rng.IntN(4))}}}
		for _, c := range chats {
			for _, u := range []string{"u0", "u1"} {
				h.Receivers = append(h.Receivers, history.Receiver{Kind: history.KindJoin, Chat: c, User: u})
			}
		}
		for range 4 + rng.IntN(20) {
			d, c := devices[rng.IntN(len(devices))], chats[rng.IntN(len(chats))]
			var r history.Receiver
			switch k := rng.IntN(10); {
			case k < 2:
				r = history.Receiver{Kind: history.KindConnect, Device: d.name, User: d.user}
			case k < 3:
				r = history.Receiver{Kind: history.KindDisconnect, Device: d.name}
			case k < 7:
				r = history.Receiver{Kind: history.KindPush, Device: d.name, Chat: c, CatchUp: rng.IntN(3) == 0}
				for range 1 + rng.IntN(3) {
					s := uint64(1 + rng.IntN(8))
					r.Seqs, r.MessageIDs = append(r.Seqs, s), append(r.MessageIDs, fmt.Sprintf("%s-m%d", c, s))
				}
			default:
				r = history.Receiver{Kind: history.KindDeliveryAck, Device: d.name, Chat: c, Seq: uint64(rng.IntN(10))}
			}
			h.Receivers = append(h.Receivers, r)
		}
		for i := range h.Receivers {
			h.Receivers[i].Line, h.Receivers[i].Time = i+2, int64(10*(i+1))
		}
		off, _ := Check(h, Options{}).Result(NameDeliveryStateConsistency)
		o := NewOnline(nil)
		o.Header(&h.Header)
		for i := range h.Receivers {
			o.Receiver(&h.Receivers[i])
		}
		found := slices.ContainsFunc(o.Violations(), func(v Violation) bool { return v.Invariant == NameDeliveryStateConsistency })
		if found != (off.Status == Fail) {
			t.Fatalf("history %d: online flagged %v, offline %s (%s); online %+v", n, found, off.Status, off.Detail, o.Violations())
		}
		if found {
			flagged++
		}
		if off.Status == Fail {
			failed++
		}
	}
	if failed < runs/10 || failed > runs*9/10 {
		t.Errorf("offline failed %d of %d histories: the generator should make both kinds", failed, runs)
	}
	t.Logf("flagged online %d, failed offline %d of %d", flagged, failed, runs)
}

// onlineInLineOrder feeds h's operation and receiver lines to a new
// online check in line order.
func onlineInLineOrder(h *history.History) *Online { return feedInLineOrder(NewOnline(nil), h) }

// feedInLineOrder feeds h's operation and receiver lines to o in line
// order.
func feedInLineOrder(o *Online, h *history.History) *Online { return feedLines(o, h, false) }

// feedLines is feedInLineOrder, telling o after each line that a write
// was handed whole (BatchDone) when batchEach is set.
func feedLines(o *Online, h *history.History, batchEach bool) *Online {
	o.Header(&h.Header)
	e, r := 0, 0
	for e < len(h.Events) || r < len(h.Receivers) {
		if r == len(h.Receivers) || e < len(h.Events) && h.Events[e].Line < h.Receivers[r].Line {
			o.Event(&h.Events[e])
			e++
		} else {
			o.Receiver(&h.Receivers[r])
			r++
		}
		if batchEach {
			o.BatchDone(1)
		}
	}
	return o
}

// A push whose content hash or sender differs from what the persist that
// created the message sent is an identical_order violation the push
// proves: reported online at it, with the ack, as the check after the
// run fails it; what was sent passes both (bench --broken
// gateway-strip-content was caught only after the run).
func TestOnlineComparesWhatWasPushedWithWhatWasSent(t *testing.T) {
	for _, tc := range []struct {
		name, hash, sender string
		fails              bool
	}{
		{"as sent", "h:k1", "u1", false},
		{"another content", "h:other", "u1", true},
		{"another sender", "h:k1", "u9", true},
		{"neither given", "", "", false},
	} {
		b, send, push := pushWithContent(tc.hash, tc.sender)
		judgedAlike(t, tc.name, b, NameIdenticalOrder, tc.fails, []int{push, send.ok})
	}
}

// A push of a sequence whose first ack went to the spill file long
// before is compared with what its persist sent as when nothing is
// spilled: a chat's blocks keep what was sent only once receivers came,
// and it must be spilled and read back with them.
func TestOnlineSpilledComparesWhatWasPushedWithWhatWasSent(t *testing.T) {
	const n = 4 * 1024 // the first blocks of first acks are spilled
	for _, tc := range []struct {
		name, hash string
		fails      bool
	}{
		{"as sent", "h:k5", false},
		{"another content", "h:other", true},
	} {
		b := newHB()
		b.join("A", "u1")
		b.connect("d1", "u1")
		for s := uint64(1); s <= n; s++ {
			b.send(1, "A", fmt.Sprint("k", s), s)
		}
		b.recv(history.Receiver{Kind: history.KindPush, Device: "d1", Chat: "A", Seqs: []uint64{5}, MessageIDs: []string{b.idAt("A", 5)},
			PayloadHashes: []string{tc.hash}, Senders: []string{"u1"}})
		held := onlineInLineOrder(&b.h).Violations()
		spilling := NewOnline(nil)
		if err := spilling.SpillTo(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		got := feedInLineOrder(spilling, &b.h).Violations()
		if err := spilling.CloseSpill(); err != nil {
			t.Fatal(err)
		}
		if spilling.Spilled() == 0 {
			t.Fatalf("%s: nothing spilled", tc.name)
		}
		if !reflect.DeepEqual(got, held) {
			t.Fatalf("%s: spilling found %+v, holding all %+v", tc.name, got, held)
		}
		if found := slices.ContainsFunc(got, func(v Violation) bool { return v.Invariant == NameIdenticalOrder }); found != tc.fails {
			t.Fatalf("%s: identical_order found %v, want %v (%+v)", tc.name, found, tc.fails, got)
		}
	}
}
