package linearize

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// windowOps bounds the operations a counterexample's visualization shows.
const windowOps = 2000

// visualizeWindow draws porcupine's view of the operations around an exact
// counterexample: those whose intervals meet the time span of the blamed
// operations, the nearest windowOps of them. Dropping the others can make
// the window linearizable (a commit outside it explained a read inside);
// then there is nothing to draw and the note says so.
func visualizeWindow(m *Chat, blame []int32, dir string) (note string, drawn bool) {
	if len(blame) == 0 {
		return "", false
	}
	ops := make([]porcupine.Operation, len(m.Ops))
	for i := range ops {
		ops[i] = porcupine.Operation{ClientId: m.h.Process(m.Ops[i].Op), Call: m.Call[i], Return: m.Ret[i]}
	}
	lo, hi := int64(timeMax), int64(timeMin)
	for _, b := range blame {
		lo = min(lo, ops[b].Call)
		hi = max(hi, ops[b].Call)
		if r := ops[b].Return; r != timeMax {
			hi = max(hi, r)
		}
	}
	var keep []int32
	for i := range ops {
		if ops[i].Call <= hi && ops[i].Return >= lo {
			keep = append(keep, int32(i))
		}
	}
	if len(keep) > windowOps {
		// The nearest to the span's middle, blamed ones first.
		mid := lo/2 + hi/2
		blamed := map[int32]bool{}
		for _, b := range blame {
			blamed[b] = true
		}
		dist := func(i int32) int64 {
			if blamed[i] {
				return -1
			}
			d := ops[i].Call - mid
			return max(d, -d)
		}
		slices.SortFunc(keep, func(a, b int32) int { return cmp.Compare(dist(a), dist(b)) })
		keep = keep[:windowOps]
		slices.Sort(keep)
	}
	wm := m.emptyLike()
	// Porcupine wants client ids dense from 0.
	clients := map[int]int{}
	wops := make([]porcupine.Operation, 0, len(keep))
	for _, i := range keep {
		o := m.Ops[i]
		if o.Kind == KindSync {
			wm.Syncs = append(wm.Syncs, *m.SyncOf(&o))
			o.Sync = int32(len(wm.Syncs) - 1)
		}
		op := ops[i]
		op.Input = int32(len(wm.Ops))
		wm.Ops = append(wm.Ops, o)
		wm.Call, wm.Ret = append(wm.Call, m.Call[i]), append(wm.Ret, m.Ret[i])
		cl, ok := clients[op.ClientId]
		if !ok {
			cl = len(clients)
			clients[op.ClientId] = cl
		}
		op.ClientId = cl
		wops = append(wops, op)
	}
	linkWaits(wm, wops)
	wm.prepareSteps()
	model := Model(wm)
	res, info := porcupine.CheckOperationsVerbose(model, wops, 5*time.Second)
	if res != porcupine.Illegal {
		return fmt.Sprintf(" (no visualization: the %d operations around the counterexample are linearizable without the rest)", len(wops)), false
	}
	return visualize(m.name, model, info, len(wops), dir), true
}
