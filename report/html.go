package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

// The report is one HTML file that opens offline: the chart library
// (uPlot, vendored from npm under assets/uplot with its licence), the
// page's script and style and the data are all inlined.
//
//go:embed assets/report.html.tmpl assets/report.css assets/report.js assets/uplot/uPlot.iife.min.js assets/uplot/uPlot.min.css assets/uplot/LICENSE
var assets embed.FS

const uplotVersion = "1.6.32"

var reportTemplate = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"ms":      fms,
	"pct":     func(f float64) string { return fmt.Sprintf("%.2f%%", 100*f) },
	"rate":    formatRate,
	"upper":   strings.ToUpper,
	"kb":      func(n int64) string { return fmt.Sprintf("%.0f KB", float64(n)/1024) },
	"seconds": func(f float64) string { return fmt.Sprintf("%.1fs", f) },
	"sub":     func(a, b int) int { return a - b },
}).ParseFS(assets, "assets/report.html.tmpl"))

// inlined is the page plus the assets the template inlines.
type inlined struct {
	page
	UPlotVersion string
	UPlotJS      template.JS
	UPlotCSS     template.CSS
	Script       template.JS
	Style        template.CSS
	DataJSON     template.JS
}

func asset(name string) string {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return string(b)
}

// uplotWithLicense is uPlot's script behind its licence, as a comment: the
// template engine drops HTML comments, and the licence must travel with
// the copy.
func uplotWithLicense() string {
	return "/*! uPlot " + uplotVersion + " (https://github.com/leeoniya/uPlot)\n" +
		asset("uplot/LICENSE") + "*/\n" + asset("uplot/uPlot.iife.min.js")
}

// renderHTML writes report.html for r.
func renderHTML(w io.Writer, r Results, lat *latencySeries, lines map[int]string, generated time.Time) error {
	p := newPage(r, lat, lines, generated)
	// encoding/json escapes <, > and & in strings, so the data cannot
	// close the script element it sits in.
	data, err := json.Marshal(p.Data)
	if err != nil {
		return fmt.Errorf("report data: %w", err)
	}
	var buf bytes.Buffer
	err = reportTemplate.Execute(&buf, inlined{
		page: p, UPlotVersion: uplotVersion,
		UPlotJS: template.JS(uplotWithLicense()), UPlotCSS: template.CSS(asset("uplot/uPlot.min.css")),
		Script: template.JS(asset("report.js")), Style: template.CSS(asset("report.css")),
		DataJSON: template.JS(data),
	})
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
