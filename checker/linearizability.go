package checker

import (
	"fmt"
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
	for o, k := range x.KindsOf(reject) {
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
		return x.ChatModel(c, con, forPorcupine)
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
			if x.keylessMayBeOpsOf(o.Chat) {
				// Its final messages without a key could be some of its
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
			switch {
			case o.OthersUnmade == 0:
			case o.OthersUnmade == len(o.Others):
				x.Warn("chat %q: %s no persist of the history could have committed in time; the header does not say \"sole_writer\", so they are taken as other writers' messages (chatseq check --sole-writer judges them as violations)",
					x.ChatNames[o.Chat], seqList(o.Others))
			default:
				x.Warn("chat %q: of %s, which no ack created, %d no persist of the history could have committed in time; the header does not say \"sole_writer\", so they are taken as other writers' messages (chatseq check --sole-writer judges them as violations)",
					x.ChatNames[o.Chat], seqList(o.Others), o.OthersUnmade)
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
			v.unknown("no violation found on %s, but their final lines without a key (or, under key_scope client, without a sender that an ack or a single sender attributes) could be some of their operations of unknown outcome (of that key text, or without a key), which the model then lets commit anywhere, so that is not a pass: %s",
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

// linearizabilityPromise: every contract promises linearizability, but
// its model needs the contract's values defined.
func linearizabilityPromise(j *judging) promise {
	if problem := j.con.ModelProblem(); problem != "" {
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

// keylessMayBeOpsOf reports whether a final line of chat c whose key is
// not known (a message or a record) may be one of c's persists the model
// cannot place: one above initial_counter that a persist of unknown
// outcome may have made (store.Index.KeylessLinesRelax: the model neither
// ties that commit to the line nor holds the line's sequence against the
// others'), a persist without a key that did not fail (the model leaves
// those out), or one of unknown outcome that the model lets commit
// anywhere only because such a message may be its (store.Index.
// KeylessAnywhere). With other writers, neither relaxation is made for a
// line no key rejected as reused may be, nor for a persist that could hold
// only such lines (store/keyless_others.go). Without any, every such line
// is no operation's the model leaves open, another writer's that holds its
// sequence (the model's others), and its pass stands.
func (x *index) keylessMayBeOpsOf(c int32) bool {
	if x.KeylessMsgIn[c] == 0 && x.KeylessIdemIn[c] == 0 {
		return false
	}
	if x.KeylessLinesRelax(c) {
		return true
	}
	lo, hi := store.Span(x.OpChatSpan, c)
	for _, o := range x.OpsByChat[lo:hi] {
		op := x.Ops.At(o)
		if op.Fn != store.FnPersist || op.Status == store.StFail {
			continue
		}
		if op.Key < 0 {
			return true
		}
		if op.Status != store.StOK && !x.KeyCreated[op.Key] && x.KeyMsg[op.Key] < 0 && x.KeylessAnywhere(o) {
			return true
		}
	}
	return false
}
