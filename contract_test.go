package chatseq_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// contractWordsElsewhere are the string literals outside history/ that
// spell a contract field's name and do not mean the field: another thing
// that shares the word. Keyed by file, top-level declaration and literal;
// each says what it is.
// A literal naming the field itself reads history's constant instead
// (history.FieldGaps, …) or the row's column (ModelReads, MappingStates).
var contractWordsElsewhere = map[string]string{
	"checker/key_reuse.go NameKeyReuse " + `"key_reuse"`:                              "the invariant's name, as the report lists it",
	"checker/event_order.go NameEventOrder " + `"event_order"`:                        "the invariant's name, as the report lists it",
	"targets/postgres/open.go Claims " + `"event_order"`:                              "the invariant's name (checker.NameEventOrder) keying a claim (history.ClaimsField)",
	"scenarios/metrics.go NewMetrics " + `"gaps"`:                                     "a scenario metric: allocated sequences holding no message",
	"scenarios/metrics.go NewMetrics " + `"events"`:                                   "a scenario metric: records read back from Kafka",
	"scenarios/metrics.go Metrics.Value " + `"gaps"`:                                  "the gaps metric, for gap_rate",
	"scenarios/thresholds.go countMetrics " + `"gaps"`:                                "the gaps metric's description",
	"scenarios/thresholds.go countMetrics " + `"events"`:                              "the events metric's description",
	"report/page.go newChartData " + `"gaps"`:                                         "report.html's gaps-per-second series",
	"internal/receiveredit/receiveredit.go isStreamed " + `"catch_up"`:                "a push line's catch_up field (history FORMAT.md, Receivers), read as JSON",
	"internal/receiveredit/receiveredit.go PushToANonMember " + `"catch_up"`:          "a push line's catch_up field, set on the mutated push",
	"internal/receiveredit/receiveredit.go HoldBackOnALiveConnection " + `"catch_up"`: "a push line's catch_up field, set on the push held back from the stream",
	"internal/histgen/encode.go gen.header " + strconv.Quote(`{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed","key_reuse":"return-original"}`): "the generator's header, written by hand: histgen sits below history (docs/architecture.md) and cannot import its constants; its tests read its files through history",
}

// TestContractOneTable keeps history.ContractFields the only place the
// contract's fields are spelled: a non-test Go file outside history/ that
// holds a field's name as a string literal (the name itself, or the name
// as a JSON key inside a literal) fails, unless contractWordsElsewhere
// explains it. A field-by-field copy of the table (a list of the fields
// some code reads, a switch on their names) is what it catches.
func TestContractOneTable(t *testing.T) {
	names := make([]string, len(history.ContractFields))
	for i, f := range history.ContractFields {
		names[i] = f.Name
	}
	used := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "history" || path == "testdata" || strings.HasSuffix(path, "/testdata") || (path != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for name, node := range declarations(file) {
			where := filepath.ToSlash(path) + " " + name
			ast.Inspect(node, func(n ast.Node) bool {
				if f, ok := n.(*ast.Field); ok && f.Tag != nil {
					// A struct tag names a JSON key of the struct's own:
					// look at the field's type only.
					ast.Inspect(f.Type, func(n ast.Node) bool { return visitLit(t, fset, n, where, names, used) })
					return false
				}
				return visitLit(t, fset, n, where, names, used)
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for k := range contractWordsElsewhere {
		if !used[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, k := range stale {
		t.Errorf("contractWordsElsewhere lists %s, which no file holds any more: drop it", k)
	}
}

// declarations yields a file's top-level declarations, each named as
// contractWordsElsewhere names it: a function by its name, a method by
// its type's and its own (T.m), a const, var or type spec by its first
// name.
func declarations(file *ast.File) iter.Seq2[string, ast.Node] {
	return func(yield func(string, ast.Node) bool) {
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					typ := d.Recv.List[0].Type
					if star, ok := typ.(*ast.StarExpr); ok {
						typ = star.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				if !yield(name, d) {
					return
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					name := "_"
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						name = spec.Names[0].Name
					case *ast.TypeSpec:
						name = spec.Name.Name
					}
					if !yield(name, spec) {
						return
					}
				}
			}
		}
	}
}

// visitLit reports a string literal n that spells a contract field, unless
// contractWordsElsewhere explains it (which it then marks used); where is
// the file and declaration holding it.
func visitLit(t *testing.T, fset *token.FileSet, n ast.Node, where string, names []string, used map[string]bool) bool {
	lit, ok := n.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return true
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return true
	}
	for _, name := range names {
		if s != name && !strings.Contains(s, strconv.Quote(name)+":") {
			continue
		}
		key := where + " " + strconv.Quote(s)
		if _, ok := contractWordsElsewhere[key]; ok {
			used[key] = true
			return true
		}
		t.Errorf("%s: %s spells contract field %s: name it by history's constant or a column of history.ContractFields (or, if it means another thing, give contractWordsElsewhere[%q] saying what)", fset.Position(lit.Pos()), lit.Value, name, key)
		return true
	}
	return true
}
