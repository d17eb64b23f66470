package checker

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
)

// The exact checker against porcupine, on thousands of small random
// histories: valid ones from the two-phase and the apply-time simulators,
// and ones broken in the ways a sequencer breaks (a sync entry dropped, a
// stale sync, a replay answering another sequence, an ack moved earlier, a
// rejected reuse before the key existed, operations of unknown outcome with
// and without effect), under every contract, with and without the final
// table. Both must give the same verdict every time.

type exactMutation func(rng *rand.Rand, h *history.History) bool

var exactMutations = map[string]exactMutation{
	"sync entry dropped":          mutSyncDrop,
	"stale sync":                  mutStaleSync,
	"sync entry added":            mutSyncAdd,
	"replay answers another seq":  mutReplaySeq,
	"ack moved earlier":           mutAckEarlier,
	"rejected reuse":              mutRejectedReuse,
	"ok became info":              mutOKToInfo,
	"info without effect":         mutInfoNoEffect,
	"info with an unseen effect":  mutInfoUnseen,
	"dedup flag flipped":          mutFlipDedup,
	"ack answers another seq":     mutAckSeq,
	"sync answers another id":     mutSyncID,
	"final message of info moved": mutFinalMoved,
	"sync reads from the future":  mutSyncFuture,
}

// pick returns the index of a random event satisfying ok, -1 if none.
func pick(rng *rand.Rand, evs []history.Event, ok func(*history.Event) bool) int {
	var idx []int
	for i := range evs {
		if ok(&evs[i]) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	return idx[rng.IntN(len(idx))]
}

func isSyncOK(e *history.Event) bool {
	return e.Kind == history.KindOK && e.F == history.FSync && e.Sync != nil
}

func isPersistOK(e *history.Event) bool { return e.Kind == history.KindOK && e.F == history.FPersist }

func cloneSync(e *history.Event) {
	e.Sync = &history.SyncResult{Seqs: slices.Clone(e.Sync.Seqs), MessageIDs: slices.Clone(e.Sync.MessageIDs)}
}

func mutSyncDrop(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return isSyncOK(e) && len(e.Sync.Seqs) > 0 })
	if i < 0 {
		return false
	}
	e := &h.Events[i]
	cloneSync(e)
	j := rng.IntN(len(e.Sync.Seqs))
	e.Sync.Seqs, e.Sync.MessageIDs = slices.Delete(e.Sync.Seqs, j, j+1), slices.Delete(e.Sync.MessageIDs, j, j+1)
	return true
}

// mutStaleSync answers a sync with what an earlier read would have seen: a
// shorter prefix.
func mutStaleSync(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return isSyncOK(e) && len(e.Sync.Seqs) > 0 })
	if i < 0 {
		return false
	}
	e := &h.Events[i]
	cloneSync(e)
	n := rng.IntN(len(e.Sync.Seqs))
	e.Sync.Seqs, e.Sync.MessageIDs = e.Sync.Seqs[:n], e.Sync.MessageIDs[:n]
	return true
}

func mutSyncAdd(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, isSyncOK)
	if i < 0 {
		return false
	}
	e := &h.Events[i]
	cloneSync(e)
	s := uint64(1 + rng.IntN(12))
	j, found := slices.BinarySearch(e.Sync.Seqs, s)
	if found || s <= invokeOf(h.Events, i).After {
		return false
	}
	e.Sync.Seqs = slices.Insert(e.Sync.Seqs, j, s)
	e.Sync.MessageIDs = slices.Insert(e.Sync.MessageIDs, j, fmt.Sprint("m-k", rng.IntN(10)))
	return true
}

// mutSyncFuture makes a sync return a message whose persist was invoked
// only after the sync completed.
func mutSyncFuture(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, isSyncOK)
	if i < 0 {
		return false
	}
	inv := invokeOf(h.Events, i)
	var later []int
	for j := i + 1; j < len(h.Events); j++ {
		if e := &h.Events[j]; isPersistOK(e) && !e.Dedup && e.Seq > inv.After && invokeOf(h.Events, j).Line > h.Events[i].Line {
			later = append(later, j)
		}
	}
	if len(later) == 0 {
		return false
	}
	f := &h.Events[later[rng.IntN(len(later))]]
	e := &h.Events[i]
	cloneSync(e)
	k, found := slices.BinarySearch(e.Sync.Seqs, f.Seq)
	if found {
		return false
	}
	e.Sync.Seqs = slices.Insert(e.Sync.Seqs, k, f.Seq)
	e.Sync.MessageIDs = slices.Insert(e.Sync.MessageIDs, k, f.MessageID)
	if limit := invokeOf(h.Events, i).Limit; limit > 0 && len(e.Sync.Seqs) > limit {
		return false
	}
	return true
}

func mutSyncID(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return isSyncOK(e) && len(e.Sync.Seqs) > 0 })
	if i < 0 {
		return false
	}
	e := &h.Events[i]
	cloneSync(e)
	e.Sync.MessageIDs[rng.IntN(len(e.Sync.Seqs))] = fmt.Sprint("m-k", rng.IntN(10))
	return true
}

func mutReplaySeq(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return isPersistOK(e) && e.Dedup })
	if i < 0 {
		return false
	}
	h.Events[i].Seq = uint64(1 + rng.IntN(12))
	return true
}

func mutAckSeq(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return isPersistOK(e) && !e.Dedup })
	if i < 0 {
		return false
	}
	h.Events[i].Seq = uint64(1 + rng.IntN(12))
	return true
}

func mutFlipDedup(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, isPersistOK)
	if i < 0 {
		return false
	}
	h.Events[i].Dedup = !h.Events[i].Dedup
	return true
}

// invokeOf is the invoke that completion i answers.
func invokeOf(evs []history.Event, i int) *history.Event {
	for j := i - 1; j >= 0; j-- {
		if evs[j].Process == evs[i].Process && evs[j].Kind == history.KindInvoke {
			return &evs[j]
		}
	}
	return &history.Event{}
}

// mutAckEarlier moves an ok completion to an earlier point after its
// invoke: the client heard the answer before the sequencer could give it.
func mutAckEarlier(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return e.Kind == history.KindOK })
	if i < 0 {
		return false
	}
	j := i - 1
	for j >= 0 && !(h.Events[j].Process == h.Events[i].Process && h.Events[j].Kind == history.KindInvoke) {
		j--
	}
	if i-j < 2 {
		return false
	}
	to := j + 1 + rng.IntN(i-j-1)
	e := h.Events[i]
	h.Events = slices.Insert(slices.Delete(h.Events, i, i+1), to, e)
	return true
}

// mutRejectedReuse inserts a persist of an existing key with other content,
// rejected as a reuse, anywhere: possibly before the key existed.
func mutRejectedReuse(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return e.Kind == history.KindInvoke && e.F == history.FPersist })
	if i < 0 {
		return false
	}
	key, chat := h.Events[i].Key, h.Events[i].Chat
	at := rng.IntN(len(h.Events) + 1)
	p := 1000 + rng.IntN(1000)
	hash := "other"
	if rng.IntN(4) == 0 {
		hash = h.Events[i].PayloadHash // the same content: a false rejection
	}
	inv := history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: chat, Key: key, Sender: "u-reuse", PayloadHash: hash}
	fail := history.Event{Kind: history.KindFail, Process: p, F: history.FPersist, Chat: chat, Key: key, Error: "idempotency_key_reused"}
	end := at + rng.IntN(len(h.Events)-at+1)
	h.Events = slices.Insert(h.Events, end, fail)
	h.Events = slices.Insert(h.Events, at, inv)
	return true
}

func mutOKToInfo(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, isPersistOK)
	if i < 0 {
		return false
	}
	e := &h.Events[i]
	e.Kind, e.Seq, e.MessageID, e.Dedup, e.Error = history.KindInfo, 0, "", false, "timeout"
	return true
}

// mutInfoNoEffect removes the final message of a key whose persist crashed:
// the final table then says it had no effect.
func mutInfoNoEffect(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return e.Kind == history.KindInfo && e.F == history.FPersist })
	if i < 0 || len(h.Finals) == 0 {
		return false
	}
	key := invokeOf(h.Events, i).Key
	h.Finals = slices.DeleteFunc(slices.Clone(h.Finals), func(f history.Final) bool {
		return f.Key == key && (f.Table == history.TableMessages || f.Table == history.TableIdempotency)
	})
	return true
}

// mutFinalMoved puts a crashed persist's final message at another sequence.
func mutFinalMoved(rng *rand.Rand, h *history.History) bool {
	i := pick(rng, h.Events, func(e *history.Event) bool { return e.Kind == history.KindInfo && e.F == history.FPersist })
	if i < 0 || len(h.Finals) == 0 {
		return false
	}
	key := invokeOf(h.Events, i).Key
	h.Finals = slices.Clone(h.Finals)
	moved := false
	for j := range h.Finals {
		if h.Finals[j].Key == key && h.Finals[j].Table == history.TableMessages {
			h.Finals[j].Seq = uint64(1 + rng.IntN(12))
			moved = true
		}
	}
	return moved
}

// mutInfoUnseen adds a persist of a fresh key whose outcome is unknown,
// with a final message (it took effect, nobody saw it) or without.
func mutInfoUnseen(rng *rand.Rand, h *history.History) bool {
	chat := ""
	for _, e := range h.Events {
		chat = e.Chat
		break
	}
	if chat == "" {
		return false
	}
	p := 2000 + rng.IntN(1000)
	key := fmt.Sprint("fresh", rng.IntN(1000))
	at := rng.IntN(len(h.Events) + 1)
	end := at + rng.IntN(len(h.Events)-at+1)
	inv := history.Event{Kind: history.KindInvoke, Process: p, F: history.FPersist, Chat: chat, Key: key, Sender: "u-fresh", PayloadHash: key}
	h.Events = slices.Insert(h.Events, end, history.Event{Kind: history.KindInfo, Process: p, F: history.FPersist, Chat: chat, Key: key, Error: "timeout"})
	h.Events = slices.Insert(h.Events, at, inv)
	if len(h.Finals) > 0 && rng.IntN(2) == 0 {
		h.Finals = append(slices.Clone(h.Finals), history.Final{Table: history.TableMessages, Chat: chat, Seq: uint64(1 + rng.IntN(14)), MessageID: "m-" + key, Key: key})
	}
	return true
}

// shiftByInitialCounter makes h a run on chats whose counters started at
// base: every sequence moves up by base, and some syncs also show
// messages from before the run (at or below base), which no operation of
// the run explains and the model must leave alone.
func shiftByInitialCounter(rng *rand.Rand, h *history.History) {
	base := uint64(1 + rng.IntN(4))
	h.Header.Extra = map[string]string{history.SoleWriterField: "true", "initial_counter": fmt.Sprint(base)}
	for i := range h.Events {
		e := &h.Events[i]
		if e.Seq > 0 {
			e.Seq += base
		}
		if e.Kind == history.KindInvoke && e.F == history.FSync && e.After > 0 {
			e.After += base
		}
		if e.Sync != nil {
			r := &history.SyncResult{}
			after := invokeOf(h.Events, i).After
			limit := invokeOf(h.Events, i).Limit
			for s := after + 1; s <= base && rng.IntN(2) == 0 && (limit <= 0 || len(r.Seqs) < limit); s++ {
				r.Seqs, r.MessageIDs = append(r.Seqs, s), append(r.MessageIDs, fmt.Sprint("old-", s))
			}
			for j, s := range e.Sync.Seqs {
				if limit > 0 && len(r.Seqs) == limit {
					break
				}
				r.Seqs, r.MessageIDs = append(r.Seqs, s+base), append(r.MessageIDs, e.Sync.MessageIDs[j])
			}
			e.Sync = r
		}
	}
	for i := range h.Finals {
		f := &h.Finals[i]
		if f.Table == history.TableCounters {
			f.Value += base
		} else {
			f.Seq += base
		}
	}
}

// restamp numbers lines and times in file order after a mutation.
func restamp(h *history.History) {
	line := 1
	for i := range h.Events {
		line++
		h.Events[i].Line, h.Events[i].Time = line, int64(line)
	}
	for i := range h.Finals {
		line++
		h.Finals[i].Line = line
	}
}

// exactCase is one random history and the contract it is judged under.
type exactCase struct {
	h       *history.History
	con     history.Contract
	mutated []string
}

func randomExactCase(rng *rand.Rand, run int, names []string) exactCase {
	gapless := rng.IntN(2) == 0
	cfg := genConfig{chats: 1, writers: 2 + rng.IntN(3), readers: 1 + rng.IntN(2), ops: 6 + rng.IntN(12),
		crash: 0.15, crashCommitted: 0.15, replay: 0.2, limit: 1 + rng.IntN(4), gapless: gapless, seed: uint64(run)}
	h := generate(cfg)
	c := exactCase{h: h, con: history.Contract{Gaps: history.GapsAllowed, KeyReuse: history.KeyReuseReturnOriginal}}
	if gapless != (rng.IntN(6) == 0) { // now and then the other contract
		c.con.Gaps = history.GapsForbidden
	}
	if rng.IntN(2) == 0 {
		c.con.KeyReuse = history.KeyReuseReject
	}
	cp := *h
	cp.Events, cp.Finals = slices.Clone(h.Events), slices.Clone(h.Finals)
	if rng.IntN(3) == 0 {
		cp.Finals = nil // wildcards instead of final bindings
	}
	if rng.IntN(4) == 0 {
		shiftByInitialCounter(rng, &cp)
	}
	if rng.IntN(3) == 0 {
		// Other writers may exist: what no persist made is theirs.
		cp.Header.Extra = maps.Clone(cp.Header.Extra)
		delete(cp.Header.Extra, history.SoleWriterField)
	}
	if run%3 != 0 {
		for n := 1 + rng.IntN(2); n > 0; {
			name := names[rng.IntN(len(names))]
			if exactMutations[name](rng, &cp) {
				c.mutated = append(c.mutated, name)
				n--
			}
		}
		restamp(&cp)
	}
	c.h = &cp
	return c
}

// porcupineVerdict is the reference: the model stepped by porcupine without
// the waits and the hash (themselves checked in model_test.go).
func porcupineVerdict(t *testing.T, x *index, con history.Contract) bool {
	ref, ops := x.ChatModel(0, con, true)
	model, contradicts := linearize.Reference(ref)
	if contradicts {
		return false // as linearize.Porcupine: facts no order reconciles
	}
	res := porcupine.CheckOperationsTimeout(model, ops, 20*time.Second)
	if res == porcupine.Unknown {
		t.Fatal("porcupine timed out on a small history")
	}
	return res == porcupine.Ok
}

// mutationNames is exactMutations' names in order, so that a seeded run
// draws the same mutations every time.
func mutationNames() []string {
	names := make([]string, 0, len(exactMutations))
	for n := range exactMutations {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func TestExactAgreesWithPorcupine(t *testing.T) {
	runs := randomRuns(12_000)
	names := mutationNames()
	rng := rand.New(rand.NewPCG(11, 7))
	legal, illegal, fallback := 0, 0, 0
	caught := map[string]int{}
	byContract := map[string][2]int{}
	shifted := [2]int{}
	for run := range runs {
		c := randomExactCase(rng, run, names)
		x := indexOf(c.h)
		m, _ := x.ChatModel(0, c.con, false)
		if len(m.Ops) == 0 {
			continue
		}
		got := linearize.Exact(m, nil)
		if got.Why == "fallback" {
			fallback++
			continue
		}
		want := porcupineVerdict(t, x, c.con)
		if (got.Status == linearize.Pass) != want {
			t.Fatalf("run %d (%s, %s/%s, finals %d): exact says %s (%s), porcupine says linearizable=%v\n%s",
				run, c.mutated, c.con.Gaps, c.con.KeyReuse, len(c.h.Finals), got.Status, got.Detail, want, dumpEvents(c.h))
		}
		if got.Status == linearize.Fail && len(got.Lines) == 0 {
			t.Fatalf("run %d: a failure names no lines: %s", run, got.Detail)
		}
		if c.h.Header.Extra["initial_counter"] != "" {
			if want {
				shifted[0]++
			} else {
				shifted[1]++
			}
		}
		k := c.con.Gaps + "/" + c.con.KeyReuse
		counts := byContract[k]
		if want {
			legal++
			counts[0]++
		} else {
			illegal++
			counts[1]++
			for _, name := range c.mutated {
				caught[name]++
			}
		}
		byContract[k] = counts
	}
	t.Logf("%d linearizable, %d not, %d left to porcupine; by contract %v; with an initial counter %v; violations by mutation %v", legal, illegal, fallback, byContract, shifted, caught)
	if legal+illegal < runs*9/10 || legal < runs/5 || illegal < runs/5 {
		t.Fatalf("unbalanced sample: %d linearizable, %d not, of %d", legal, illegal, runs)
	}
	if fallback > runs/100 {
		t.Fatalf("%d of %d histories left to porcupine", fallback, runs)
	}
	for k, n := range byContract {
		if n[0] < runs/50 || n[1] < runs/50 {
			t.Fatalf("contract %s: %d linearizable, %d not: too few of one", k, n[0], n[1])
		}
	}
	if shifted[0] < runs/50 || shifted[1] < runs/50 {
		t.Fatalf("histories with an initial counter: %d linearizable, %d not: too few of one", shifted[0], shifted[1])
	}
	for _, name := range names {
		if caught[name] == 0 {
			t.Fatalf("mutation %q never broke a history", name)
		}
	}
}

func dumpEvents(h *history.History) string {
	var s string
	for _, e := range h.Events {
		s += fmt.Sprintf("%d %s p%d %s chat=%s key=%s hash=%s seq=%d id=%s dedup=%v err=%s after=%d limit=%d", e.Line, e.Kind, e.Process, e.F, e.Chat, e.Key, e.PayloadHash, e.Seq, e.MessageID, e.Dedup, e.Error, e.After, e.Limit)
		if e.Sync != nil {
			s += fmt.Sprintf(" seqs=%v ids=%v", e.Sync.Seqs, e.Sync.MessageIDs)
		}
		s += "\n"
	}
	for _, f := range h.Finals {
		s += fmt.Sprintf("%d final %s chat=%s seq=%d id=%s key=%s value=%d\n", f.Line, f.Table, f.Chat, f.Seq, f.MessageID, f.Key, f.Value)
	}
	return s
}
