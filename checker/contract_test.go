package checker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// Every contract field: unstated, the checker applies its default (with
// events lines, DefaultWithEvents); stated in the header, it stands; a
// flag (Options.Contract) overrides the header; the text report names it.
func TestResolveContractEveryField(t *testing.T) {
	for _, f := range history.ContractFields {
		for _, hasEvents := range []bool{false, true} {
			c, _ := resolveContract(history.Contract{}, nil, hasEvents)
			want := f.Default
			if hasEvents && f.DefaultWithEvents != "" {
				want = f.DefaultWithEvents
			}
			if got := *f.Of(&c); got != want {
				t.Errorf("%s unstated (events lines %v): %q, want %q", f.Name, hasEvents, got, want)
			}
		}
		var header, flags history.Contract
		*f.Of(&header) = f.Values[1].Name
		if c, _ := resolveContract(header, nil, false); *f.Of(&c) != f.Values[1].Name {
			t.Errorf("%s stated in the header: %q", f.Name, *f.Of(&c))
		}
		*f.Of(&flags) = f.Values[0].Name
		c, _ := resolveContract(header, &flags, false)
		if *f.Of(&c) != f.Values[0].Name {
			t.Errorf("%s overridden by a flag: %q", f.Name, *f.Of(&c))
		}
		var b bytes.Buffer
		if err := WriteText(&b, Report{Contract: c}); err != nil {
			t.Fatal(err)
		}
		if want := " " + f.Name + "=" + f.Values[0].Name; !strings.Contains(strings.SplitN(b.String(), "\n", 3)[1], want) {
			t.Errorf("text report's contract line lacks %q:\n%s", want, b.String())
		}
	}
}

// A value no row allows makes linearizability's contract problem for
// every field the model reads, and none for another field.
func TestContractProblemNamesEveryModelField(t *testing.T) {
	model := 0
	for i := range history.ContractFields {
		f := &history.ContractFields[i]
		name := f.Name
		c, _ := resolveContract(history.Contract{}, nil, false)
		if !f.ModelReads {
			*f.Of(&c) = "bogus"
			if p := c.ModelProblem(); p != "" {
				t.Errorf("%s, which the model does not read, bogus: problem %q", name, p)
			}
			continue
		}
		model++
		if p := c.ModelProblem(); p != "" {
			t.Fatalf("the defaults are a problem: %s", p)
		}
		*f.Of(&c) = "bogus"
		if p := c.ModelProblem(); !strings.HasPrefix(p, name+` "bogus" is neither `+f.Choices(true, "nor")) {
			t.Errorf("%s bogus: problem %q", name, p)
		}
	}
	if model == 0 {
		t.Error("no history.ContractFields row is marked ModelReads")
	}
}
