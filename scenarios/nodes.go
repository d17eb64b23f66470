package scenarios

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// decoder walks a scenario's YAML nodes. Each problem is recorded with the
// line of the node it concerns, and decoding goes on, so one pass reports
// every problem in the file.
type decoder struct {
	file  string
	sc    *Scenario
	errs  Errors
	lines map[string]int // line of each key given, by dotted path ("faults.stale_read")
	// scheduleLines[i] is the line of the i-th schedule entry.
	scheduleLines []int
	// variantKeys are the keys that named a variant: broken, variant.
	variantKeys []string
}

// maxErrors bounds the report for a file that is not a scenario at all.
const maxErrors = 20

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.errAt(line, format, args...)
}

func (d *decoder) errAt(line int, format string, args ...any) {
	if len(d.errs) < maxErrors {
		d.errs = append(d.errs, &Error{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// field decodes the value of one key; path is its dotted name for messages.
type field func(path string, v *yaml.Node)

// mapping decodes n as a mapping whose keys must be among fields. An
// unknown key is an error naming the closest known key; a repeated key is
// an error too (YAML leaves it to the reader; a silent last-wins would hide
// a mistake).
func (d *decoder) mapping(n *yaml.Node, prefix string, fields map[string]field) {
	if !d.kind(n, yaml.MappingNode, prefix, "a mapping of keys") {
		return
	}
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "%skeys must be plain names, not a %s", where(prefix), kindName(k))
			continue
		}
		path := join(prefix, k.Value)
		f, ok := fields[k.Value]
		if !ok {
			d.errorf(k, "unknown key %q%s", path, suggestOrList(k.Value, known))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.errorf(k, "%s is given twice (first at line %d)", path, first)
			continue
		}
		seen[k.Value] = k.Line
		d.lines[path] = k.Line
		f(path, v)
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func where(prefix string) string {
	if prefix == "" {
		return ""
	}
	return prefix + ": "
}

// suggestOrList names the closest candidate, or all of them when none is
// close: a hint, not a wall of text.
func suggestOrList(s string, candidates []string) string {
	if c := closest(s, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return "; known: " + strings.Join(candidates, ", ")
}

// kind checks n's kind, reporting aliases and nulls clearly.
func (d *decoder) kind(n *yaml.Node, want yaml.Kind, path, wantName string) bool {
	switch {
	case n.Kind == yaml.AliasNode:
		d.errorf(n, "%s: anchors and aliases (*%s) are not supported in scenario files; write the value out", path, n.Value)
		return false
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		d.errorf(n, "%s: missing value (want %s)", path, wantName)
		return false
	case n.Kind != want:
		d.errorf(n, "%s: want %s, got a %s", path, wantName, kindName(n))
		return false
	}
	return true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return fmt.Sprintf("value %q", short(n.Value))
}

// short keeps a quoted value in a message readable.
func short(s string) string {
	const limit = 40
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

func (d *decoder) scalar(n *yaml.Node, path, wantName string) (string, bool) {
	if !d.kind(n, yaml.ScalarNode, path, wantName) {
		return "", false
	}
	return n.Value, true
}

func (d *decoder) str(n *yaml.Node, path string) (string, bool) {
	return d.scalar(n, path, "a string")
}

// enum accepts one of allowed, naming the closest on a mistake.
func (d *decoder) enum(n *yaml.Node, path string, allowed ...string) (string, bool) {
	s, ok := d.scalar(n, path, "one of "+strings.Join(allowed, ", "))
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	d.errorf(n, "%s: %q is not one of %s%s", path, short(s), strings.Join(allowed, ", "), didYouMean(s, allowed))
	return "", false
}

// integer accepts a whole number in [lo, hi].
func (d *decoder) integer(n *yaml.Node, path string, lo, hi int64) (int64, bool) {
	s, ok := d.scalar(n, path, "a whole number")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		d.errorf(n, "%s: %q is not a whole number", path, short(s))
		return 0, false
	}
	if v < lo || v > hi {
		d.errorf(n, "%s: %d is out of range [%d, %d]", path, v, lo, hi)
		return 0, false
	}
	return v, true
}

// number accepts a finite decimal number.
func (d *decoder) number(n *yaml.Node, path string) (float64, bool) {
	s, ok := d.scalar(n, path, "a number")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		d.errorf(n, "%s: %q is not a number", path, short(s))
		return 0, false
	}
	return v, true
}

// probability accepts 0..1 or a percentage ("5%").
func (d *decoder) probability(n *yaml.Node, path string) (float64, bool) {
	s, ok := d.scalar(n, path, "a probability")
	if !ok {
		return 0, false
	}
	scale := 1.0
	if p, pct := strings.CutSuffix(s, "%"); pct {
		s, scale = strings.TrimSpace(p), 100
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v <= scale) {
		d.errorf(n, "%s: %q is not a probability: write a fraction between 0 and 1 (0.05) or a percentage (5%%)", path, short(n.Value))
		return 0, false
	}
	return v / scale, true
}

// duration accepts a Go duration with a unit ("500ms", "2s"); a bare
// number is refused, since its unit would be a guess.
func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, bool) {
	s, ok := d.scalar(n, path, "a duration")
	if !ok {
		return 0, false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && s != "0" {
		d.errorf(n, "%s: %q needs a unit, e.g. %sms or %ss", path, short(s), s, s)
		return 0, false
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.errorf(n, "%s: %q is not a duration (e.g. 500ms, 2s, 1m30s)", path, short(s))
		return 0, false
	}
	if v < 0 {
		d.errorf(n, "%s: %s is negative", path, s)
		return 0, false
	}
	return v, true
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	s, ok := d.scalar(n, path, "true or false")
	if !ok {
		return false, false
	}
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	d.errorf(n, "%s: %q is not true or false", path, short(s))
	return false, false
}

// list returns the items of a list; a single value is a list of one.
func (d *decoder) list(n *yaml.Node, path string) ([]*yaml.Node, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []*yaml.Node{n}, true
	}
	if !d.kind(n, yaml.SequenceNode, path, "a list") {
		return nil, false
	}
	return n.Content, true
}
