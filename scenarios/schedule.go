package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
)

// scheduleFaults maps the timed faults' names in scenario files to the
// bench's, and says which keys each one takes besides fault and at.
var scheduleFaults = map[string]struct {
	kind string
	keys []string
}{
	"kafka_outage":   {target.KafkaOutage, []string{"for"}},
	"store_latency":  {target.StoreLatency, []string{"for", "latency"}},
	"store_stall":    {target.StoreStall, []string{"for"}},
	"delete_counter": {target.DeleteCounter, []string{"chat"}},
	// The http target's process nemesis (--serve, --nemesis-cmd).
	"kill_server": {target.KillServer, nil},
	// Store errors, ADR-004's core only.
	"store_throttle":       {target.StoreThrottle, []string{"for"}},
	"store_internal_error": {target.StoreInternalError, []string{"for"}},
	"txn_canceled_other":   {target.TxnCanceledOther, []string{"for"}},
	// A broken variant of ADR-004's core switched on for the window.
	"variant_on": {target.VariantOn, []string{"for", "variant"}},
	// The receivers' nemeses (receivers: N).
	"drop_connections": {target.DropConnections, []string{"for"}},
	"slow_receivers":   {target.SlowReceivers, []string{"for"}},
}

func scheduleFaultNames() []string {
	names := make([]string, 0, len(scheduleFaults))
	for n := range scheduleFaults {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// schedule reads the list of timed faults:
//
//	schedule:
//	  - {fault: kafka_outage, at: 500ms, for: 1s}
//	  - {fault: store_latency, at: 0s, for: 1s, latency: 20ms}
//	  - {fault: delete_counter, at: 100ms, chat: 0}
//	  - {fault: variant_on, at: 30s, for: 10m, variant: racy-counter}
func (d *decoder) schedule(p string, v *yaml.Node) {
	if !d.kind(v, yaml.SequenceNode, p, "a list of timed faults") {
		return
	}
	for i, it := range v.Content {
		path := fmt.Sprintf("%s[%d]", p, i)
		nodes := map[string]*yaml.Node{}
		keep := func(p string, v *yaml.Node) { nodes[p[strings.LastIndexByte(p, '.')+1:]] = v }
		d.mapping(it, path, map[string]field{"fault": keep, "at": keep, "for": keep, "latency": keep, "chat": keep, "variant": keep})
		if it.Kind != yaml.MappingNode {
			continue
		}
		fn, ok := nodes["fault"]
		if !ok {
			d.errorf(it, "%s: fault: missing (one of %s)", path, strings.Join(scheduleFaultNames(), ", "))
			continue
		}
		name, ok := d.enum(fn, path+".fault", scheduleFaultNames()...)
		if !ok {
			continue
		}
		spec := scheduleFaults[name]
		tf := target.TimedFault{Kind: spec.kind}
		valid := true
		for _, key := range []string{"for", "latency", "chat", "variant"} {
			if n, given := nodes[key]; given && !slices.Contains(spec.keys, key) {
				d.errorf(n, "%s.%s does not apply to %s (it takes at and %s)", path, key, name, strings.Join(spec.keys, ", "))
				valid = false
			}
		}
		for _, key := range append([]string{"at"}, spec.keys...) {
			n, given := nodes[key]
			if !given {
				d.errorf(it, "%s: %s needs %s:", path, name, key)
				valid = false
				continue
			}
			switch key {
			case "at":
				tf.At, ok = d.duration(n, path+".at")
			case "for":
				tf.For, ok = d.duration(n, path+".for")
				if ok && tf.For == 0 {
					d.errorf(n, "%s.for: a window must last longer than 0s", path)
					ok = false
				}
			case "latency":
				tf.Latency, ok = d.duration(n, path+".latency")
				if ok && tf.Latency == 0 {
					d.errorf(n, "%s.latency: must be longer than 0s", path)
					ok = false
				}
			case "variant":
				tf.Variant, ok = d.switchableVariant(n, path+".variant")
			case "chat":
				var c int64
				c, ok = d.integer(n, path+".chat", 0, bench.MaxChats-1)
				tf.Chat = int(c)
			}
			valid = valid && ok
		}
		if problem := tf.EndsBeyondClock(); valid && problem != "" {
			// bench refuses it too (TimedFault.OutlastsRun).
			d.errorf(nodes["for"], "%s: %s", path, problem)
			valid = false
		}
		if valid {
			d.sc.Schedule = append(d.sc.Schedule, tf)
			d.scheduleLines = append(d.scheduleLines, it.Line)
		}
	}
}

// switchableVariant reads a variant_on window's variant: one of ADR-004's
// core that can be switched on while a run goes.
func (d *decoder) switchableVariant(n *yaml.Node, p string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "%s: a variant's name", p)
		return "", false
	}
	v, ok := sequencer.ParseVariant(n.Value)
	if !ok || v == sequencer.Correct {
		d.errorf(n, "%s: %q is not a broken variant of ADR-004's core that a run can switch on (those that can: %s)", p, n.Value, sequencer.SwitchableNames())
		return "", false
	}
	if err := v.CheckSwitchable(); err != nil {
		d.errorf(n, "%s: %v", p, err)
		return "", false
	}
	return string(v), true
}
