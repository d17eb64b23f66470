package targets

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/chatseq/chatseq/sequencer"
)

// Variant is a deliberate departure from a target's design: broken ones
// name the invariant that must catch them; a correct alternative names none.
type Variant struct {
	Name        string
	Description string
	CaughtBy    string
}

var variants = map[string][]Variant{}

// RegisterVariants lists a target's variants (selected with --broken or a
// scenario's broken:).
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
