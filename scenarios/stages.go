package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/chatseq/chatseq/bench"
)

// stages reads stages:, a ramping arrival rate as k6 writes it:
//
//	stages:
//	  - {duration: 10s, target: 100}
//	  - {duration: 30s, target: 2000}
//
// Each stage ramps the open loop's rate linearly from the one before's
// target (0 before the first) to its own; finish checks them whole.
func (d *decoder) stages(p string, v *yaml.Node) {
	if !d.kind(v, yaml.SequenceNode, p, "a list of stages, {duration: 30s, target: 2000}") {
		return
	}
	if len(v.Content) == 0 {
		d.errorf(v, "%s: give at least one stage, {duration: 30s, target: 2000}", p)
		return
	}
	var stages []bench.Stage
	valid := true
	for i, it := range v.Content {
		path := fmt.Sprintf("%s[%d]", p, i)
		var st bench.Stage
		given, present := map[string]bool{}, map[string]bool{}
		d.mapping(it, path, map[string]field{
			"duration": func(p string, n *yaml.Node) {
				present["duration"] = true
				if x, ok := d.duration(n, p); ok {
					if x == 0 {
						d.errorf(n, "%s: a stage must last longer than 0s", p)
						return
					}
					st.Duration, given["duration"] = x, true
				}
			},
			"target": func(p string, n *yaml.Node) {
				present["target"] = true
				if x, ok := d.number(n, p); ok {
					if x < 0 {
						d.errorf(n, "%s: %g must not be negative (operations per second)", p, x)
						return
					}
					st.Target, given["target"] = x, true
				}
			},
		})
		if it.Kind != yaml.MappingNode {
			valid = false
			continue
		}
		for _, key := range []string{"duration", "target"} {
			if !present[key] {
				d.errorf(it, "%s: %s: missing (a stage is {duration: 30s, target: 2000})", path, key)
			}
			valid = valid && given[key]
		}
		stages = append(stages, st)
	}
	if valid {
		d.sc.Stages = stages
	}
}
