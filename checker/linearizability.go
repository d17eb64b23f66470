package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/chatseq/chatseq/checker/internal/store"
	"github.com/chatseq/chatseq/checker/linearize"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/timings"
)

// NameLinearizability is the invariant's name as HISTORY.md spells it.
const NameLinearizability = "linearizability"

// DefaultPorcupineMemory is porcupine's cache budget over all its workers
// unless Options.PorcupineMemory says otherwise (linearize.Decide).
const DefaultPorcupineMemory = linearize.DefaultPorcupineMemory

func checkLinearizability(x *index, con history.Contract, opt Options) (Result, int, int) {
	v := newVerdict(NameLinearizability)
	reject := con.KeyReuse == history.KeyReuseReject
	var jobs []linearize.Job
	perChat := make([]int32, len(x.ChatNames))
	for o, k := range x.kindsOf(reject) {
		if k != 0 {
			perChat[x.Ops.At(int32(o)).Chat]++
		}
	}
	for c, n := range perChat {
		if n > 0 {
			jobs = append(jobs, linearize.Job{Chat: int32(c), Ops: n})
		}
	}
	if len(jobs) == 0 {
		v.notApplicable("no persist or sync operations to linearize")
		return v.result(), 0, 0
	}
	budget := opt.LinearizabilityTimeout
	if budget <= 0 {
		budget = defaultLinearizabilityLimit
	}
	d := linearize.Decide(jobs, func(c int32, forPorcupine bool) (*linearize.Chat, []porcupine.Operation) {
		return x.linearizabilityHistory(c, con, forPorcupine)
	}, linearize.Budget{Timeout: budget, Memory: opt.PorcupineMemory, Porcupine: opt.Porcupine, VisualizeDir: opt.VisualizeDir,
		CollectFirst: func(largest linearize.Job) bool {
			// Collecting first sets the heap's goal from what is live,
			// not from the index's temporaries, before the exact checker
			// allocates its model: the 1M-persist hot chat's check peaked
			// at 0.84 to 0.94 GB resident without, 0.83 to 0.85 GB with
			// (and, decided beside the other invariants, 0.79 to 0.81
			// without against 0.74 to 0.75 GB with).
			return largest.Ops >= 1<<18 && x.LargestChatShare() > 0.25
		}})
	fallbacks, maxOps, memPerWorker := d.Fallbacks, d.MaxOps, d.MemPerWorker

	undecided := map[string][]linearize.ChatOutcome{}
	decided, passed, passedOps := 0, 0, 0
	for _, o := range d.Outcomes {
		switch o.Status {
		case linearize.Fail:
			decided++
			v.fail(o.Lines, "chat %q is not linearizable: %s%s", x.ChatNames[o.Chat], o.Detail, o.Viz)
		case linearize.Unknown:
			undecided[o.Why] = append(undecided[o.Why], o)
		case linearize.Pass:
			if x.KeylessMsgIn[o.Chat] > 0 {
				// Its final messages without a key could be any of its
				// operations of unknown outcome: a relaxation, which may
				// hide a violation, so it never passes.
				o.Status, o.Why = linearize.Unknown, "keyless"
				undecided[o.Why] = append(undecided[o.Why], o)
				continue
			}
			fallthrough
		default:
			decided++
			passed++
			passedOps += o.Ops
			if len(o.Others) > 0 {
				x.Warn("chat %q: %s no persist of the history could have committed in time; the header does not say \"sole_writer\", so they are taken as other writers' messages (chatseq check --sole-writer judges them as violations)",
					x.ChatNames[o.Chat], seqList(o.Others))
			}
		}
	}
	for _, why := range []string{"size", "budget", "timeout", "memory", "keyless"} {
		group := undecided[why]
		if len(group) == 0 {
			continue
		}
		cs := make([]int32, len(group))
		biggest := group[0]
		for i, o := range group {
			cs[i] = o.Chat
			if o.Ops > biggest.Ops {
				biggest = o
			}
		}
		switch why {
		case "size":
			v.unknown("%s too large for porcupine (over %d operations, the most a %d MB share allows; largest %q with %d): order invariants were checked exactly instead",
				plural(len(group), "chat"), maxOps, memPerWorker>>20, x.ChatNames[biggest.Chat], biggest.Ops)
		case "budget":
			v.unknown("time budget %s spent before %s could start: %s", budget, plural(len(group), "chat"), x.ChatList(cs))
		case "timeout":
			v.unknown("porcupine undecided within its share of the %s budget on %s: %s", budget, plural(len(group), "chat"), x.ChatList(cs))
		case "memory":
			v.unknown("porcupine stopped at its memory bound on %s: %s", plural(len(group), "chat"), x.ChatList(cs))
		case "keyless":
			v.unknown("no violation found on %s, but their final messages without a key (or, under key_scope client, without a sender that an ack or a single sender attributes) could be any of their operations of unknown outcome, so that is not a pass: %s",
				plural(len(group), "chat"), x.ChatList(cs))
		}
	}
	undecidedN := len(jobs) - decided
	if passed > 0 {
		how := "decided exactly"
		switch {
		case opt.Porcupine:
			how = "by porcupine"
		case fallbacks > 0:
			how = fmt.Sprintf("decided exactly, %s by porcupine", plural(fallbacks, "chat"))
		}
		v.pass("%s with %s linearizable (%s)", plural(passed, "chat"), plural(passedOps, "operation"), how)
	}
	return v.result(), decided, undecidedN
}

// linKindOf classifies operation o for the model, 0 if it is left out.
// Failed operations other than a rejection are left out: they had no
// effect and are legal anywhere. Syncs that did not complete ok tell
// nothing. An operation of unknown outcome is left out when it cannot have
// taken effect: another persist of its key was acked as the key's new
// message (in the model two commits of one key are never legal, so this
// loses nothing), or the final table, which lists keys, has no message
// with its key. Left in, each would let porcupine try it at every point of
// the history.
// kindsOf is every operation's linKindOf, worked out once in the records'
// order: asked per chat, in each chat's invoke order, every look-up was a
// cache miss, three times an operation, a fifth of the check after a run
// (before the Log kept each chat's records together, columns.Grouped).
func (x *index) kindsOf(reject bool) []linearize.Kind {
	x.kindsMu.Lock()
	defer x.kindsMu.Unlock()
	if x.kinds == nil || x.kindsReject != reject {
		kinds := make([]linearize.Kind, x.Ops.Len())
		for o := range x.Ops.Count() {
			kinds[o] = x.linKindOf(o, reject)
		}
		x.kinds, x.kindsReject = kinds, reject
	}
	return x.kinds
}

func (x *index) linKindOf(o int32, reject bool) linearize.Kind {
	st := x.Ops.At(o).Status
	switch {
	case x.Ops.At(o).Fn == store.FnSync:
		if st == store.StOK {
			return linearize.KindSync
		}
	case x.Ops.At(o).Key < 0:
		// keyless persist: cannot be modelled (warned when indexed)
	case st == store.StOK:
		if x.IsDedup(o) {
			return linearize.KindDedup
		}
		return linearize.KindNew
	case st == store.StFail:
		if reject && x.IsRejection(o) {
			return linearize.KindRejected
		}
	case x.KeyCreated[x.Ops.At(o).Key]:
	case x.KeyMsg[x.Ops.At(o).Key] >= 0 || !x.HasMessages || x.KeylessMsgIn[x.Ops.At(o).Chat] > 0:
		return linearize.KindInfo
	}
	return 0
}

// linearizabilityHistory builds chat c's model and its operations'
// intervals; porcupine's operations and the waits only with forPorcupine
// (the exact checker needs neither).
func (x *index) linearizabilityHistory(c int32, con history.Contract, forPorcupine bool) (*linearize.Chat, []porcupine.Operation) {
	m := linearize.NewChat(opNames{x}, x.ChatNames[c], con.Gaps == history.GapsForbidden, con.KeyReuse == history.KeyReuseReject, !x.SoleWriter, x.InitialCounter)
	lo, hi := store.Span(x.OpChatSpan, c)
	kinds := x.kindsOf(m.Reject)
	// Sized for every operation rather than counted first: the few left
	// out cost less room than a pass of cache misses over the chat.
	n := int(hi - lo)
	slo, shi := store.Span(x.SyncSpan, c)
	nsync := int(shi - slo)
	m.Ops = make([]linearize.Op, 0, n)
	m.Syncs = make([]linearize.Sync, 0, nsync)
	m.Call, m.Ret = make([]int64, 0, n), make([]int64, 0, n)
	if m.Base > 0 {
		m.MessagesRead = x.HasMessages
		m.PreFinal, m.PreRunKeySeq = map[uint64]uint64{}, map[int32]uint64{}
		flo, fhi := store.Span(x.MsgSpan, c)
		for _, i := range x.Msgs[flo:fhi] {
			f := x.Fin.At(i)
			if f.Seq <= m.Base {
				m.PreFinal[f.Seq] = x.MidHash[f.MessageID]
				if f.Key < 0 {
					m.PreKeyless++ // some key's from before the run: perhaps a rejected one's
				}
			}
			if f.Key >= 0 {
				m.PreRunKeySeq[f.Key] = f.Seq
			}
		}
		// An idempotency record is its message's: it shows one too.
		for _, r := range x.recordsOf(c) {
			if k := x.Fin.At(r).Key; k >= 0 {
				f := x.Fin.At(r)
				if f.Seq <= m.Base {
					if _, had := m.PreFinal[f.Seq]; !had {
						m.PreFinal[f.Seq] = x.MidHash[f.MessageID]
					}
				}
				if _, had := m.PreRunKeySeq[k]; !had {
					m.PreRunKeySeq[k] = f.Seq
				}
			}
		}
	}
	// What the final state gives a key of the history is that key's
	// message: no other writer's, no other key's.
	for _, r := range x.recordsOf(c) {
		if f := x.Fin.At(r); f.Key >= 0 && x.keyUsed(f.Key) {
			if m.Owned == nil {
				m.Owned = map[uint64]int32{}
			}
			m.Owned[f.Seq] = f.Key
		}
	}
	if x.HasMessages {
		flo, fhi := store.Span(x.MsgSpan, c)
		for _, i := range x.Msgs[flo:fhi] {
			if f := x.Fin.At(i); f.Key >= 0 && x.keyUsed(f.Key) {
				if m.Owned == nil {
					m.Owned = map[uint64]int32{}
				}
				m.Owned[f.Seq] = f.Key
			}
		}
	}
	if m.External && x.HasMessages {
		m.TableRead = true
		m.Foreign = map[uint64]uint64{}
		flo, fhi := store.Span(x.MsgSpan, c)
		for _, i := range x.Msgs[flo:fhi] {
			f := x.Fin.At(i)
			if k := f.Key; k < 0 || !x.keyUsed(k) {
				m.Foreign[f.Seq] = x.MidHash[f.MessageID]
			}
		}
	}
	for _, o := range x.OpsByChat[lo:hi] {
		kind := kinds[o]
		if kind == 0 {
			continue
		}
		lop := linearize.Op{Kind: kind, Op: o, Key: x.Ops.At(o).Key}
		switch kind {
		case linearize.KindSync:
			y := linearize.Sync{After: x.After(o), Limit: x.Limit(o)}
			if seqs, ids, ok := x.SyncResult(o, nil); ok {
				y.Seqs = seqs
				y.IDs = ids // decoded for the model, which only reads them
				if len(ids) != len(seqs) {
					y.IDs = make([]uint64, len(seqs)) // all 0: sync_completeness fails it
				}
				y.Answered = len(seqs)
				if y.Limit > 0 && len(seqs) == y.Limit {
					y.Top = seqs[len(seqs)-1]
				}
				// Messages at or below the initial counter predate the
				// run: what a sync shows of them is not the model's.
				if m.Base > 0 && slices.IsSorted(seqs) {
					k, _ := slices.BinarySearch(seqs, m.Base+1)
					y.Pre, y.PreIDs = y.Seqs[:k], y.IDs[:k]
					y.Seqs, y.IDs = y.Seqs[k:], y.IDs[k:]
				}
			}
			lop.Sync = int32(len(m.Syncs))
			m.Syncs = append(m.Syncs, y)
		case linearize.KindNew, linearize.KindDedup:
			lop.Seq, lop.ID = x.AckSeq(o), x.MidHash[x.AckID(o)]
		case linearize.KindInfo:
			if fm := x.KeyMsg[lop.Key]; fm >= 0 {
				lop.Seq, lop.ID = x.Fin.At(fm).Seq, x.MidHash[x.Fin.At(fm).MessageID]
			} else if fr := x.KeyIdem[lop.Key]; fr >= 0 && !x.HasMessages {
				// Without the messages table, the key's record says where
				// its message is (a record is written with its message).
				lop.Seq, lop.ID = x.Fin.At(fr).Seq, x.MidHash[x.Fin.At(fr).MessageID]
			}
		}
		if kind != linearize.KindSync {
			lop.Hash = x.Ops.At(o).Payload
		}
		m.Ops = append(m.Ops, lop)
		m.Call, m.Ret = append(m.Call, x.Call(o)), append(m.Ret, x.Ret(o))
	}
	if !forPorcupine {
		return m, nil
	}
	return m, m.PorcupineOps()
}

// opNames names the index's operations for the linearizability engine
// (linearize.History).
type opNames struct{ x *index }

func (n opNames) InvokeLine(op int32) int   { return n.x.InvLine(op) }
func (n opNames) DoneLine(op int32) int     { return n.x.DoneLine(op) }
func (n opNames) Lines(op int32) []int      { return n.x.OpLines(op) }
func (n opNames) Process(op int32) int      { return int(n.x.Ops.At(op).Process) }
func (n opNames) Key(op int32) string       { return n.x.KeyName(op) }
func (n opNames) ErrorCode(op int32) string { return n.x.ErrCode(op) }
func (n opNames) Ack(op int32) (uint64, string) {
	return n.x.AckSeq(op), n.x.MidName(n.x.AckID(op))
}
func (n opNames) Asked(op int32) (uint64, int) { return n.x.After(op), n.x.Limit(op) }

// stringHash stands for a message id or payload hash (store.StringHash).
func stringHash(s string) uint64 { return store.StringHash(s) }

// seqList names a few sequences: "sequences 3, 5 and 2 more".
func seqList(seqs []uint64) string {
	var b strings.Builder
	b.WriteString("sequence")
	if len(seqs) > 1 {
		b.WriteString("s")
	}
	for i, q := range seqs {
		if i == 5 {
			fmt.Fprintf(&b, " and %d more", len(seqs)-5)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", q)
	}
	return b.String()
}

// keyUsed reports whether some persist of the history used key k.
func (x *index) keyUsed(k int32) bool {
	lo, hi := store.Span(x.OpKeySpan, k)
	return hi > lo
}

// recordsOf is chat c's final idempotency records, grouped once on first
// use (chats are decided concurrently).
func (x *index) recordsOf(c int32) []int32 {
	x.recordsOnce.Do(func() {
		x.recordsByChat = map[int32][]int32{}
		for i := range x.Fin.Count() {
			if f := x.Fin.At(i); f.Table == store.TableIdempotency {
				x.recordsByChat[f.Chat] = append(x.recordsByChat[f.Chat], i)
			}
		}
	})
	return x.recordsByChat[c]
}

// linearizabilityPromise: every contract promises linearizability, but
// its model needs the contract's values defined.
func linearizabilityPromise(j *judging) promise {
	if problem := contractProblem(j.con); problem != "" {
		return promise{undefined: "the model needs a valid contract: " + problem}
	}
	return promise{}
}

func judgeLinearizability(j *judging) Result {
	defer timings.Phase("linearizability")()
	res, decided, undecided := checkLinearizability(j.x, j.con, j.opt)
	j.stats.decided, j.stats.undecided = decided, undecided
	return res
}
