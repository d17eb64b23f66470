package chatseq_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path every chatseq package starts with.
const module = "github.com/chatseq/chatseq"

// TestPackagesKeepTheirLayers holds the import graph to the layer table of
// docs/architecture.md: no import from a lower layer to a higher one (so
// nothing but tests imports fixtures/), every package placed, every placed
// package present, no cycle.
func TestPackagesKeepTheirLayers(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	layers, err := parseLayers(string(doc))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	pkgs := listPackages(t)
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d chatseq packages", len(pkgs))
	}
	for _, v := range layerViolations(layers, pkgs) {
		t.Error(v)
	}
}

// The rules catch each kind of violation, on a graph made up for it.
func TestLayerRulesCatchEachViolation(t *testing.T) {
	layers, err := parseLayers(`
| layer | packages | what |
| --- | --- | --- |
| tests | ` + "`fixtures/...`" + ` | test helpers |
| top | ` + "`cmd/...`, `gone`, `store/special`" + ` | the command line |
| low | ` + "`store/...`" + ` | the bottom |
`)
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string][]string{
		"cmd":              {"store", "store/mem"},
		"cmd/sub":          {"cmd"},
		"cmd/leaf":         {},
		"fixtures/pg":      {"store"},
		"fixtures/pg/deep": {"fixtures/pg", "cmd/sub"}, // tests may import anything
		"store":            {"cmd/leaf"},               // upward
		"store/mem":        {"fixtures/pg", "store/a"}, // a fixture outside a test
		"store/special":    {"store"},                  // placed by name, above store/...
		"store/c":          {"store/special"},          // upward
		"store/a":          {"store/b"},                // a cycle
		"store/b":          {"store/a"},
		"unplaced":         {},
	}
	var pkgs []listedPackage
	for path, imports := range graph {
		p := listedPackage{ImportPath: module + "/" + path, GoFiles: []string{"x.go"}}
		for _, imp := range imports {
			p.Imports = append(p.Imports, module+"/"+imp)
		}
		pkgs = append(pkgs, p)
	}
	pkgs = append(pkgs, listedPackage{ImportPath: module}) // test files only: no row needed
	got := strings.Join(layerViolations(layers, pkgs), "\n")
	want := []string{
		"store (layer low) imports cmd/leaf (layer top)",
		"store/c (layer low) imports store/special (layer top)",
		"store/mem imports fixtures/pg, a package for tests only (layer tests)",
		"unplaced is in no layer",
		"gone is in the layer table but no such package exists",
		"import cycle: store/a → store/b → store/a",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("violations do not include %q; got:\n%s", w, got)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != len(want) {
		t.Errorf("got %d violations, want %d:\n%s", n, len(want), got)
	}
}

// layer is one row of the table: its packages, by name or as dir/...
type layer struct {
	name     string
	rank     int // higher layers have higher ranks
	packages []string
}

// testsLayer is the layer nothing but tests may import.
const testsLayer = "tests"

var backticked = regexp.MustCompile("`([^`]+)`")

// parseLayers reads the table whose header starts "| layer | packages |":
// its first row is the top layer.
func parseLayers(doc string) ([]layer, error) {
	var rows [][]string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if in {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case !in && len(cells) >= 2 && cells[0] == "layer" && cells[1] == "packages":
			in = true
		case in && strings.HasPrefix(cells[0], "---"):
		case in:
			if len(cells) < 2 {
				return nil, fmt.Errorf("layer table row %q has no packages cell", line)
			}
			rows = append(rows, cells)
		}
	}
	if len(rows) == 0 {
		return nil, errors.New(`no layer table (a header "| layer | packages | ... |")`)
	}
	var layers []layer
	for i, cells := range rows {
		l := layer{name: cells[0], rank: len(rows) - i}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			l.packages = append(l.packages, m[1])
		}
		if len(l.packages) == 0 {
			return nil, fmt.Errorf("layer %s names no package", l.name)
		}
		layers = append(layers, l)
	}
	return layers, nil
}

// listedPackage is what go list -json says of a package that matters here.
type listedPackage struct {
	ImportPath string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Error      *struct{ Err string }
}

func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	var out, stderr bytes.Buffer
	// -pgo=off: with cmd/chatseq/default.pgo, go list also lists each
	// package the profile optimizes for that main package, a copy named
	// "p [github.com/chatseq/chatseq/cmd/chatseq]"; the imports are the
	// same.
	cmd := exec.Command("go", "list", "-pgo=off", "-deps", "-json", "./...")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(&out)
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		if p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/") {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// rel is a chatseq import path relative to the module ("" for its root).
func rel(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}

// placement finds each package's layer: a row naming it wins over a dir/...
// row, and the longest dir/... wins over a shorter one.
type placement struct {
	named map[string]*layer
	trees map[string]*layer // dir of dir/...
}

func newPlacement(layers []layer) placement {
	p := placement{named: map[string]*layer{}, trees: map[string]*layer{}}
	for i := range layers {
		for _, pkg := range layers[i].packages {
			if dir, ok := strings.CutSuffix(pkg, "/..."); ok {
				p.trees[dir] = &layers[i]
			} else {
				p.named[pkg] = &layers[i]
			}
		}
	}
	return p
}

func (p placement) layerOf(pkg string) *layer {
	if l, ok := p.named[pkg]; ok {
		return l
	}
	for dir := pkg; dir != "."; {
		if l, ok := p.trees[dir]; ok {
			return l
		}
		i := strings.LastIndex(dir, "/")
		if i < 0 {
			break
		}
		dir = dir[:i]
	}
	return nil
}

// layerViolations lists every breach of the rules, sorted.
func layerViolations(layers []layer, pkgs []listedPackage) []string {
	place := newPlacement(layers)
	var out []string
	exists := map[string]bool{}
	graph := map[string][]string{}
	for _, p := range pkgs {
		pkg := rel(p.ImportPath)
		exists[pkg] = true
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				graph[pkg] = append(graph[pkg], rel(imp))
			}
		}
	}
	for _, p := range pkgs {
		pkg := rel(p.ImportPath)
		if len(p.GoFiles)+len(p.CgoFiles) == 0 {
			continue // test files only: nothing imported outside a test
		}
		from := place.layerOf(pkg)
		if from == nil {
			out = append(out, fmt.Sprintf("%s is in no layer: give it a row in docs/architecture.md's layer table", pkg))
			continue
		}
		for _, imp := range graph[pkg] {
			to := place.layerOf(imp)
			switch {
			case to == nil || to.rank <= from.rank:
			case to.name == testsLayer:
				out = append(out, fmt.Sprintf("%s imports %s, a package for tests only (layer %s): only _test.go files may", pkg, imp, testsLayer))
			default:
				out = append(out, fmt.Sprintf("%s (layer %s) imports %s (layer %s): an import from a lower layer to a higher one", pkg, from.name, imp, to.name))
			}
		}
	}
	for _, l := range layers {
		for _, pkg := range l.packages {
			dir, tree := strings.CutSuffix(pkg, "/...")
			found := exists[dir]
			for e := range exists {
				found = found || tree && strings.HasPrefix(e, dir+"/")
			}
			if !found {
				out = append(out, fmt.Sprintf("%s is in the layer table but no such package exists", pkg))
			}
		}
	}
	out = append(out, cycles(graph)...)
	sort.Strings(out)
	return out
}

// cycles finds the import cycles of graph, each once, by depth-first
// search.
func cycles(graph map[string][]string) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var out []string
	var visit func(string)
	visit = func(pkg string) {
		state[pkg] = onPath
		path = append(path, pkg)
		for _, imp := range graph[pkg] {
			switch state[imp] {
			case onPath:
				loop := append(slices.Clone(path[slices.Index(path, imp):]), imp)
				out = append(out, "import cycle: "+strings.Join(loop, " → "))
			case unseen:
				visit(imp)
			}
		}
		path = path[:len(path)-1]
		state[pkg] = done
	}
	names := make([]string, 0, len(graph))
	for pkg := range graph {
		names = append(names, pkg)
	}
	sort.Strings(names)
	for _, pkg := range names {
		if state[pkg] == unseen {
			visit(pkg)
		}
	}
	return out
}
