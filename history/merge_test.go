package history

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func writeHistory(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// shard is a small complete history of one chat, written by process 0
// and 1 on its own clock.
func shard(chat, header string) string {
	return header + "\n" +
		`{"type":"invoke","process":0,"f":"persist","time":100,"chat":"` + chat + `","key":"k1"}` + "\n" +
		`{"type":"trace","process":0,"f":"allocate","time":150,"chat":"` + chat + `","seq":1,"start":120}` + "\n" +
		`{"type":"ok","process":0,"f":"persist","time":200,"chat":"` + chat + `","key":"k1","seq":1,"message_id":"m1-` + chat + `"}` + "\n" +
		`{"type":"invoke","process":1,"f":"sync","time":300,"chat":"` + chat + `","after":0,"limit":10}` + "\n" +
		`{"type":"ok","process":1,"f":"sync","time":400,"chat":"` + chat + `","seqs":[1],"message_ids":["m1-` + chat + `"]}` + "\n" +
		`{"type":"final","table":"counters","chat":"` + chat + `","value":1}` + "\n" +
		`{"type":"final","table":"messages","chat":"` + chat + `","seq":1,"message_id":"m1-` + chat + `","key":"k1"}` + "\n"
}

const shardHeader = `{"format":"chatseq-history","version":1,"contract":{"gaps":"allowed"},"seed":7,"initial_counter":0,"strategy":"two-phase"}`

func TestReadFilesMergesShards(t *testing.T) {
	dir := t.TempDir()
	a := writeHistory(t, dir, "a.jsonl", shard("chat-0000", strings.Replace(shardHeader, `"seed":7`, `"seed":7,"shard":"0/2"`, 1)))
	b := writeHistory(t, dir, "b.jsonl", shard("chat-0001", strings.Replace(shardHeader, `"seed":7`, `"seed":7,"shard":"1/2"`, 1)))
	m, err := ReadFiles([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Events) != 10 || len(m.Finals) != 4 {
		t.Fatalf("%d events, %d finals", len(m.Events), len(m.Finals))
	}
	// Per-file order kept, file b after file a, times increasing.
	for i := 1; i < len(m.Events); i++ {
		if m.Events[i].Time <= m.Events[i-1].Time {
			t.Fatalf("event %d at %d is not after %d", i, m.Events[i].Time, m.Events[i-1].Time)
		}
	}
	if m.Events[4].Chat != "chat-0000" || m.Events[5].Chat != "chat-0001" {
		t.Fatal("files are not concatenated in order")
	}
	// Time differences within a file are kept, starts included.
	if m.Events[7].Time-m.Events[5].Time != 100 || m.Events[6].Start-m.Events[5].Time != 20 || !m.Events[6].HasStart {
		t.Fatalf("shifted times lost their spacing: %+v", m.Events[5:8])
	}
	// Processes never collide: file b's 0 and 1 become 2 and 3.
	if m.Events[5].Process != 2 || m.Events[8].Process != 3 || m.Sources[1].ProcessOffset != 2 {
		t.Fatalf("processes %d, %d, offset %d", m.Events[5].Process, m.Events[8].Process, m.Sources[1].ProcessOffset)
	}
	// Lines run on and map back.
	if m.Events[5].Line != 10 || m.Finals[2].Line != 15 {
		t.Fatalf("lines %d, %d", m.Events[5].Line, m.Finals[2].Line)
	}
	for line, want := range map[int]string{2: a + ":2", 8: a + ":8", 10: b + ":2", 15: b + ":7"} {
		if f, l := m.Locate(line); f+":"+strconv.Itoa(l) != want {
			t.Errorf("Locate(%d) = %s:%d, want %s", line, f, l, want)
		}
	}
	// The header keeps what the files agree on.
	if m.Header.Seed != 7 || !m.Header.HasSeed || m.Header.Contract.Gaps != GapsAllowed ||
		m.Header.Extra["strategy"] != `"two-phase"` || m.Header.Extra["initial_counter"] != "0" {
		t.Fatalf("header %+v", m.Header)
	}
	if _, kept := m.Header.Extra["shard"]; kept {
		t.Fatal("the shard field differs between files and should be dropped")
	}
}

func TestReadFilesOfOneFileIsReadFile(t *testing.T) {
	dir := t.TempDir()
	a := writeHistory(t, dir, "a.jsonl", shard("chat-0000", shardHeader))
	m, err := ReadFiles([]string{a})
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Events, h.Events) || !reflect.DeepEqual(m.Finals, h.Finals) || !reflect.DeepEqual(m.Header, h.Header) {
		t.Fatal("one file read through ReadFiles differs from ReadFile")
	}
	if want := []Source{{File: a, First: 1, Lines: extent(h)}}; !reflect.DeepEqual(m.Sources, want) {
		t.Fatalf("sources %+v, want %+v", m.Sources, want)
	}
}

// `chatseq check FILE` reads through ReadFiles: for one file it must not
// hold the history twice (a million-operation history is most of the
// check's memory).
func TestReadFilesOfOneFileAllocatesNoSecondCopy(t *testing.T) {
	var body bytes.Buffer
	if err := generateHistory(&body, 4000, 8); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, body.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	allocated := func(read func() error) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := read(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	// TotalAlloc counts the whole process (a flusher or test still running
	// allocates too): the least of a few tries. Copying the events and finals
	// would add half again.
	least := func(read func() error) uint64 {
		low := allocated(read)
		for range 4 {
			low = min(low, allocated(read))
		}
		return low
	}
	one := least(func() error { _, err := ReadFile(path); return err })
	merged := least(func() error { _, err := ReadFiles([]string{path}); return err })
	if merged > one+one*3/10 {
		t.Fatalf("ReadFiles allocated %d bytes for one file, ReadFile %d: it copies the history", merged, one)
	}
}

func TestReadFilesRejectsWhatIsNotOneRun(t *testing.T) {
	dir := t.TempDir()
	a := writeHistory(t, dir, "a.jsonl", shard("chat-0000", shardHeader))
	cases := []struct {
		name, content, want string
	}{
		{"same-chat.jsonl", shard("chat-0000", shardHeader), `chat "chat-0000" is in both ` + a + " (line 2) and"},
		{"forbidden.jsonl", shard("chat-0001", strings.Replace(shardHeader, `"allowed"`, `"forbidden"`, 1)), "different contracts (gaps allowed vs forbidden)"},
		{"initial.jsonl", shard("chat-0001", strings.Replace(shardHeader, `"initial_counter":0`, `"initial_counter":10`, 1)), "different initial_counter"},
		{"broken.jsonl", shardHeader + "\n{\"type\":\"invoke\",\"process\":\"x\"}\n{}\n", "broken.jsonl:2"},
		// A field one file states and the other leaves out: taken from the
		// one stating it, key_scope client or events none passed the other
		// file's violations; sole_writer left out dropped one's phantoms;
		// one file's final table judged the other's chats (outside
		// walk-through, 2026-12-06).
		{"unstated.jsonl", shard("chat-0001", strings.Replace(shardHeader, `"contract":{"gaps":"allowed"},`, ``, 1)), "different contracts (gaps allowed vs not stated)"},
		{"client.jsonl", shard("chat-0001", strings.Replace(shardHeader, `"gaps":"allowed"`, `"gaps":"allowed","key_scope":"client"`, 1)), "different contracts (key_scope not stated vs client)"},
		{"sole.jsonl", shard("chat-0001", strings.Replace(shardHeader, `"seed":7`, `"seed":7,"sole_writer":true`, 1)), "different sole_writer (not stated vs true)"},
		{"events.jsonl", shard("chat-0001", shardHeader) + `{"type":"table_read","table":"events","lines":0}` + "\n", "events.jsonl read the final events table (line 9) and " + a + " did not"},
		{"nofinals.jsonl", strings.Join(strings.Split(shard("chat-0001", shardHeader), "\n")[:6], "\n") + "\n", a + " read the final counters table (line 7) and"},
	}
	for _, c := range cases {
		b := writeHistory(t, dir, c.name, c.content)
		_, err := ReadFiles([]string{a, b})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := ReadFiles(nil); err == nil {
		t.Error("no files is not an error")
	}
	// A file cut short before its final state read none of it, and
	// counts none: merged, the history is cut short, not refused.
	cutHeader := strings.Replace(shardHeader, `"seed":7`, `"seed":7,"end_line":true`, 1)
	b := writeHistory(t, dir, "cut.jsonl", strings.Join(strings.Split(shard("chat-0001", cutHeader), "\n")[:6], "\n")+"\n")
	full := writeHistory(t, dir, "full.jsonl", shard("chat-0002", cutHeader)+`{"type":"end"}`+"\n")
	m, err := ReadFiles([]string{full, b})
	if err != nil || !m.CutShort() {
		t.Errorf("a cut-short file beside a whole one: %v, cut short %v", err, err == nil && m.CutShort())
	}
}

// A file's times are shifted to follow the previous file's; one whose
// times span the int64 range cannot follow anything without wrapping round,
// which would move its last events before its first. It is refused, naming
// the file, and a file that fits right up to the top of the range is not.
func TestReadFilesRefusesTimesThatWouldOverflow(t *testing.T) {
	dir := t.TempDir()
	a := writeHistory(t, dir, "a.jsonl", shard("chat-0000", shardHeader))
	wide := strings.NewReplacer(`"time":100,`, `"time":-9223372036854775808,`, `"time":400,`, `"time":9223372036854775807,`).
		Replace(shard("chat-0001", shardHeader))
	b := writeHistory(t, dir, "b.jsonl", wide)
	if _, err := ReadFiles([]string{b}); err != nil {
		t.Fatalf("the wide file alone: %v", err)
	}
	_, err := ReadFiles([]string{a, b})
	if err == nil || !strings.Contains(err.Error(), b+": its times span -9223372036854775808 to 9223372036854775807") ||
		!strings.Contains(err.Error(), "without overflowing") {
		t.Fatalf("merging a file whose times span the int64 range: %v, want it refused naming %s", err, b)
	}

	// Times up to the top of the range still merge, in order: a's last
	// time is 400, so b may span 2^63-1-401 nanoseconds.
	topped := strings.NewReplacer(`"time":100,`, `"time":-1000,`, `"time":400,`, `"time":`+strconv.FormatInt(math.MaxInt64-401-1000, 10)+`,`).
		Replace(shard("chat-0001", shardHeader))
	c := writeHistory(t, dir, "c.jsonl", topped)
	m, err := ReadFiles([]string{a, c})
	if err != nil {
		t.Fatalf("a file that fits: %v", err)
	}
	for i := 1; i < len(m.Events); i++ {
		if m.Events[i].Time <= m.Events[i-1].Time {
			t.Fatalf("event %d at %d is not after %d", i, m.Events[i].Time, m.Events[i-1].Time)
		}
	}
	if last := m.Events[len(m.Events)-1].Time; last != math.MaxInt64 {
		t.Fatalf("the last merged time is %d, want %d", last, int64(math.MaxInt64))
	}
	d := writeHistory(t, dir, "d.jsonl", shard("chat-0002", shardHeader))
	if _, err := ReadFiles([]string{a, c, d}); err == nil || !strings.Contains(err.Error(), d+": its times span 100 to 400") {
		t.Fatalf("a file after one that ends at the top of the range: %v, want it refused", err)
	}
}

// A file whose process ids start above every id of the files before it
// follows them with its ids moved down: the offset below 0 is no overflow
// (it was refused as one, "cannot follow the previous files' ids"). Its
// processes stay distinct, and after the others'.
func TestReadFilesMovesHighProcessIDsDown(t *testing.T) {
	dir := t.TempDir()
	a := writeHistory(t, dir, "a.jsonl", shard("chat-0000", shardHeader))
	high := strings.NewReplacer(`"process":0,`, `"process":1000,`, `"process":1,`, `"process":1001,`).
		Replace(shard("chat-0001", shardHeader))
	b := writeHistory(t, dir, "b.jsonl", high)
	m, err := ReadFiles([]string{a, b})
	if err != nil {
		t.Fatalf("merging a file with high process ids: %v", err)
	}
	var got []int
	for _, e := range m.Events {
		got = append(got, e.Process)
	}
	if want := []int{0, 0, 0, 1, 1, 2, 2, 2, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("merged process ids %v, want %v", got, want)
	}
	if m.Sources[1].ProcessOffset != -998 {
		t.Errorf("the second file's offset is %d, want -998", m.Sources[1].ProcessOffset)
	}
	// A file of receivers alone, then one of operations: nothing to
	// follow but its own ids.
	c := writeHistory(t, dir, "c.jsonl", shardHeader+"\n"+`{"type":"join","time":1,"chat":"chat-0009","user":"u1"}`+"\n"+
		`{"type":"table_read","table":"counters","lines":0}`+"\n"+`{"type":"table_read","table":"messages","lines":0}`+"\n")
	if _, err := ReadFiles([]string{c, b}); err != nil {
		t.Errorf("a file of operations after one of receivers alone: %v", err)
	}
}
