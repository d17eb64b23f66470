package delivery

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The cross-check: random histories of a correct delivery plane, some
// mutated, judged by the oracle and by chatseq's checker, invariant by
// invariant. DELIVERY_ORACLE_N sets how many (default 3000; 500 under
// -short or the race detector), DELIVERY_ORACLE_SEED the first seed
// (default 1).

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// generated is one history of the run, as generated.
type generated struct {
	seed      uint64
	mutations []string
	d         doc
}

func generate(seed uint64) generated {
	r := rand.New(rand.NewPCG(seed, 0xde11e7))
	d := simulate(r)
	muts := mutate(r, &d)
	return generated{seed, muts, d}
}

// disagreement is one invariant on which the two judges differ, and
// which of the failing judge's rules made them differ: the oracle's rule
// when the oracle fails, otherwise chatseq's detail with its numbers and
// quoted names blotted out. Telling causes apart keeps the shrinker from
// turning one history's disagreement into another of the same verdicts.
type disagreement struct {
	inv             string
	oracle, chatseq status
	cause           string
}

func (k disagreement) String() string {
	return fmt.Sprintf("%s: oracle %s, chatseq %s [%s]", k.inv, k.oracle, k.chatseq, k.cause)
}

var (
	quotedRE = regexp.MustCompile(`"[^"]*"`)
	digitsRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
)

func causeOf(o verdict, c chatseqVerdict) string {
	if o.status == fail {
		return "oracle: " + o.rule
	}
	if c.status == fail {
		return "chatseq: " + digitsRE.ReplaceAllString(quotedRE.ReplaceAllString(c.detail, `"…"`), "N")
	}
	return "oracle: " + o.rule
}

// tally is the run's counts, merged from every worker.
type tally struct {
	mu         sync.Mutex
	histories  int
	accepted   int
	rejected   map[string]int // by mutation set: what the reader refused
	rejectWhy  map[string]string
	oracle     map[string]map[status]int
	unknown    map[string]int
	unknownWhy map[string]string
	applied    map[string]int
	disagree   map[disagreement]int
	// examples keeps, per disagreement, the first history of up to
	// maxExamples distinct mutation sets: one class may have several causes.
	examples map[disagreement][]generated
}

const maxExamples = 3

func newTally() *tally {
	t := &tally{
		rejected: map[string]int{}, rejectWhy: map[string]string{},
		oracle: map[string]map[status]int{}, unknown: map[string]int{}, unknownWhy: map[string]string{},
		applied: map[string]int{}, disagree: map[disagreement]int{}, examples: map[disagreement][]generated{},
	}
	for _, inv := range invariants {
		t.oracle[inv] = map[status]int{}
	}
	return t
}

// compare judges one generated history both ways and counts the outcome.
func (t *tally) compare(g generated) {
	data := g.d.encode()
	h, err := readable(data)
	t.mu.Lock()
	t.histories++
	for _, m := range g.mutations {
		t.applied[m]++
	}
	t.mu.Unlock()
	if err != nil {
		key := strings.Join(g.mutations, " + ")
		t.mu.Lock()
		t.rejected[key]++
		t.rejectWhy[key] = err.Error()
		t.mu.Unlock()
		return
	}
	d, err := decode(data)
	if err != nil {
		panic(fmt.Sprintf("seed %d: the oracle cannot read its own history: %v", g.seed, err))
	}
	o := judge(d)
	c := chatseqVerdicts(h)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.accepted++
	for _, inv := range invariants {
		t.oracle[inv][o[inv].status]++
		if c[inv].status == unknown {
			t.unknown[inv]++
			t.unknownWhy[inv] = c[inv].detail
		}
		// An unknown is compared as any verdict: the text now says when
		// delivery_state_consistency is at best unknown.
		if c[inv].status != o[inv].status {
			k := disagreement{inv, o[inv].status, c[inv].status, causeOf(o[inv], c[inv])}
			t.disagree[k]++
			t.keepExample(k, g)
		}
	}
}

func (t *tally) keepExample(k disagreement, g generated) {
	set := strings.Join(g.mutations, " + ")
	for _, e := range t.examples[k] {
		if strings.Join(e.mutations, " + ") == set {
			return
		}
	}
	if len(t.examples[k]) < maxExamples {
		t.examples[k] = append(t.examples[k], g)
	}
}

// stillDisagrees is the shrinker's test: the reader accepts the history
// and the two judges still differ the same way on the invariant.
func stillDisagrees(k disagreement) func(doc) bool {
	return func(d doc) bool {
		data := d.encode()
		h, err := readable(data)
		if err != nil {
			return false
		}
		dd, err := decode(data)
		if err != nil {
			return false
		}
		o, c := judge(dd)[k.inv], chatseqVerdicts(h)[k.inv]
		return o.status == k.oracle && c.status == k.chatseq && causeOf(o, c) == k.cause
	}
}

// explain shrinks a history of a disagreement and describes it.
func explain(k disagreement, g generated) string {
	min := shrink(g.d.clone(), stillDisagrees(k))
	data := min.encode()
	h, _ := readable(data)
	o := judge(min)[k.inv]
	c := chatseqVerdicts(h)[k.inv]
	return fmt.Sprintf("seed %d, mutations %q\n  oracle:  %s: %s\n  chatseq: %s: %s\n  minimal history:\n%s",
		g.seed, g.mutations, o.status, o.reason, c.status, c.detail, indent(string(data)))
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func TestDeliveryOracleCrossCheck(t *testing.T) {
	n := envInt("DELIVERY_ORACLE_N", 3000)
	if (testing.Short() || raceEnabled) && os.Getenv("DELIVERY_ORACLE_N") == "" {
		n = 500
	}
	seed0 := uint64(envInt("DELIVERY_ORACLE_SEED", 1))
	// The checker allocates afresh for every small history; a higher GC
	// target keeps collection from dominating (the heap stays small).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	began := time.Now()
	tl := newTally()
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				tl.compare(generate(seed0 + uint64(i)))
			}
		}(w)
	}
	wg.Wait()
	t.Logf("%d histories from seed %d in %v: %d accepted by the reader, %d rejected",
		tl.histories, seed0, time.Since(began).Round(time.Millisecond), tl.accepted, tl.histories-tl.accepted)
	for _, inv := range invariants {
		c := tl.oracle[inv]
		t.Logf("%-27s oracle pass %4d  fail %4d  n/a %4d  unknown %4d;  chatseq unknown %d", inv, c[pass], c[fail], c[na], c[unknown], tl.unknown[inv])
		if tl.unknown[inv] > 0 {
			t.Logf("  an unknown: %s", tl.unknownWhy[inv])
		}
	}
	var names []string
	for m := range tl.applied {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		t.Logf("mutation %-45q applied %d times", m, tl.applied[m])
	}
	for key, k := range tl.rejected {
		t.Logf("reader rejected %d with mutations %q, e.g.: %s", k, key, tl.rejectWhy[key])
	}

	if tl.accepted < tl.histories*9/10 {
		t.Errorf("the reader rejected %d of %d generated histories: the generator breaks the format too often", tl.histories-tl.accepted, tl.histories)
	}
	for _, inv := range invariants {
		if tl.oracle[inv][pass] == 0 || tl.oracle[inv][fail] == 0 {
			t.Errorf("%s was never both passed and failed (pass %d, fail %d): the run proves nothing about it",
				inv, tl.oracle[inv][pass], tl.oracle[inv][fail])
		}
	}
	var keys []disagreement
	for k := range tl.disagree {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		var b strings.Builder
		for _, g := range tl.examples[k] {
			b.WriteString("\n" + explain(k, g))
		}
		t.Errorf("%d histories disagree on %s:%s", tl.disagree[k], k, b.String())
	}
}
