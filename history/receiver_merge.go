package history

import "fmt"

// disjointDevices rejects two files of a merged history that name the
// same device: a device's lines are judged together (its user, its
// connection, its settle), and each shard runs receivers of its own.
func disjointDevices(parts []*History) error {
	type at struct{ file, line int }
	owner := map[string]at{}
	for i, h := range parts {
		for k := range h.Receivers {
			rv := &h.Receivers[k]
			if !namesDevice(rv.Kind) {
				continue // "" there is no device's name
			}
			first, seen := owner[rv.Device]
			if !seen {
				owner[rv.Device] = at{i, rv.Line}
				continue
			}
			if first.file != i {
				return fmt.Errorf("device %q is in both %s (line %d) and %s (line %d): histories checked as one run must have disjoint receivers",
					rv.Device, parts[first.file].File, first.line, h.File, rv.Line)
			}
		}
	}
	return nil
}

// namesDevice and namesChat report whether a receiver line of kind k
// must name a device, or a chat (FORMAT.md, "Receivers"): its "" is then a
// name like any other.
func namesDevice(k Kind) bool {
	return k == KindConnect || k == KindDisconnect || k == KindPush || k == KindDeliveryAck || k == KindSettled
}

func namesChat(k Kind) bool {
	return k == KindPush || k == KindDeliveryAck || k == KindJoin || k == KindLeave || k == KindStateRead || k == KindFinal
}

// withReceiverTimes widens a file's ranges by its receiver lines' times,
// so that merging shifts them with its events, and reports whether the
// file has any timed line at all.
func withReceiverTimes(r ranges, h *History) (ranges, bool) {
	timed := len(h.Events) > 0
	for i := range h.Receivers {
		rv := &h.Receivers[i]
		if rv.Kind == KindFinal {
			continue
		}
		if !timed {
			r.minTime, r.maxTime, timed = rv.Time, rv.Time, true
			continue
		}
		r.minTime, r.maxTime = min(r.minTime, rv.Time), max(r.maxTime, rv.Time)
	}
	return r, timed
}
