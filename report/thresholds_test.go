package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestThresholdsAreReportedWithTheirVerdictsOnlyWhenGiven(t *testing.T) {
	b := benchReport(t)
	var without bytes.Buffer
	if err := WriteText(&without, b); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(without.String(), "threshold") || strings.Contains(js.String(), `"thresholds"`) {
		t.Fatalf("a run without thresholds mentions them:\n%s\n%s", without.String(), js.String())
	}

	b.Thresholds = []ThresholdResult{
		{Expr: "allocate.p99 < 50ms", Actual: "120ns", Value: 120, OK: true},
		{Expr: "throughput > 1e9", Actual: "900 ops/s", Value: 900},
	}
	var text bytes.Buffer
	if err := WriteText(&text, b); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{"allocate.p99 < 50ms  PASS     120ns", "throughput > 1e9     FAIL     900 ops/s", "verdict: PASS   thresholds: FAIL (1 of 2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	b.Thresholds = b.Thresholds[:1]
	text.Reset()
	if err := WriteText(&text, b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "verdict: PASS   thresholds: PASS (1)") {
		t.Errorf("a run whose thresholds all hold:\n%s", text.String())
	}

	js.Reset()
	if err := WriteJSON(&js, b); err != nil {
		t.Fatal(err)
	}
	var back Bench
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Thresholds) != 1 || back.Thresholds[0] != b.Thresholds[0] {
		t.Fatalf("JSON round trip of thresholds: %+v, want %+v", back.Thresholds, b.Thresholds)
	}
}

func TestThresholdsFailedCounts(t *testing.T) {
	ts := []ThresholdResult{{OK: true}, {}, {OK: true}, {}}
	if n := ThresholdsFailed(ts); n != 2 {
		t.Fatalf("ThresholdsFailed = %d, want 2", n)
	}
	if n := ThresholdsFailed(nil); n != 0 {
		t.Fatalf("ThresholdsFailed(nil) = %d", n)
	}
}

func TestThresholdsAppearOnTheHTMLPage(t *testing.T) {
	saved := *healthyRun(t).saved
	var plain bytes.Buffer
	if err := saved.WriteHTML(&plain, fixtureGenerated); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "<th>threshold</th>") {
		t.Fatal("a run without thresholds shows a thresholds table")
	}
	saved.Results.Thresholds = []ThresholdResult{
		{Expr: "allocate.p99 < 50ms", Actual: "120ns", OK: true},
		{Expr: "throughput > 1e9", Actual: "900 ops/s"},
	}
	var page bytes.Buffer
	if err := saved.WriteHTML(&page, fixtureGenerated); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{
		"<th>threshold</th>",
		`<td>allocate.p99 &lt; 50ms</td><td><span class="badge badge-pass">PASS</span></td><td>120ns</td>`,
		`<td>throughput &gt; 1e9</td><td><span class="badge badge-fail">FAIL</span></td><td>900 ops/s</td>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}
