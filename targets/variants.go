package targets

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/sequencer"
)

// Variant is a deliberate departure from a target's design, of one of two
// kinds. A bug names the invariant that must catch it (CaughtBy) and is
// selected with --broken (a scenario's broken:). A design is an
// alternative that keeps a promise the design as written breaks: it names
// no invariant and is selected with --variant (variant:). Design is the
// one place that tells them apart.
type Variant struct {
	Name        string
	Description string
	CaughtBy    string
	// Receivers, for a bug of the delivery plane, is how many receiving
	// members per chat (bench --receivers) the run needs for it to show;
	// 0: none.
	Receivers int
}

// Design reports whether v is a design that keeps a promise, not a bug.
func (v Variant) Design() bool { return v.CaughtBy == "" }

// The two spellings of a variant: on the command line and in scenarios.
var (
	FlagSpelling     = Spelling{Broken: "--broken", Variant: "--variant", Sep: " "}
	ScenarioSpelling = Spelling{Broken: "broken", Variant: "variant", Sep: ": "}
)

// Spelling is how a variant is selected: "--broken NAME" or "broken: NAME".
type Spelling struct{ Broken, Variant, Sep string }

func (s Spelling) of(design bool, name string) string {
	if design {
		return s.Variant + s.Sep + name
	}
	return s.Broken + s.Sep + name
}

// SelectVariant reads a variant selected as broken or as variant (at most
// one of them) for target and returns its name, "" for the design as
// written ("", "none" or "correct"). A bug under variant is an error; a
// design under broken is the old spelling: it still selects the design,
// and note says how to spell it now.
func SelectVariant(target, broken, variant string, sp Spelling) (name, note string, err error) {
	asDesign := variant != ""
	name = broken
	if asDesign {
		name = variant
	}
	switch {
	case broken != "" && variant != "":
		return "", "", fmt.Errorf("give %s or %s, not both", sp.Broken, sp.Variant)
	case name == "" || name == "none" || name == "correct":
		return "", "", nil
	}
	i := slices.IndexFunc(variants[target], func(v Variant) bool { return v.Name == name })
	if i < 0 {
		return "", "", fmt.Errorf("%s: target %s has no variant %q (%s)", sp.of(asDesign, name), target, name, knownList(target, sp))
	}
	design := variants[target][i].Design()
	switch {
	case design && !asDesign:
		note = fmt.Sprintf("%s: %s is not broken but a design that keeps a promise; %s says so (%s still runs it)", sp.of(false, name), name, sp.of(true, name), sp.Broken)
	case !design && asDesign:
		return "", "", fmt.Errorf("%s: %s is a bug (%s must catch it), not a design; select it with %s", sp.of(true, name), name, variants[target][i].CaughtBy, sp.of(false, name))
	}
	return name, note, nil
}

// knownList names target's variants by how each is selected.
func knownList(target string, sp Spelling) string {
	var parts []string
	if names := BrokenNames(target); len(names) > 0 {
		parts = append(parts, "with "+sp.Broken+": "+strings.Join(names, ", "))
	}
	if names := DesignNames(target); len(names) > 0 {
		parts = append(parts, "with "+sp.Variant+": "+strings.Join(names, ", "))
	}
	if len(parts) == 0 {
		return "it has none"
	}
	return strings.Join(parts, "; ")
}

// BrokenNames lists target's bugs; DesignNames its designs.
func BrokenNames(target string) []string { return namesOf(target, false) }

// DesignNames lists target's designs that keep a promise.
func DesignNames(target string) []string { return namesOf(target, true) }

func namesOf(target string, design bool) []string {
	var names []string
	for _, v := range variants[target] {
		if v.Design() == design {
			names = append(names, v.Name)
		}
	}
	return names
}

var variants = map[string][]Variant{}

// RegisterVariants lists a target's variants (selected with --broken or
// --variant, a scenario's broken: or variant:).
func RegisterVariants(target string, vs []Variant) { variants[target] = vs }

// Variants returns a target's variants.
func Variants(target string) []Variant { return variants[target] }

// VariantKnown reports whether name is one of target's variants.
func VariantKnown(target, name string) bool {
	return slices.ContainsFunc(variants[target], func(v Variant) bool { return v.Name == name })
}

// VariantNames lists a target's variant names.
func VariantNames(target string) []string {
	var names []string
	for _, v := range variants[target] {
		names = append(names, v.Name)
	}
	return names
}

// AllVariantNames lists every registered target's variant names, sorted.
func AllVariantNames() []string {
	var names []string
	for _, vs := range variants {
		for _, v := range vs {
			if !slices.Contains(names, v.Name) {
				names = append(names, v.Name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// adr004Variants are the core's broken behaviours and its alternatives.
func adr004Variants() []Variant {
	var out []Variant
	for _, b := range slices.Concat(sequencer.BrokenVariants, sequencer.Alternatives) {
		out = append(out, Variant{Name: string(b.Variant), Description: b.Description, CaughtBy: b.CaughtBy})
	}
	return append(out, gatewayVariants()...)
}

// gatewayVariants are the in-process push gateway's broken behaviours
// (bench --receivers), which every target whose push channel is bench's
// own can run.
func gatewayVariants() []Variant {
	var out []Variant
	for _, b := range gateway.BrokenVariants {
		out = append(out, Variant{Name: string(b.Variant), Description: b.Description, CaughtBy: b.CaughtBy, Receivers: b.Receivers})
	}
	return out
}

// ParseVariant checks a --broken name against target's registered
// variants: "", "none" and "correct" mean the design as written ("").
func ParseVariant(target, name string) (string, error) {
	switch {
	case name == "" || name == "none" || name == "correct":
		return "", nil
	case VariantKnown(target, name):
		return name, nil
	}
	return "", fmt.Errorf("target %s has no variant %q (known: %s)", target, name, strings.Join(VariantNames(target), ", "))
}
