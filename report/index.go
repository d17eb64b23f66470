package report

import (
	"html/template"
	"io"
	"path"
)

// IndexFile is the page a multi-target results directory opens with.
const IndexFile = "index.html"

// IndexEntry is one target's row: its report and where it is, relative to
// the index.
type IndexEntry struct {
	Bench Bench
	Dir   string
}

var indexPage = template.Must(template.New("index").Funcs(template.FuncMap{
	"rate":    formatRate,
	"p99":     p99Of,
	"verdict": func(b Bench) string { return Verdict(b.Check) },
	"report":  func(dir string) string { return path.Join(dir, ReportFile) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chatseq: {{len .}} targets</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em}
table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}.PASS{color:#1b5e20}.FAIL{color:#b71c1c}.UNKNOWN{color:#e65100}
</style></head><body>
<h1>chatseq bench: {{len .}} targets side by side</h1>
<table><thead><tr><th>target</th><th>ops/s</th><th>ok</th><th>fail</th><th>info</th><th>gap rate</th><th>allocate p99</th><th>persist p99</th><th>end-to-end p99</th><th>verdict</th></tr></thead><tbody>
{{range .}}<tr><td><a href="{{report .Dir}}">{{.Bench.Run.Target}}</a></td><td>{{rate .Bench.Throughput}}</td><td>{{.Bench.OK}}</td><td>{{.Bench.Fail}}</td><td>{{.Bench.Info}}</td><td>{{.Bench.GapRateText}}</td><td>{{p99 .Bench "allocate"}}</td><td>{{p99 .Bench "persist"}}</td><td>{{p99 .Bench "end_to_end"}}</td><td class="{{verdict .Bench}}">{{verdict .Bench}}</td></tr>
{{end}}</tbody></table>
<p>Each target's name opens its report.</p>
</body></html>
`))

// WriteIndex writes the page that links a multi-target run's reports.
func WriteIndex(w io.Writer, entries []IndexEntry) error { return indexPage.Execute(w, entries) }
