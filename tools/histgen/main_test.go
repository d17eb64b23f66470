package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/history"
)

// The command writes the file, says what it wrote and where the stale sync
// is, and the file reads back as that many lines.
func TestWritesAndReports(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var stdout, stderr bytes.Buffer
	err := run([]string{"-persists", "2000", "-hot", "-writers", "8", "-readers", "2", "-stale-sync", "-seed", "3", "-o", path}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v (stderr %q)", err, stderr.String())
	}
	out := stdout.String()
	m := regexp.MustCompile(`wrote \S+: (\d+) lines, (\d+) bytes`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("summary %q", out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strconv.Itoa(bytes.Count(data, []byte("\n"))); m[1] != lines || m[2] != strconv.Itoa(len(data)) {
		t.Fatalf("summary says %s lines, %s bytes; the file has %s lines, %d bytes", m[1], m[2], lines, len(data))
	}
	if !strings.Contains(out, "2000 persists") {
		t.Errorf("summary %q does not count the persists", out)
	}
	s := regexp.MustCompile(`stale sync: lines (\d+) \(invoke\) and (\d+) \(ok\)`).FindStringSubmatch(out)
	if s == nil {
		t.Fatalf("no stale sync in %q", out)
	}
	h, err := history.ReadFile(path)
	if err != nil || len(h.Warnings) > 0 {
		t.Fatalf("reading back: %v, warnings %v", err, h.Warnings)
	}
	okLine, _ := strconv.Atoi(s[2])
	found := false
	for _, e := range h.Events {
		if e.Line == okLine {
			found = e.Kind == history.KindOK && e.F == history.FSync
		}
	}
	if !found {
		t.Fatalf("line %d is not a sync's ok", okLine)
	}
}

// With -o -, the history goes to standard output and the summary to
// standard error.
func TestStandardOutput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-persists", "500", "-chats", "5", "-o", "-"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), `{"format":"chatseq-history","version":1,`) || !strings.Contains(stderr.String(), "wrote standard output: ") {
		t.Fatalf("stdout %.80q, stderr %q", stdout.String(), stderr.String())
	}
	if _, err := history.Read(&stdout, "-"); err != nil {
		t.Fatal(err)
	}
}

// Bad flags are errors, and a history that could not be finished is not
// left behind.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-persists", "10"}, "-o is required"},
		{[]string{"-o", filepath.Join(dir, "a.jsonl"), "extra"}, "unexpected arguments"},
		{[]string{"-o", filepath.Join(dir, "b.jsonl"), "-writers", "0"}, "writers must be"},
		{[]string{"-o", filepath.Join(dir, "c.jsonl"), "-persists", "30", "-hot", "-writers", "2", "-readers", "1", "-stale-sync"}, "stale sync"},
		{[]string{"-o", filepath.Join(dir, "missing", "d.jsonl")}, "no such file"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(c.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.args, err, c.want)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		t.Errorf("left in the directory: %v (%v)", entries, err)
	}
	if err := run([]string{"-h"}, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// -profile sets a shape and the flags beside it change it, wherever they
// stand; an unknown profile is an error.
func TestProfileFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-persists", "2000", "-profile", "heavy-sync", "-o", path}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "2000 persists") || !strings.Contains(stdout.String(), "entries returned by syncs") {
		t.Errorf("summary %q", stdout.String())
	}
	h, err := history.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hg := h.Header.Extra["histgen"]
	if !strings.Contains(hg, `"hot":true`) || !strings.Contains(hg, `"full_pages":true`) || !strings.Contains(hg, `"persists":2000,`) {
		t.Errorf("header's histgen fields %v: want the heavy-sync profile with 2000 persists", hg)
	}
	if err := run([]string{"-profile", "nope", "-o", path}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "unknown profile") {
		t.Errorf("an unknown profile: %v", err)
	}
}
