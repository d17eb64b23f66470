package checker

import (
	"math"
	"slices"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// syncHistory: p0 persists m1 (seq 1) and m2 (seq 2), acked at lines 3
// and 5; then p1 syncs (after, limit) and gets seqs. A persist of m3
// (seq 3) by p2 is invoked before the sync and acked while it runs.
func syncHistory(after uint64, limit int, seqs ...uint64) *history.History {
	ids := make([]string, len(seqs))
	for i, s := range seqs {
		ids[i] = "m" + string(rune('0'+s))
	}
	evs := []history.Event{
		{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: "k1", Sender: "u"},
		{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: 1, MessageID: "m1"},
		{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: "k2", Sender: "u"},
		{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: 2, MessageID: "m2"},
		{Kind: history.KindInvoke, Process: 2, F: history.FPersist, Chat: "c", Key: "k3", Sender: "u"},
		{Kind: history.KindInvoke, Process: 1, F: history.FSync, Chat: "c", After: after, Limit: limit},
		{Kind: history.KindOK, Process: 2, F: history.FPersist, Chat: "c", Seq: 3, MessageID: "m3"},
		{Kind: history.KindOK, Process: 1, F: history.FSync, Chat: "c", Sync: &history.SyncResult{Seqs: seqs, MessageIDs: ids}},
	}
	return numberedHistory(evs)
}

// numberedHistory is evs as a history's operation lines, numbered from
// line 2 (after the header), ten time units apart.
func numberedHistory(evs []history.Event) *history.History {
	for i := range evs {
		evs[i].Line, evs[i].Time = i+2, int64(10*(i+1))
	}
	return &history.History{Header: history.Header{Version: history.Version}, Events: evs}
}

// A sync that misses a message acknowledged before it was invoked is
// reported at its completion line, as the check after the run fails it;
// one that misses only what was acknowledged while it ran, or what lies
// past its full page, or below its after, is not.
func TestOnlineSyncCompleteness(t *testing.T) {
	for _, tc := range []struct {
		name     string
		after    uint64
		limit    int
		seqs     []uint64
		violated bool
		lines    []int
	}{
		{name: "misses seq 2", limit: 10, seqs: []uint64{1}, violated: true, lines: []int{5, 7, 9}},
		{name: "misses seq 1 after 0", limit: 10, seqs: []uint64{2, 3}, violated: true, lines: []int{3, 7, 9}},
		{name: "out of order", limit: 10, seqs: []uint64{2, 1}, violated: true, lines: []int{7, 9}},
		{name: "above its limit", limit: 1, seqs: []uint64{1, 2}, violated: true, lines: []int{7, 9}},
		{name: "not above after", after: 1, limit: 10, seqs: []uint64{1, 2}, violated: true, lines: []int{7, 9}},
		{name: "all acked before", limit: 10, seqs: []uint64{1, 2}},
		{name: "seq 3 acked while it ran", limit: 10, seqs: []uint64{1, 2, 3}},
		{name: "full page", limit: 1, seqs: []uint64{1}},
		{name: "after 2", after: 2, limit: 10, seqs: nil},
		{name: "after 1", after: 1, limit: 10, seqs: []uint64{2}},
	} {
		h := syncHistory(tc.after, tc.limit, tc.seqs...)
		rep := Check(h, Options{})
		off, _ := rep.Result(NameSyncCompleteness)
		o, at := onlineOf(h)
		vs := o.Violations()
		i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == NameSyncCompleteness })
		if !tc.violated {
			if i >= 0 || off.Status != Pass {
				t.Errorf("%s: online %+v, offline %s (%s); want neither", tc.name, vs, off.Status, off.Detail)
			}
			continue
		}
		if i < 0 {
			t.Errorf("%s: not found online; offline %s (%s)", tc.name, off.Status, off.Detail)
			continue
		}
		if off.Status != Fail {
			t.Errorf("%s: online %s, offline %s", tc.name, vs[i].Detail, off.Status)
		}
		if !slices.Equal(vs[i].Lines, tc.lines) || at[NameSyncCompleteness] != 9 {
			t.Errorf("%s: lines %v found at line %d, want %v at 9 (%s)", tc.name, vs[i].Lines, at[NameSyncCompleteness], tc.lines, vs[i].Detail)
		}
	}
}

// The online check knows an ack was done before a sync's invoke by its
// line: one on a line before the invoke but of the invoke's time was not
// (the check after the run compares times, strictly), and a file whose
// lines go back in time (no recorder's) turns the rule off rather than
// misread it. The sync returns nothing; seq 1 was acked at line 3.
func TestOnlineSyncCompletenessReadsTheFilesTimeOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		times    []int64 // of lines 2 to 7
		violated bool
	}{
		{"acked before the invoke", []int64{1, 2, 3, 4, 5, 6}, true},
		{"acked at the invoke's time", []int64{1, 2, 2, 2, 5, 6}, false},
		{"acked after a tie of other lines", []int64{1, 2, 3, 3, 5, 6}, true},
		{"the invoke's line back in time", []int64{1, 5, 9, 3, 10, 11}, false},
	} {
		evs := []history.Event{
			{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: "k1", Sender: "u"},
			{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: 1, MessageID: "m1"},
			{Kind: history.KindInvoke, Process: 2, F: history.FPersist, Chat: "d", Key: "k1", Sender: "u"},
			{Kind: history.KindInvoke, Process: 1, F: history.FSync, Chat: "c", Limit: 10},
			{Kind: history.KindOK, Process: 1, F: history.FSync, Chat: "c", Sync: &history.SyncResult{}},
			{Kind: history.KindOK, Process: 2, F: history.FPersist, Chat: "d", Seq: 1, MessageID: "d1"},
		}
		h := &history.History{Header: history.Header{Version: history.Version}}
		for i := range evs {
			evs[i].Line, evs[i].Time = i+2, tc.times[i]
		}
		h.Events = evs
		off, _ := Check(h, Options{}).Result(NameSyncCompleteness)
		o, _ := onlineOf(h)
		online := slices.ContainsFunc(o.Violations(), func(v Violation) bool { return v.Invariant == NameSyncCompleteness })
		if online != tc.violated || (off.Status == Fail) != tc.violated {
			t.Errorf("%s: online violated %v, offline %s (%s); want violated %v", tc.name, online, off.Status, off.Detail, tc.violated)
		}
	}
}

// At the top of the sequence space: a sync after 2^64-1 returns nothing
// and misses nothing (after+1 wrapped to 0, and sync_completeness and
// linearizability failed a correct service offline, never online); a
// sync after 2^64-2 that does not return 2^64-1, acked before it, fails
// both ways, as does a full page that ends below it.
func TestSyncsAtTheTopOfTheSequenceSpace(t *testing.T) {
	const top = math.MaxUint64
	for _, tc := range []struct {
		name     string
		after    uint64
		limit    int
		seqs     []uint64
		violated bool
	}{
		{name: "after the top", after: top, limit: 100},
		{name: "after one below, returning the top", after: top - 1, limit: 100, seqs: []uint64{top}},
		{name: "after one below, missing the top", after: top - 1, limit: 100, violated: true},
		{name: "a full page ending at the top", after: top - 2, limit: 1, seqs: []uint64{top}, violated: true},
	} {
		evs := []history.Event{
			{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: "k0", Sender: "u"},
			{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: top - 1, MessageID: "m0"},
			{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: "k1", Sender: "u"},
			{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: top, MessageID: "m1"},
			{Kind: history.KindInvoke, Process: 1, F: history.FSync, Chat: "c", After: tc.after, Limit: tc.limit},
		}
		ids := []string{}
		for _, s := range tc.seqs {
			ids = append(ids, map[uint64]string{top - 1: "m0", top: "m1"}[s])
		}
		evs = append(evs, history.Event{Kind: history.KindOK, Process: 1, F: history.FSync, Chat: "c", Sync: &history.SyncResult{Seqs: tc.seqs, MessageIDs: ids}})
		h := numberedHistory(evs)
		rep := Check(h, Options{})
		o, _ := onlineOf(h)
		online := slices.ContainsFunc(o.Violations(), func(v Violation) bool { return v.Invariant == NameSyncCompleteness })
		for _, name := range []string{NameSyncCompleteness, NameLinearizability} {
			res, _ := rep.Result(name)
			if (res.Status == Fail) != tc.violated {
				t.Errorf("%s: %s %s (%s), want violated %v", tc.name, name, res.Status, res.Detail, tc.violated)
			}
		}
		if online != tc.violated {
			t.Errorf("%s: online sync_completeness violated %v, want %v", tc.name, online, tc.violated)
		}
	}
}

// Acks far apart (kept apart from the online check's blocks): a sync
// that skips one acked before it is caught online as offline, and one
// that returns them all passes both.
func TestOnlineSyncOverFarApartSequences(t *testing.T) {
	for _, tc := range []struct {
		seqs     []uint64
		violated bool
	}{
		{seqs: []uint64{1 << 16, 2 << 16, 3 << 16}},
		{seqs: []uint64{1 << 16, 3 << 16}, violated: true},
	} {
		var evs []history.Event
		for i := uint64(1); i <= 3; i++ {
			key := "k" + string(rune('0'+i))
			evs = append(evs,
				history.Event{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: key, Sender: "u"},
				history.Event{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: i << 16, MessageID: "m" + key})
		}
		ids := []string{}
		for _, s := range tc.seqs {
			ids = append(ids, "mk"+string(rune('0'+s>>16)))
		}
		evs = append(evs,
			history.Event{Kind: history.KindInvoke, Process: 1, F: history.FSync, Chat: "c", Limit: 10},
			history.Event{Kind: history.KindOK, Process: 1, F: history.FSync, Chat: "c", Sync: &history.SyncResult{Seqs: tc.seqs, MessageIDs: ids}})
		h := numberedHistory(evs)
		off, _ := Check(h, Options{}).Result(NameSyncCompleteness)
		o, _ := onlineOf(h)
		online := slices.ContainsFunc(o.Violations(), func(v Violation) bool { return v.Invariant == NameSyncCompleteness })
		if online != tc.violated || (off.Status == Fail) != tc.violated {
			t.Errorf("sync returning %v: online violated %v, offline %s (%s); want violated %v", tc.seqs, online, off.Status, off.Detail, tc.violated)
		}
	}
}

// A sync answer that shows a message with another key, sender or content
// than its persist sent is reported online at its completion line, as the
// check after the run fails it, once an earlier answer said what its
// messages carried (from then on what each persist sent is kept); as
// sent, neither reports it.
func TestOnlineSyncContent(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		key, sender, payload string
		violated             bool
	}{
		{name: "as sent", key: "k2", sender: "u", payload: "h2"},
		{name: "another key", key: "k9", sender: "u", payload: "h2", violated: true},
		{name: "another sender", key: "k2", sender: "v", payload: "h2", violated: true},
		{name: "other content", key: "k2", sender: "u", payload: "h9", violated: true},
	} {
		said := func(seqs []uint64, ids, keys, senders, payloads []string) *history.SyncResult {
			return &history.SyncResult{Seqs: seqs, MessageIDs: ids, Keys: keys, Senders: senders, PayloadHashes: payloads}
		}
		h := numberedHistory([]history.Event{
			{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: "k1", Sender: "u", PayloadHash: "h1"},
			{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: 1, MessageID: "m1"},
			{Kind: history.KindInvoke, Process: 1, F: history.FSync, Chat: "c", Limit: 10},
			{Kind: history.KindOK, Process: 1, F: history.FSync, Chat: "c", Sync: said([]uint64{1}, []string{"m1"}, []string{"k1"}, []string{"u"}, []string{"h1"})},
			{Kind: history.KindInvoke, Process: 0, F: history.FPersist, Chat: "c", Key: "k2", Sender: "u", PayloadHash: "h2"},
			{Kind: history.KindOK, Process: 0, F: history.FPersist, Chat: "c", Seq: 2, MessageID: "m2"},
			{Kind: history.KindInvoke, Process: 1, F: history.FSync, Chat: "c", After: 1, Limit: 10},
			{Kind: history.KindOK, Process: 1, F: history.FSync, Chat: "c", Sync: said([]uint64{2}, []string{"m2"}, []string{tc.key}, []string{tc.sender}, []string{tc.payload})},
		})
		off, _ := Check(h, Options{}).Result(NameSyncCompleteness)
		o, at := onlineOf(h)
		vs := o.Violations()
		i := slices.IndexFunc(vs, func(v Violation) bool { return v.Invariant == NameSyncCompleteness })
		if !tc.violated {
			if i >= 0 || off.Status != Pass {
				t.Errorf("%s: online %+v, offline %s (%s); want neither", tc.name, vs, off.Status, off.Detail)
			}
			continue
		}
		if i < 0 || off.Status != Fail {
			t.Errorf("%s: online %+v, offline %s (%s); want both", tc.name, vs, off.Status, off.Detail)
			continue
		}
		if want := []int{9, 7}; !slices.Equal(vs[i].Lines, want) || at[NameSyncCompleteness] != 9 {
			t.Errorf("%s: lines %v found at line %d, want %v at 9 (%s)", tc.name, vs[i].Lines, at[NameSyncCompleteness], want, vs[i].Detail)
		}
	}
}
