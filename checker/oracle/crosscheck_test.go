package oracle

import (
	"bytes"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
)

// The cross-check: random small histories judged by the oracle and by
// chatseq's checker, exact and porcupine. ORACLE_N sets how many (default
// 30000; -short 5000, the race detector 2000; runs of their own, with
// ORACLE_N and ORACLE_SEED, judge the seeds past them), ORACLE_SEED the first seed (default 1),
// ORACLE_REPORT a file that receives every distinct minimal disagreement
// as Markdown.

type mode struct {
	name string
	opt  checker.Options
}

var modes = []mode{
	{"exact", checker.Options{}},
	{"porcupine", checker.Options{Porcupine: true}},
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// readerKnowsTableRead: table_read lines are written when chatseq's reader
// accepts them.
func readerKnowsTableRead() bool {
	_, err := history.Read(strings.NewReader(`{"format":"chatseq-history","version":1}
{"type":"table_read","table":"messages","lines":0}
`), "probe.jsonl")
	return err == nil
}

// verdictOf runs one mode of chatseq's checker on a history's bytes: its
// verdict and the invariants that failed (or, when it is unknown, those
// unknown, with their details).
func verdictOf(data []byte, m mode) (*bool, []string, error) {
	h, err := history.Read(bytes.NewReader(data), "gen.jsonl")
	if err != nil {
		return nil, nil, err
	}
	rep := checker.Check(h, m.opt)
	var failing, unknown []string
	for _, res := range rep.Invariants {
		switch res.Status {
		case checker.Fail:
			failing = append(failing, res.Name)
		case checker.Unknown:
			unknown = append(unknown, res.Name+": "+res.Detail)
		}
	}
	if rep.Valid == nil {
		return nil, unknown, nil
	}
	return rep.Valid, failing, nil
}

func TestCrossCheckOracle(t *testing.T) {
	n := envInt("ORACLE_N", 30000)
	if os.Getenv("ORACLE_N") == "" {
		switch {
		case raceEnabled: // the harness's goroutines, not the count, are what it tests
			n = 2000
		case testing.Short():
			n = 5000
		}
	}
	seed0 := uint64(envInt("ORACLE_SEED", 1))
	// chatseq's checker allocates its tables afresh for every history:
	// with the default GC target, collection is most of the cost of
	// checking a tiny history (4-6x); the heap here stays small.
	defer debug.SetGCPercent(debug.SetGCPercent(1000))
	// With so rare a collection the heap is mostly garbage, and grew past
	// the machine's 24 GB in a 300,000-history chunk once sync answers
	// said what their messages carried: a soft limit collects sooner
	// only when the heap nears it.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(4 << 30))
	tableRead := readerKnowsTableRead()
	t.Logf("%d histories from seed %d; table_read lines %v", n, seed0, tableRead)
	began := time.Now()
	run := newCrossRun(t)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			queues := map[string][]seeded{}
			companion := map[string]*seeded{} // the last valid history of each class
			for i := w; i < n; i += workers {
				seed := seed0 + uint64(i)
				h := generate(rand.New(rand.NewPCG(seed, 26)), tableRead)
				s, err := parseSpec(h.encode())
				if err != nil {
					t.Errorf("seed %d: the oracle cannot read a generated history: %v\n%s", seed, err, h.encode())
					return
				}
				ov, why := s.judge()
				run.countOracle(ov)
				class := h.batchClass()
				if !ov {
					if run.alone(h, seed, ov, why) && companion[class] != nil && seed%2 == 0 {
						run.beside(seeded{h, seed}, *companion[class], why)
					}
					continue
				}
				companion[class] = &seeded{h, seed}
				queues[class] = append(queues[class], seeded{h, seed})
				if len(queues[class]) == batchSize {
					run.batch(queues[class])
					queues[class] = nil
				}
			}
			for _, q := range queues {
				if len(q) > 0 {
					run.batch(q)
				}
			}
		}(w)
	}
	wg.Wait()
	tl := run.tl
	t.Logf("%d histories in %v: oracle valid %d, invalid %d; %d batches of valid ones passed whole",
		tl.histories, time.Since(began).Round(time.Millisecond), tl.oracleValid, tl.oracleInvalid, run.batches)
	for _, m := range modes {
		t.Logf("%s: agree %d, false PASS %d, false FAIL %d, unknown %d", m.name,
			tl.agree[m.name], tl.falsePass[m.name], tl.falseFail[m.name], tl.unknown[m.name])
	}
	t.Logf("invalid histories checked again beside a valid one: %d checks, %d false PASS", tl.beside, tl.besidePass)
	t.Logf("unknown, by invariant: %v", tl.unknownBy)
	report := run.report()
	if path := os.Getenv("ORACLE_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			t.Errorf("writing %s: %v", path, err)
		}
	}
	bad := tl.besidePass
	for _, m := range modes {
		bad += tl.falsePass[m.name] + tl.falseFail[m.name]
	}
	if bad > 0 {
		t.Errorf("chatseq disagrees with the oracle on %d checks (false PASS, false FAIL, or a false PASS beside a valid history); minimal histories:\n%s", bad, report)
	}
	if tl.oracleValid == 0 || tl.oracleInvalid == 0 {
		t.Errorf("the generator made only one verdict: %d valid, %d invalid", tl.oracleValid, tl.oracleInvalid)
	}
}

// Every rule case is judged by chatseq, exact and porcupine, as the oracle
// judges it: an invalid one fails, and a valid one does not fail (it may
// be unknown where chatseq cannot attribute a line, as the format allows).
func TestOracleAndChatseqAgreeOnRuleCases(t *testing.T) {
	for _, c := range ruleCases {
		for _, m := range modes {
			valid, failing, err := verdictOf([]byte(c.text), m)
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, m.name, err)
			}
			switch {
			case !c.valid && (valid == nil || *valid):
				t.Errorf("%s, %s: the oracle finds it invalid, chatseq does not fail it (valid %v, %v)", c.name, m.name, valid, failing)
			case c.valid && valid != nil && !*valid:
				t.Errorf("%s, %s: the oracle finds it valid, chatseq fails %v", c.name, m.name, failing)
			}
		}
	}
}
