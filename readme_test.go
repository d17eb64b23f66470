package chatseq_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestREADMECommandsRunAsWritten runs the README's commands as a new user
// would type them, on a fresh copy of the repository (its tracked files,
// and new ones not yet committed, nothing ignored: no .cache, no built
// binary, no runs/).
//
// The rule, which README.md states too:
//   - every line of every ```sh block is a command (a line ending in \
//     goes on to the next), run in order with bash in the copy's root;
//   - a block right after the line <!-- README test: not run … --> is left
//     out (a benchmark that takes minutes, or what another test runs);
//   - ./test.sh is left out: it runs this test;
//   - a command must exit 0, unless its comment says "exits N" (or
//     "exits N, or M"), which lists the statuses it may end with.
func TestREADMECommandsRunAsWritten(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	commands := readmeCommands(t, string(readme))
	if len(commands) < 10 {
		t.Fatalf("found only %d commands in README.md's sh blocks", len(commands))
	}
	dir := freshCopy(t)
	for _, c := range commands {
		if c.text == "./test.sh" {
			continue
		}
		if strings.Contains(c.text, "dynamodb-local start") {
			// A server the README starts must not outlive a failing
			// test: the README stops it itself, this only if it did not
			// get that far.
			stop := strings.Replace(c.text, " start", " stop", 1)
			t.Cleanup(func() { runCommand(dir, stop, time.Minute) })
		}
		began := time.Now()
		code, out := runCommand(dir, c.text, 10*time.Minute)
		t.Logf("README.md:%d: %s: exit %d in %s", c.line, c.text, code, time.Since(began).Round(100*time.Millisecond))
		if !c.allows(code) {
			t.Fatalf("README.md:%d: %s\nexited %d, want %v; its output ends:\n%s", c.line, c.text, code, c.exits, tail(out, 3000))
		}
	}
}

// readmeCommand is one command of a ```sh block.
type readmeCommand struct {
	line  int    // in README.md
	text  string // as written, comment and all
	exits []int  // the statuses it may end with
}

func (c readmeCommand) allows(code int) bool {
	for _, e := range c.exits {
		if e == code {
			return true
		}
	}
	return false
}

// exitsComment finds "exits N" or "exits N, or M" in a command's comment.
var exitsComment = regexp.MustCompile(`#.*\bexits (\d+)(?:,? or (\d+))?`)

const notRunMarker = "<!-- README test: not run"

func readmeCommands(t *testing.T, readme string) []readmeCommand {
	var out []readmeCommand
	inBlock, run := false, false
	previous := ""
	pending, pendingLine := "", 0
	sc := bufio.NewScanner(strings.NewReader(readme))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case !inBlock && strings.HasPrefix(trimmed, "```"):
			inBlock = true
			run = strings.TrimPrefix(trimmed, "```") == "sh" && !strings.HasPrefix(previous, notRunMarker)
		case inBlock && trimmed == "```":
			inBlock = false
			if pending != "" {
				t.Fatalf("README.md:%d: a command ends in \\ at the end of its block", pendingLine)
			}
		case inBlock && run && trimmed != "" && !strings.HasPrefix(trimmed, "#"):
			if pending == "" {
				pendingLine = n
			}
			if strings.HasSuffix(trimmed, "\\") {
				pending += strings.TrimSuffix(trimmed, "\\") + " "
				continue
			}
			c := readmeCommand{line: pendingLine, text: pending + trimmed, exits: []int{0}}
			pending = ""
			if m := exitsComment.FindStringSubmatch(c.text); m != nil {
				c.exits = nil
				for _, s := range m[1:] {
					if s != "" {
						code, _ := strconv.Atoi(s)
						c.exits = append(c.exits, code)
					}
				}
			}
			// The comment is the reader's; the shell gets the command.
			if i := strings.Index(c.text, " #"); i >= 0 {
				c.text = strings.TrimSpace(c.text[:i])
			}
			out = append(out, c)
		}
		if trimmed != "" {
			previous = trimmed
		}
	}
	if inBlock {
		t.Fatal("README.md: a code block is never closed")
	}
	return out
}

// freshCopy copies the repository's files, as a clone would have them
// (plus new files not yet committed), into a directory emptied first.
// The directory's path is the same on every run from this checkout: the
// build cache keys chatseq's packages by their directory, so go run in a
// copy at a new path would compile all of chatseq again (minutes on a
// busy machine), and at the same path it does so once.
func freshCopy(t *testing.T) string {
	t.Helper()
	list, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files (the README test copies the repository's files): %v", err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("chatseq-readme-%08x", crc32.ChecksumIEEE([]byte(here))))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		st, err := os.Lstat(name)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		if err := copyFile(name, filepath.Join(dir, name), st.Mode()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func copyFile(from, to string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// runCommand runs command with bash in dir and returns its exit status
// and output (-1 if it could not run or ran out of time).
func runCommand(dir, command string, timeout time.Duration) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		return -1, fmt.Sprintf("%s\n%v", out.String(), err)
	}
	return 0, out.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// The extraction rule itself, on a small README.
func TestREADMEExtractionRule(t *testing.T) {
	readme := "text\n```sh\ngo run ./cmd/chatseq bench      # the first\n./test.sh                       # the suite\n" +
		"go run ./cmd/chatseq bench --broken racy-counter   # exits 1: caught\n" +
		"go run ./cmd/chatseq compare a b   # exits 0, or 1 on a regression\n" +
		"go run ./cmd/chatseq bench \\\n  --duration 1s\n```\n" +
		"```\nnot a command\n```\n```yaml\nname: x\n```\n" +
		notRunMarker + ", it takes minutes -->\n\n```sh\ngo test -bench . ./bench\n```\n"
	got := readmeCommands(t, readme)
	want := []readmeCommand{
		{3, "go run ./cmd/chatseq bench", []int{0}},
		{4, "./test.sh", []int{0}},
		{5, "go run ./cmd/chatseq bench --broken racy-counter", []int{1}},
		{6, "go run ./cmd/chatseq compare a b", []int{0, 1}},
		{7, "go run ./cmd/chatseq bench  --duration 1s", []int{0}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("commands\n got %v\nwant %v", got, want)
	}
}
