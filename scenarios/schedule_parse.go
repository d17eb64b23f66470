package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chatseq/chatseq/target"
	"gopkg.in/yaml.v3"
)

// ParseScheduleArg reads `bench --schedule`'s argument: the path of a YAML
// file, or the schedule written inline. Either is in the scenario files'
// schedule language (docs/scenarios.md): a list of timed faults, one timed
// fault, or a mapping whose one key is schedule: (so a scenario file's
// schedule can be copied as it is). A path that exists is read as a file;
// anything else is YAML text, named "--schedule" in errors.
func ParseScheduleArg(arg string) ([]target.TimedFault, error) {
	info, statErr := os.Stat(arg)
	if statErr == nil && !info.IsDir() {
		if info.Size() > maxFileSize {
			return nil, Errors{{File: arg, Msg: fmt.Sprintf("%d bytes is too large for a schedule (at most %d)", info.Size(), maxFileSize)}}
		}
		data, err := os.ReadFile(arg)
		if err != nil {
			return nil, Errors{{File: arg, Msg: err.Error()}}
		}
		return ParseSchedule(data, arg)
	}
	if !strings.ContainsAny(arg, "{[:\n") {
		// No inline schedule is one word: a list or a mapping has
		// brackets or colons. This is a file's name, mistyped or gone.
		what := "no such file"
		if statErr == nil { // a directory: a file was read above
			what = "a directory"
		}
		return nil, Errors{{File: "--schedule", Msg: fmt.Sprintf("%q: %s, and not an inline schedule (a YAML file, or inline: '{fault: kafka_outage, at: 1s, for: 500ms}')", arg, what)}}
	}
	return ParseSchedule([]byte(arg), "--schedule")
}

// ParseSchedule decodes a schedule; source names it in errors, each of
// which carries its line. It never panics.
func ParseSchedule(data []byte, source string) (faults []target.TimedFault, err error) {
	defer func() {
		if r := recover(); r != nil {
			faults, err = nil, Errors{{File: source, Msg: fmt.Sprintf("cannot decode: %v", r)}}
		}
	}()
	if len(data) > maxFileSize {
		return nil, Errors{{File: source, Msg: fmt.Sprintf("%d bytes is too large for a schedule", len(data))}}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: source, Line: 1, Msg: "empty schedule: give timed faults, e.g. '{fault: kafka_outage, at: 1s, for: 500ms}'"}}
		}
		return nil, Errors{yamlError(source, data, err)}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, Errors{{File: source, Line: next.Line, Msg: "a second YAML document: a schedule is one list of timed faults"}}
	case !errors.Is(err, io.EOF):
		return nil, Errors{yamlError(source, data, err)}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	d := &decoder{file: source, sc: &Scenario{}, lines: map[string]int{}}
	switch {
	case root.Kind == yaml.MappingNode && isScheduleKey(root):
		d.mapping(root, "", map[string]field{"schedule": d.schedule})
	case root.Kind == yaml.MappingNode && scenarioKeys(root) != "":
		return nil, Errors{{File: source, Line: root.Line, Msg: fmt.Sprintf("a whole scenario (it has %s), not a schedule: run it with `chatseq run %s`, or give --schedule its schedule alone (a list of timed faults, or a file whose only key is schedule:)", scenarioKeys(root), source)}}
	case root.Kind == yaml.MappingNode:
		// One timed fault on its own.
		d.schedule("schedule", &yaml.Node{Kind: yaml.SequenceNode, Line: root.Line, Column: root.Column, Content: []*yaml.Node{root}})
	default:
		d.schedule("schedule", root)
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	if len(d.sc.Schedule) == 0 {
		return nil, Errors{{File: source, Line: root.Line, Msg: "the schedule lists no timed fault"}}
	}
	return d.sc.Schedule, nil
}

// isScheduleKey reports whether the mapping's first key is schedule:.
func isScheduleKey(n *yaml.Node) bool {
	return len(n.Content) >= 2 && n.Content[0].Kind == yaml.ScalarNode && n.Content[0].Value == "schedule"
}

// scenarioKeys names the keys of mapping n that only a scenario has
// ("name:, expect:"), "" when it has none: a scenario file given to
// --schedule was read as one timed fault with a dozen unknown keys.
func scenarioKeys(n *yaml.Node) string {
	var found []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "name", "expect", "schedule", "target", "writers":
			found = append(found, k+":")
		}
	}
	return strings.Join(found, ", ")
}
