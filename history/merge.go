package history

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// Source is one file of a merged history: its merged line numbers are
// First .. First+Lines-1 (its own line n is merged line First+n-1).
type Source struct {
	File  string
	First int
	Lines int
	// ProcessOffset was added to every process id of the file.
	ProcessOffset int
}

// Merged is the histories of several processes of one run (shards, each
// driving its own chats) read as one history.
type Merged struct {
	*History
	Sources []Source
}

// Locate maps a merged line number back to its file and line there.
func (m *Merged) Locate(line int) (file string, fileLine int) {
	i := sort.Search(len(m.Sources), func(i int) bool { return m.Sources[i].First+m.Sources[i].Lines > line })
	if i == len(m.Sources) || line < 1 {
		return "", line
	}
	return m.Sources[i].File, line - m.Sources[i].First + 1
}

// ReadFiles reads the histories at paths and merges them into one run.
//
// That is sound because every invariant is judged per chat, and shards
// never share a chat — so two files that do are rejected. Events from
// different machines are not interleaved by time (their clocks are
// unrelated): each file's events keep their order and follow the previous
// file's, and each file's times are shifted by one constant so the merged
// history stays in time order. Process ids are offset per file so they
// never collide, and line numbers run on across files (Locate maps them
// back). The files must state the same contract (field by field, a
// field left out differing from one stated), initial_counter and
// sole_writer, and read the same final tables (but for a file cut short);
// other header fields are kept where they agree. A file that promised an
// end line and lacks it makes the merged history cut short (its End is 0
// and its header promises one); otherwise End is the last file's end line
// that exists. A table counts as read (a table_read line) only when every
// file read it; one cut short in any file stays cut short.
func ReadFiles(paths []string) (*Merged, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no history files given")
	}
	parts := make([]*History, len(paths))
	for i, p := range paths {
		h, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		parts[i] = h
	}
	if len(parts) == 1 {
		// Nothing to merge: copying the events would double the memory
		// the largest histories need.
		h := parts[0]
		return &Merged{History: h, Sources: []Source{{File: h.File, First: 1, Lines: extent(h)}}}, nil
	}
	if err := disjointChats(parts); err != nil {
		return nil, err
	}
	if err := sameFinalTables(parts); err != nil {
		return nil, err
	}
	header, err := mergeHeaders(parts)
	if err != nil {
		return nil, err
	}
	return mergeBodies(parts, header)
}

// disjointChats rejects two files that write or hold the same chat. A
// chat is claimed by every line that must name one (an invoke, a trace, a
// final line, a receiver line of a chat), whatever its name, "" too: a
// completion may leave its invoke's chat out, so its "" says nothing.
func disjointChats(parts []*History) error {
	owner := map[string]int{} // chat -> index of the first file naming it
	where := map[string]int{} // chat -> a line naming it there
	for i, h := range parts {
		claim := func(chat string, line int) error {
			j, seen := owner[chat]
			if !seen {
				owner[chat], where[chat] = i, line
				return nil
			}
			if j != i {
				return fmt.Errorf("chat %q is in both %s (line %d) and %s (line %d): histories checked as one run must drive disjoint chats (chatseq bench --shard i/N)",
					chat, parts[j].File, where[chat], h.File, line)
			}
			return nil
		}
		for k := range h.Events {
			if e := &h.Events[k]; e.Kind == KindInvoke || e.Kind == KindTrace {
				if err := claim(e.Chat, e.Line); err != nil {
					return err
				}
			}
		}
		for k := range h.Finals {
			if err := claim(h.Finals[k].Chat, h.Finals[k].Line); err != nil {
				return err
			}
		}
		for k := range h.Receivers {
			if rv := &h.Receivers[k]; namesChat(rv.Kind) {
				if err := claim(rv.Chat, rv.Line); err != nil {
					return err
				}
			}
		}
	}
	return disjointDevices(parts)
}

// sameFinalTables refuses files that did not read the same final tables
// (a table_read line or final lines of it): the merged history holds one
// final state, so a table one file read judged the chats of another that
// read none, as if that table held nothing of them.
func sameFinalTables(parts []*History) error {
	held := func(h *History) map[string]int {
		tables := map[string]int{} // table -> a line showing it read
		note := func(table string, line int) {
			if _, ok := tables[table]; !ok {
				tables[table] = line
			}
		}
		for _, t := range h.TablesRead {
			note(t.Table, t.Line)
		}
		for k := range h.Finals {
			note(h.Finals[k].Table, h.Finals[k].Line)
		}
		for k := range h.Receivers {
			if h.Receivers[k].Kind == KindFinal {
				note(TableDeliveryState, h.Receivers[k].Line)
			}
		}
		return tables
	}
	// A file cut short (its promised end line missing) holds no final
	// state that counts: the merged history is cut short, and unknown.
	var whole []*History
	for _, h := range parts {
		if !h.CutShort() {
			whole = append(whole, h)
		}
	}
	if len(whole) < 2 {
		return nil
	}
	first := held(whole[0])
	for _, h := range whole[1:] {
		other := held(h)
		for _, pair := range [][2]struct {
			h      *History
			tables map[string]int
		}{{{whole[0], first}, {h, other}}, {{h, other}, {whole[0], first}}} {
			a, b := pair[0], pair[1]
			for _, table := range slices.Sorted(maps.Keys(a.tables)) {
				if _, ok := b.tables[table]; !ok {
					return fmt.Errorf("%s read the final %s table (line %d) and %s did not: the files of one run read the same final state",
						a.h.File, table, a.tables[table], b.h.File)
				}
			}
		}
	}
	return nil
}

// mergeHeaders combines the files' headers, refusing what would make
// them different runs.
func mergeHeaders(parts []*History) (Header, error) {
	out := parts[0].Header
	out.Extra = map[string]string{}
	for i, h := range parts[1:] {
		a, b := parts[0], parts[i+1]
		c, err := out.Contract.agree(h.Header.Contract)
		if err != nil {
			return Header{}, fmt.Errorf("%s and %s state different contracts (%v): they are not one run", a.File, b.File, err)
		}
		out.Contract = c
		if out.Seed != h.Header.Seed || out.HasSeed != h.Header.HasSeed {
			out.Seed, out.HasSeed = 0, false
		}
		out.Target = joinDistinct(out.Target, h.Header.Target)
		out.Scenario = joinDistinct(out.Scenario, h.Header.Scenario)
		// One file's promise binds the merged history: mergeBodies keeps
		// the end only if every file that promised one has it.
		out.EndLine = out.EndLine || h.Header.EndLine
	}
	// Some extensions decide what the checker reads the whole run as
	// (initial_counter: which sequences predate it), so the files must
	// agree on them.
	for _, x := range HeaderExtensions {
		if !x.ShardsAgree {
			continue
		}
		first, firstHas := parts[0].Header.Extra[x.Name]
		for _, h := range parts[1:] {
			if v, has := h.Header.Extra[x.Name]; has != firstHas || v != first {
				return Header{}, fmt.Errorf("%s and %s have different %s (%s vs %s): they are not one run", parts[0].File, h.File, x.Name, statedOrNot(first), statedOrNot(v))
			}
		}
	}
	for k, v := range parts[0].Header.Extra {
		agree := true
		for _, h := range parts[1:] {
			if w, ok := h.Header.Extra[k]; !ok || w != v {
				agree = false
			}
		}
		if agree {
			out.Extra[k] = v
		}
	}
	return out, nil
}

func joinDistinct(a, b string) string {
	if a == b || b == "" {
		return a
	}
	if a == "" {
		return b
	}
	for _, part := range strings.Split(a, ",") {
		if part == b {
			return a
		}
	}
	return a + "," + b
}

// mergeBodies concatenates the files' events and finals, renumbering
// lines, offsetting process ids and shifting times.
func mergeBodies(parts []*History, header Header) (*Merged, error) {
	nEvents, nFinals, nReceivers := 0, 0, 0
	files := make([]string, len(parts))
	for i, h := range parts {
		nReceivers += len(h.Receivers)
		nEvents += len(h.Events)
		nFinals += len(h.Finals)
		files[i] = h.File
	}
	m := &Merged{History: &History{
		File: strings.Join(files, ","), Header: header,
		Events: make([]Event, 0, nEvents), Finals: make([]Final, 0, nFinals),
	}}
	if nReceivers > 0 {
		m.Receivers = make([]Receiver, 0, nReceivers)
	}
	m.TablesRead = mergeTablesRead(parts)
	lineOffset, nextProc := 0, 0
	var finalRows []Receiver // the delivery_state rows, kept for the end
	var lastTime int64
	cut := false // a file promised an end line and lacks it
	for i, h := range parts {
		if h.CutShort() {
			cut = true
		}
		if h.CutMidLine > 0 && m.CutMidLine == 0 {
			m.CutMidLine = lineOffset + h.CutMidLine
		}
		if h.End > 0 && !cut {
			m.End = lineOffset + h.End
		}
		span := extent(h)
		r := eventRanges(h)
		r, timed := withReceiverTimes(r, h)
		// Process ids of this file start after every id so far; the first
		// file keeps its own.
		procOffset, shift := 0, int64(0)
		if timed {
			var err error
			if procOffset, shift, err = placeAfter(r, i == 0, nextProc, lastTime); err != nil {
				return nil, fmt.Errorf("%s: %w", h.File, err)
			}
		}
		for _, e := range h.Events {
			e.Line += lineOffset
			e.Process += procOffset
			e.Time += shift
			if e.HasStart {
				e.Start += shift
			}
			lastTime = max(lastTime, e.Time)
			m.Events = append(m.Events, e)
		}
		for _, f := range h.Finals {
			f.Line += lineOffset
			m.Finals = append(m.Finals, f)
		}
		for _, rv := range h.Receivers {
			rv.Line += lineOffset
			if rv.Kind == KindFinal {
				// After every file's receiver lines, as in one file: the
				// final state comes last.
				finalRows = append(finalRows, rv)
				continue
			}
			rv.Time += shift
			lastTime = max(lastTime, rv.Time)
			m.Receivers = append(m.Receivers, rv)
		}
		for _, w := range h.Warnings {
			w.Line += lineOffset
			m.Warnings = append(m.Warnings, w)
		}
		m.Sources = append(m.Sources, Source{File: h.File, First: lineOffset + 1, Lines: span, ProcessOffset: procOffset})
		parts[i] = nil // copied: the collector may take it while the next is
		lineOffset += span
		if len(h.Events) > 0 {
			nextProc = max(nextProc, r.maxProc+procOffset+1)
		}
	}
	m.Receivers = append(m.Receivers, finalRows...)
	if cut {
		m.End = 0 // the merged history is cut short where that file was
	}
	return m, nil
}

// mergeTablesRead keeps a table's table_read lines (renumbered) only when
// every file read that table: a file that did not read it holds none of
// its chats' lines, and "read and empty" over all files would call them
// lost. A table cut short in one file stays cut short in the whole.
func mergeTablesRead(parts []*History) []TableRead {
	readBy := map[string]int{}
	for _, h := range parts {
		for _, t := range h.TablesRead {
			readBy[t.Table]++
		}
	}
	var out []TableRead
	lineOffset := 0 // as mergeBodies numbers the lines
	for _, h := range parts {
		for _, t := range h.TablesRead {
			if readBy[t.Table] == len(parts) || t.Short() {
				t.Line += lineOffset
				out = append(out, t)
			}
		}
		lineOffset += extent(h)
	}
	return out
}

// ranges are the extremes of a file's events: process ids, and times with
// allocation starts.
type ranges struct {
	minProc, maxProc int
	minTime, maxTime int64
}

func eventRanges(h *History) ranges {
	var r ranges
	for i := range h.Events {
		e := &h.Events[i]
		if i == 0 {
			r = ranges{e.Process, e.Process, e.Time, e.Time}
		}
		r.minProc, r.maxProc = min(r.minProc, e.Process), max(r.maxProc, e.Process)
		r.minTime, r.maxTime = min(r.minTime, e.Time), max(r.maxTime, e.Time)
		if e.HasStart {
			r.minTime = min(r.minTime, e.Start)
		}
	}
	return r
}

// placeAfter is the process offset and time shift that put a file's events
// after every process id below nextProc and every time up to lastTime (its
// first time becomes lastTime+1), or nothing for the first file, which
// keeps its own. Times are int64 nanoseconds and process ids ints; a file
// that cannot follow without leaving their range is refused rather than
// wrapped round, which would reorder its events and change what is judged.
func placeAfter(r ranges, first bool, nextProc int, lastTime int64) (procOffset int, shift int64, err error) {
	if !first {
		// Both at least 0: cannot overflow. Below 0 when the file's ids
		// start above every id so far: its ids move down.
		procOffset = nextProc - r.minProc
	}
	// The merged ids run to maxProc+procOffset, and the next file's from
	// one more: only an offset of 0 or more can take them past an int.
	if procOffset >= 0 && r.maxProc >= math.MaxInt-procOffset {
		return 0, 0, fmt.Errorf("its process ids %d to %d cannot follow the previous files' ids below %d without overflowing an int; check it on its own", r.minProc, r.maxProc, nextProc)
	}
	if first {
		return procOffset, 0, nil
	}
	// The file's span in uint64, which holds any difference of two int64s;
	// lastTime is at least 0.
	span := uint64(r.maxTime) - uint64(r.minTime)
	if lastTime == math.MaxInt64 || span > uint64(math.MaxInt64-(lastTime+1)) {
		return 0, 0, fmt.Errorf("its times span %d to %d, which cannot follow the previous files' last time %d in int64 nanoseconds without overflowing; check it on its own", r.minTime, r.maxTime, lastTime)
	}
	// lastTime+1-minTime need not fit an int64 (minTime may be far below
	// 0), but every shifted time does, and adding the wrapped difference
	// gives each exactly.
	return procOffset, int64(uint64(lastTime+1) - uint64(r.minTime)), nil
}

// extent is the highest line number a file's history mentions (at least
// the header's).
func extent(h *History) int {
	n := 1
	for i := range h.Events {
		n = max(n, h.Events[i].Line)
	}
	for i := range h.Finals {
		n = max(n, h.Finals[i].Line)
	}
	for i := range h.Warnings {
		n = max(n, h.Warnings[i].Line)
	}
	for i := range h.TablesRead {
		n = max(n, h.TablesRead[i].Line)
	}
	for i := range h.Receivers {
		n = max(n, h.Receivers[i].Line)
	}
	return max(n, h.End)
}
