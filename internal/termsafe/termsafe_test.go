package termsafe

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

func TestNameQuotesAllButPlainNames(t *testing.T) {
	for in, want := range map[string]string{
		"counter_missing":              "counter_missing",
		"msg_01M94Y":                   "msg_01M94Y",
		"":                             `""`,
		"a b":                          `"a b"`,
		"x\nverdict: PASS":             `"x\nverdict: PASS"`,
		"\x1b[2J":                      `"\x1b[2J"`,
		"é":                            `"é"`,
		`q"uote`:                       `"q\"uote"`,
		"\xff":                         `"\xff"`,
		"<script>alert(1)</script>":    "<script>alert(1)</script>", // HTML is the page's to escape
		"idempotency.payload_mismatch": "idempotency.payload_mismatch",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %s, want %s", in, got, want)
		}
	}
}

// Control characters reach the terminal as text whichever writes they
// are split across; newlines, tabs and printable text (UTF-8 too) pass.
func TestWriterEscapesControlsAcrossWrites(t *testing.T) {
	in := "ok\tline\n\x1b]0;PWNED\x07 \r\x00 \u0085 \u009b2J é ☃\x7f\n"
	want := "ok\tline\n\\u001b]0;PWNED\\u0007 \\u000d\\u0000 \\u0085 \\u009b2J é ☃\\u007f\n"
	for split := 0; split <= len(in); split++ {
		var out bytes.Buffer
		w := Writer(&out)
		for _, part := range []string{in[:split], in[split:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("write %q: %d, %v", part, n, err)
			}
		}
		if got := out.String(); got != want {
			t.Fatalf("split at %d: %q, want %q", split, got, want)
		}
	}
}

// Inside a JSON string the escapes mean the characters they stand for:
// a --format json output stays the same JSON.
func TestWriterKeepsJSONTheSame(t *testing.T) {
	v := map[string]string{"id": "a\x7fb\u0085c\x1bd\n"}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	Writer(&out).Write(raw)
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["id"] != v["id"] {
		t.Fatalf("%s read back as %q, %v", out.Bytes(), back, err)
	}
}

func TestTextEscapesAsTheWriterDoes(t *testing.T) {
	if got, want := Text("a\x1b[2Jb\r\nc\xc2"), `a\u001b[2Jb\u000d`+"\n"+`c\u00c2`; got != want {
		t.Fatalf("Text: %q, want %q", got, want)
	}
}

// The writer tells the file it writes to, so that a report is still
// fitted to the terminal's width (report.TerminalWidth).
func TestWriterTellsItsFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fd := Writer(f).(interface{ Fd() uintptr }).Fd(); fd != f.Fd() {
		t.Fatalf("Fd %d, want the file's %d", fd, f.Fd())
	}
	if fd := Writer(&bytes.Buffer{}).(interface{ Fd() uintptr }).Fd(); fd != ^uintptr(0) {
		t.Fatalf("Fd %d of a buffer, want none", fd)
	}
}
