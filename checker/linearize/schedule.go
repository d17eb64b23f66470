package linearize

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/chatseq/chatseq/internal/parallel"
)

// DefaultPorcupineMemory is porcupine's cache budget over all its workers
// unless Budget.Memory says otherwise: with two workers, chats of up to
// 45k operations are tried.
//
// Porcupine's cache holds a bitset of n/8 bytes per entry, so memory grows
// as n² on a linear history and faster when it backtracks; a
// million-operation chat cannot be checked this way (192k operations took
// 23s, 1.9M gave up at 13.5GB). A chat that could not finish even a linear
// pass within its worker's share of the memory budget is not tried; a
// larger budget decides larger chats. The exact order checkers cover the
// others.
const DefaultPorcupineMemory = 768 << 20

// Job is one chat to decide and how many of its operations the model
// takes.
type Job struct{ Chat, Ops int32 }

// Budget bounds Decide.
type Budget struct {
	// Timeout is porcupine's time over all the chats it checks.
	Timeout time.Duration
	// Memory is what porcupine's caches may hold over all workers; 0
	// means DefaultPorcupineMemory.
	Memory int64
	// Porcupine: every chat by porcupine, none by the exact checker.
	Porcupine bool
	// CollectFirst runs the garbage collector before the exact checker
	// starts, given the largest job (a hot chat: see Decide).
	CollectFirst func(largest Job) bool
	// VisualizeDir, unless empty, gets porcupine's view of the first
	// MaxDrawings chats that fail.
	VisualizeDir string
}

// ChatOutcome is the outcome of one job's chat.
type ChatOutcome struct {
	Chat int32
	Outcome
}

// Decision is what Decide found.
type Decision struct {
	// Outcomes are the jobs', smallest chat first; a chat porcupine never
	// started is Unknown with Why "budget", one too large for its share of
	// the memory Unknown with Why "size".
	Outcomes []ChatOutcome
	// Fallbacks counts the chats the exact checker left to porcupine.
	Fallbacks int
	// MaxOps is the largest chat porcupine tries, within MemPerWorker.
	MaxOps       int
	MemPerWorker int64
}

// Decide decides each job's chat: the exact checker first (unless
// Budget.Porcupine), on as many workers as GOMAXPROCS, then porcupine on
// the chats it leaves, each started with a fair share of the time that
// is left. build makes a chat's model, for porcupine with its operations.
func Decide(jobs []Job, build func(chat int32, forPorcupine bool) (*Chat, []porcupine.Operation), b Budget) Decision {
	// Small chats first: what they leave of the budget goes to larger ones.
	slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Ops, b.Ops) })
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	mem := b.Memory
	if mem <= 0 {
		mem = DefaultPorcupineMemory
	}
	d := Decision{Outcomes: make([]ChatOutcome, len(jobs)), MemPerWorker: mem / int64(workers)}
	d.MaxOps = PorcupineMaxOps(d.MemPerWorker)
	outcomes := d.Outcomes
	draw := NewDrawings(b.VisualizeDir, MaxDrawings)
	holes := NewHoleBudget(HolesPerCheck)
	queue := make([]int, len(jobs))
	for i := range queue {
		queue[i] = i
	}
	if !b.Porcupine {
		if b.CollectFirst != nil && b.CollectFirst(jobs[len(jobs)-1]) {
			runtime.GC()
		}
		parallel.ForEach(workers, len(jobs), func(i int) {
			m, _ := build(jobs[i].Chat, false)
			outcomes[i] = ChatOutcome{jobs[i].Chat, ExactWithin(m, draw, holes)}
		})
		queue = queue[:0]
		for i := range outcomes {
			if outcomes[i].Why == "fallback" {
				outcomes[i] = ChatOutcome{}
				queue = append(queue, i)
			}
		}
		d.Fallbacks = len(queue)
	}
	deadline := time.Now().Add(b.Timeout)
	run := func(queue []int) {
		var mu sync.Mutex
		next := 0
		var wg sync.WaitGroup
		for range min(workers, len(queue)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					q := next
					next++
					mu.Unlock()
					if q >= len(queue) {
						return
					}
					i := queue[q]
					j := jobs[i]
					if int(j.Ops) > d.MaxOps {
						outcomes[i] = ChatOutcome{j.Chat, Outcome{Ops: int(j.Ops), Status: Unknown, Why: "size"}}
						continue
					}
					// A fair share of what is left: the time remaining over
					// the chats not yet started, times the workers.
					left := time.Until(deadline)
					share := min(left, left*time.Duration(workers)/time.Duration(len(queue)-q))
					m, ops := build(j.Chat, true)
					outcomes[i] = ChatOutcome{j.Chat, Porcupine(m, ops, share, d.MemPerWorker, draw)}
				}
			}()
		}
		wg.Wait()
	}
	// Chats that ran out of their share get what the others left over;
	// a round that decides none of them ends the retries.
	for len(queue) > 0 && time.Until(deadline) > time.Millisecond {
		run(queue)
		var again []int
		for _, i := range queue {
			if outcomes[i].Status == Unknown && outcomes[i].Why == "timeout" {
				again = append(again, i)
			}
		}
		if len(again) == len(queue) {
			break
		}
		queue = again
	}
	for i := range outcomes {
		if outcomes[i].Status == "" { // never started
			outcomes[i] = ChatOutcome{jobs[i].Chat, Outcome{Ops: int(jobs[i].Ops), Status: Unknown, Why: "budget"}}
		}
	}
	return d
}

// PorcupineMaxOps is the largest chat porcupine can take a linear pass
// through (one cached step per operation) within mem bytes.
func PorcupineMaxOps(mem int64) int {
	lo, hi := 0, 1<<30
	for lo < hi {
		n := lo + (hi-lo+1)/2
		if int64(n)*EntryBytes(n) <= mem {
			lo = n
		} else {
			hi = n - 1
		}
	}
	return lo
}
