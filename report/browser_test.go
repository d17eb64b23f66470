package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/checker"
)

// chromiumFlags run a headless browser that reaches nothing outside the
// machine and keeps no state between runs (each gets a fresh profile).
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--hide-scrollbars", "--enable-logging=stderr", "--v=0",
	// Lets the page's timers and animation frames run before the DOM is
	// dumped or the screenshot taken.
	"--virtual-time-budget=10000",
}

// chromium finds the browser. Without one the test fails rather than
// skips: test.sh installs Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHATSEQ_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium found (install Debian's chromium, as test.sh does, or set CHATSEQ_CHROMIUM): the report's browser test cannot run")
	return ""
}

// openInChromium loads url with extra flags and returns what the browser
// printed on stdout and stderr.
func openInChromium(t *testing.T, bin, url string, extra ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(append(append([]string{}, chromiumFlags...), "--user-data-dir="+t.TempDir()), extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, tail(stderr.String(), 2000))
	}
	return stdout.String(), stderr.String()
}

// consoleLine is how Chromium logs a page's console output and uncaught
// errors to stderr (every level as INFO:CONSOLE).
var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

var renderStatus = regexp.MustCompile(`<div id="render-status" data-state="([a-z]+)"(?: data-charts="(\d+)")?>([^<]*)`)

// The report opens in a real browser, every chart draws without a console
// message or script error, and a screenshot shows it; the porcupine
// drawings it links open too.
func TestReportRendersInChromium(t *testing.T) {
	bin := chromium(t)
	for name, f := range map[string]*fixtureRun{"healthy": healthyRun(t), "faulty": faultyRun(t), "receivers": receiversRun(t)} {
		url := "file://" + filepath.Join(f.dir, ReportFile)
		dom, logs := openInChromium(t, bin, url, "--dump-dom")
		if msgs := consoleLine.FindAllString(logs, -1); len(msgs) > 0 {
			t.Errorf("%s: the page wrote to the console:\n%s", name, strings.Join(msgs, "\n"))
		}
		m := renderStatus.FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%s: no #render-status in the rendered page:\n%s", name, tail(dom, 1500))
		}
		if m[1] != "ok" {
			t.Fatalf("%s: charts did not all render: state %q: %s", name, m[1], m[3])
		}
		data := newChartData(f.saved.Results, f.saved.latency)
		want := 4 + len(data.Latency)
		if data.Delivery != nil {
			want += 2 // fan-out and full visibility
		}
		if got, _ := strconv.Atoi(m[2]); got != want {
			t.Errorf("%s: %d charts drawn, want %d", name, got, want)
		}
		if n := strings.Count(dom, `class="uplot`); n != want {
			t.Errorf("%s: %d uPlot charts in the DOM, want %d", name, n, want)
		}

		shot := filepath.Join(t.ArtifactDir(), name+"-report.png")
		const width, height = 1300, 5200
		openInChromium(t, bin, url, "--screenshot="+shot, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height))
		checkScreenshot(t, shot, width, height)
		t.Logf("%s: screenshot %s", name, shot)

		for _, v := range f.saved.Results.Files.Visualizations {
			_, logs := openInChromium(t, bin, "file://"+filepath.Join(f.dir, v.File), "--dump-dom")
			if msgs := consoleLine.FindAllString(logs, -1); len(msgs) > 0 {
				t.Errorf("%s: porcupine visualization %s wrote to the console:\n%s", name, v.File, strings.Join(msgs, "\n"))
			}
		}
	}
}

// The report loads nothing from the network: every script and style is
// inline, and links point at files beside it.
func TestReportIsSelfContained(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(faultyRun(t).dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	external := regexp.MustCompile(`(?i)(?:src|href)\s*=\s*["']?(?:https?:)?//|@import|url\(\s*["']?(?:https?:)?//`)
	if loc := external.FindIndex(page); loc != nil {
		t.Fatalf("report.html loads from the network: %q", page[max(0, loc[0]-80):min(len(page), loc[1]+80)])
	}
	if !bytes.Contains(page, []byte("Permission is hereby granted")) {
		t.Error("report.html does not carry uPlot's licence")
	}
}

// checkScreenshot decodes the PNG and checks it shows a page with charts:
// the window's size, and many colours (anti-aliased chart lines), not a
// blank or an error page.
func checkScreenshot(t *testing.T, path string, width, height int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	colors, inked := countColors(img)
	if colors < 200 || inked < 0.05 {
		t.Fatalf("screenshot %s looks empty: %d colours, %.1f%% of pixels not background", path, colors, 100*inked)
	}
}

func countColors(img image.Image) (int, float64) {
	seen := map[uint32]bool{}
	b := img.Bounds()
	inked, total := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
			if r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
				inked++
			}
			total++
		}
	}
	return len(seen), float64(inked) / float64(total)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// measureScript is added to a copy of a failing report: once the page and
// its frames have loaded, it records where the failures section sits,
// whether any counterexample line is cut or scrolls sideways, and what the
// section says and draws, as JSON in #measured for --dump-dom to print.
const measureScript = `<script>
window.addEventListener("load", function () {
  var failed = document.getElementById("failed");
  var out = {top: -1, text: "", cut: [], wrapped: 0, frames: [], charts: document.getElementById("throughput").getBoundingClientRect().top + window.scrollY};
  if (failed) {
    out.top = failed.getBoundingClientRect().top + window.scrollY;
    out.text = failed.innerText;
  }
  document.querySelectorAll(".lines, .cl .tx").forEach(function (e) {
    if (e.scrollWidth > e.clientWidth + 1) out.cut.push(e.className + ": " + e.textContent.slice(0, 60));
  });
  document.querySelectorAll("#failed .cl .tx").forEach(function (e) {
    if (e.getBoundingClientRect().height > 30) out.wrapped++;
  });
  document.querySelectorAll("#failed .failure").forEach(function (f) {
    var frame = f.querySelector("iframe.drawing");
    out.frames.push({id: f.id, src: frame ? frame.getAttribute("src") : "", height: frame ? frame.getBoundingClientRect().height : 0});
  });
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

var measured = regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`)

// A failing report says at its top which invariants failed, with the first
// lines of each counterexample, wrapped rather than cut at the right edge,
// the command that reproduces the run, and porcupine's view of the chat
// each failure names where the checker drew it.
func TestFailingReportStatesItsFailuresAtTheTop(t *testing.T) {
	bin := chromium(t)
	f := faultyRun(t)
	page, err := os.ReadFile(filepath.Join(f.dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	// Beside the report, so that its links to the drawings resolve.
	probe := filepath.Join(f.dir, "measure-top.html")
	if err := os.WriteFile(probe, bytes.Replace(page, []byte("</body>"), []byte(measureScript+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	dom, logs := openInChromium(t, bin, "file://"+probe, "--dump-dom", "--window-size=900,900")
	if msgs := consoleLine.FindAllString(logs, -1); len(msgs) > 0 {
		t.Errorf("the page or a drawing in it wrote to the console:\n%s", strings.Join(msgs, "\n"))
	}
	m := measured.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script left nothing:\n%s", tail(dom, 2000))
	}
	var got struct {
		Top, Charts float64
		Text        string
		Cut         []string
		Wrapped     int
		Frames      []struct {
			ID, Src string
			Height  float64
		}
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	if got.Top < 0 || got.Top > 250 || got.Top > got.Charts {
		t.Errorf("the failures section starts %.0f px down (the charts at %.0f): want it at the top, under the title", got.Top, got.Charts)
	}
	r := f.saved.Results
	if !strings.Contains(got.Text, r.Command) {
		t.Errorf("the top does not give the command that reproduces the run %q:\n%s", r.Command, got.Text)
	}
	failed := failures(r, f.saved.lines)
	if len(failed) < 2 {
		t.Fatalf("the faulty fixture fails %d invariants, want several", len(failed))
	}
	drawn := 0
	for _, fl := range failed {
		first := fmt.Sprint(fl.First[0].N)
		if !strings.Contains(got.Text, fl.Name) || !strings.Contains(got.Text, first) {
			t.Errorf("the top does not name %s with its first counterexample line %s", fl.Name, first)
		}
		for _, fr := range got.Frames {
			if fr.ID != "failure-"+fl.Name {
				continue
			}
			want := ""
			if fl.Drawing != nil {
				want = VisualizeDir + "/linearizability-" + fl.Chat + ".html"
				drawn++
			}
			if fr.Src != want || (want != "" && fr.Height < 300) {
				t.Errorf("%s names chat %q; the top draws %q (%.0f px high), want %q", fl.Name, fl.Chat, fr.Src, fr.Height, want)
			}
		}
	}
	if drawn == 0 {
		t.Error("no failure at the top has porcupine's drawing of its chat")
	}
	if len(got.Cut) > 0 {
		t.Errorf("counterexample lines cut or scrolling sideways at 900 px: %v", got.Cut)
	}
	if got.Wrapped == 0 {
		t.Error("no counterexample line at the top wraps at 900 px: are the lines cut instead?")
	}
}

// measureContradiction reads the contradiction drawn for the failing
// linearizability verdict: each step's line and the lines shown under it,
// and each timeline bar's place in its track, in pixels.
const measureContradiction = `<script>
window.addEventListener("load", function () {
  var out = {found: false, steps: [], bars: [], drawing: !!document.querySelector("#failure-linearizability iframe.drawing")};
  var c = document.querySelector("#failure-linearizability .contradiction");
  if (c) {
    out.found = true;
    c.querySelectorAll("ol.steps > li").forEach(function (li) {
      out.steps.push({n: +li.getAttribute("value"), head: li.querySelector("b").textContent,
        lines: Array.prototype.map.call(li.querySelectorAll(".ln"), function (e) { return e.textContent; })});
    });
    c.querySelectorAll(".tl-row").forEach(function (row) {
      var track = row.querySelector(".tl-track").getBoundingClientRect(), bar = row.querySelector(".tl-bar").getBoundingClientRect();
      out.bars.push({label: row.querySelector(".tl-n").textContent, left: bar.left - track.left, width: bar.width, track: track.width});
    });
  }
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

// A failing linearizability verdict shows the checker's contradiction in
// the report, operation by operation, even when porcupine drew nothing:
// the operations the text names by line, in its order, each with its
// history lines and a bar on one timeline, inside its track.
func TestReportDrawsTheContradictionWithoutPorcupine(t *testing.T) {
	bin := chromium(t)
	f := faultyRun(t)
	r := f.saved.Results
	var lin checker.Result
	for _, inv := range r.Check.Invariants {
		if inv.Name == checker.NameLinearizability {
			lin = inv
		}
	}
	if lin.Status != checker.Fail {
		t.Fatalf("the faulty fixture's linearizability is %s, want fail", lin.Status)
	}
	want := newContradiction(lin, f.saved.lines)
	if len(want.Steps) == 0 {
		t.Fatalf("no operation read from the checker's text %q", lin.Detail)
	}
	// Porcupine drew nothing: no drawing is listed.
	r.Files.Visualizations = nil
	var page bytes.Buffer
	if err := renderHTML(&page, r, f.saved.latency, f.saved.lines, fixtureGenerated); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(probe, bytes.Replace(page.Bytes(), []byte("</body>"), []byte(measureContradiction+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := openInChromium(t, bin, "file://"+probe, "--dump-dom", "--window-size=900,900")
	m := measured.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring script left nothing:\n%s", tail(dom, 2000))
	}
	var got struct {
		Found, Drawing bool
		Steps          []struct {
			N     int
			Head  string
			Lines []string
		}
		Bars []struct {
			Label              string
			Left, Width, Track float64
		}
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	if !got.Found || got.Drawing {
		t.Fatalf("contradiction shown %v, porcupine's drawing %v: want the contradiction and no drawing", got.Found, got.Drawing)
	}
	named := want.Timeline()
	if len(got.Steps) != len(named) || len(got.Bars) != len(named) {
		t.Fatalf("%d steps and %d bars shown, want %d: %+v", len(got.Steps), len(got.Bars), len(named), got)
	}
	for i, s := range named {
		g := got.Steps[i]
		if g.N != s.N || g.Head != fmt.Sprintf("line %d", s.Line) || len(g.Lines) == 0 || g.Lines[0] != fmt.Sprint(s.Line) {
			t.Errorf("step %d shown as %+v, want line %d with its invoke line first", i+1, g, s.Line)
		}
		if s.Complete.N > 0 && (len(g.Lines) < 2 || g.Lines[1] != fmt.Sprint(s.Complete.N)) {
			t.Errorf("step %d shows lines %v, want its completion line %d after its invoke", i+1, g.Lines, s.Complete.N)
		}
		b := got.Bars[i]
		if b.Label != fmt.Sprintf("%d · line %d", s.N, s.Line) || b.Width < 2 || b.Left < -0.5 || b.Left+b.Width > b.Track+0.5 {
			t.Errorf("bar %d: %+v, want it labelled step %d line %d, visible and inside its track", i+1, b, s.N, s.Line)
		}
	}
	for _, s := range want.Steps {
		if !strings.Contains(lin.Detail, fmt.Sprintf("line %d ", s.Line)) {
			t.Errorf("step at line %d is not named by the checker's text", s.Line)
		}
	}
}
