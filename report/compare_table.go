package report

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteComparison puts several runs side by side, one row per target.
func WriteComparison(w io.Writer, runs []Bench) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "target\tops/s\tok\tfail\tinfo\tgap rate\tallocate p99\tpersist p99\tend-to-end p99\tverdict\t\n")
	for _, b := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.2f%%\t%s\t%s\t%s\t%s\t\n",
			b.Run.Target, formatRate(b.Throughput), b.OK, b.Fail, b.Info, 100*b.GapRate,
			p99Of(b, "allocate"), p99Of(b, "persist"), p99Of(b, "end_to_end"), Verdict(b.Check))
	}
	return tw.Flush()
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
