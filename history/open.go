package history

// openOps maps a process to its outstanding invoke. Process ids are usually
// small and dense (one per worker), so they index a slice; others fall back
// to a map. This is a hot path: every operation line looks its process up.
type openOps struct {
	dense  []*Event
	sparse map[int]*Event
}

// denseLimit bounds the slice, so that one huge process id cannot make it
// allocate much.
const denseLimit = 1 << 16

func (o *openOps) get(process int) *Event {
	if process < denseLimit {
		if process < len(o.dense) {
			return o.dense[process]
		}
		return nil
	}
	return o.sparse[process]
}

func (o *openOps) set(process int, invoke *Event) {
	if process < denseLimit {
		if process >= len(o.dense) {
			o.dense = append(o.dense, make([]*Event, process+1-len(o.dense))...)
		}
		o.dense[process] = invoke
		return
	}
	if o.sparse == nil {
		o.sparse = map[int]*Event{}
	}
	o.sparse[process] = invoke
}

func (o *openOps) remove(process int) {
	if process < len(o.dense) {
		o.dense[process] = nil
	}
	delete(o.sparse, process)
}

// openSlots keeps one Event per process for a sink's outstanding invokes,
// so that reading to a sink stores no event beyond those. A completed
// operation's slot goes to a free list, emptied: runs give new process
// ids (after a crash, for each duplicate twin), and a slot kept per id that
// ever ran held its strings, and their arena blocks, for the whole read
// (30 MB of a 30 s bench's feed, growing with it).
type openSlots struct {
	dense  []*Event
	sparse map[int]*Event
	free   []*Event
}

func (o *openSlots) get(process int) *Event {
	if process >= 0 && process < denseLimit {
		for process >= len(o.dense) {
			o.dense = append(o.dense, nil)
		}
		if o.dense[process] == nil {
			o.dense[process] = o.spare()
		}
		return o.dense[process]
	}
	if o.sparse == nil {
		o.sparse = map[int]*Event{}
	}
	e := o.sparse[process]
	if e == nil {
		e = o.spare()
		o.sparse[process] = e
	}
	return e
}

func (o *openSlots) spare() *Event {
	if n := len(o.free); n > 0 {
		e := o.free[n-1]
		o.free = o.free[:n-1]
		return e
	}
	return new(Event)
}

// release lets go of process's Event and what it holds: the next get
// makes or reuses another.
func (o *openSlots) release(process int) {
	var e *Event
	if process >= 0 && process < len(o.dense) {
		e, o.dense[process] = o.dense[process], nil
	} else if e = o.sparse[process]; e != nil {
		delete(o.sparse, process)
	}
	if e != nil {
		*e = Event{}
		o.free = append(o.free, e)
	}
}
