package history

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A flush's merge of the shards' lines is every line in time order, the
// lower shard's first where times are equal, each line's value beside it:
// runs of one shard taken whole included, against sorting every line.
func TestMergeByTimeIsEveryLineInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 74))
	for round := range 500 {
		var taken [recordShards]shardLines
		type line struct {
			time         int64
			shard, place int
			text         string
		}
		var all []line
		shards := 1 + r.IntN(recordShards)
		for i := range shards {
			if r.IntN(4) == 0 {
				continue // a shard without lines
			}
			shard := r.IntN(recordShards)
			sh := &taken[shard]
			if len(sh.lines) > 0 {
				continue
			}
			var now int64
			for place := range r.IntN(40) {
				now += int64(r.IntN(3)) // many equal times
				text := fmt.Sprintf("%d.%d.%d\n", i, shard, place)
				sh.buf = append(sh.buf, text...)
				sh.lines = append(sh.lines, lineMark{time: now, end: len(sh.buf)})
				sh.taps = append(sh.taps, tapLine{chat: text, time: now})
				all = append(all, line{now, shard, place, text})
			}
		}
		slices.SortFunc(all, func(a, b line) int {
			return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.shard, b.shard), cmp.Compare(a.place, b.place))
		})
		var want bytes.Buffer
		for _, l := range all {
			want.WriteString(l.text)
		}
		out, plan := mergeByTime(nil, nil, &taken, true)
		var taps []tapLine
		var read [recordShards]int32
		for _, seg := range plan {
			taps = append(taps, taken[seg.shard].taps[read[seg.shard]:read[seg.shard]+seg.n]...)
			read[seg.shard] += seg.n
		}
		if !bytes.Equal(out, want.Bytes()) {
			t.Fatalf("round %d: merged\n%s\nwant\n%s", round, out, want.Bytes())
		}
		if len(taps) != len(all) {
			t.Fatalf("round %d: %d values for %d lines", round, len(taps), len(all))
		}
		for k, l := range all {
			if taps[k].chat != l.text {
				t.Fatalf("round %d: value %d is %q's, the line is %q", round, k, taps[k].chat, l.text)
			}
		}
	}
}
