package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteComparison puts several runs side by side, one row per target; on
// a terminal too narrow for the table, one wrapped paragraph per target.
// The ok, fail and info columns count persists, as each report's
// "persists" line does.
func WriteComparison(w io.Writer, runs []Bench) error {
	return writeComparison(w, runs, TerminalWidth(w))
}

func writeComparison(w io.Writer, runs []Bench, width int) error {
	header := []string{"target", "ops/s", "persists ok", "fail", "info", "gap rate", "allocate p99", "persist p99", "end-to-end p99", "verdict", ""}
	rows := make([][]string, len(runs))
	for i, b := range runs {
		rows[i] = []string{b.Run.Target, formatRate(b.Throughput), fmt.Sprint(b.PersistOK), fmt.Sprint(b.PersistFail()), fmt.Sprint(b.PersistInfo()),
			b.GapRateText(), p99Of(b, "allocate"), p99Of(b, "persist"), p99Of(b, "end_to_end"), Verdict(b.Check), ""}
	}
	return fitTable(w, header, rows, width, true)
}

// WriteJSONRuns writes several runs as {"runs": [...]}.
func WriteJSONRuns(w io.Writer, runs []Bench) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Runs []Bench `json:"runs"`
	}{runs})
}

func p99Of(b Bench, step string) string {
	for _, p := range b.Latency {
		if p.Step == step && p.Count > 0 {
			return fms(p.P99)
		}
	}
	return "-"
}
