package history

import (
	"io"
	"strings"
	"testing"
)

// repeatReader is n bytes of c, made as they are read: a huge input that
// takes no memory of its own.
type repeatReader struct {
	c byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n)]
	for i := range p {
		p[i] = r.c
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// A file of NUL bytes is refused at its first byte, after reading one
// buffer of it, not after holding it whole as one line (a 5 GB one took
// 11.7 GB and 122 s).
func TestReadRefusesAFirstLineOfGarbageAtOnce(t *testing.T) {
	in := &countingReader{r: &repeatReader{c: 0, n: 1 << 30}}
	_, err := Read(in, "zeros.jsonl")
	if err == nil || err.Error() != "zeros.jsonl:1: not a chatseq history: invalid JSON at column 1: unexpected byte 0x00, expected a value; the first line must be the header "+headerExample {
		t.Fatalf("a GiB of NUL bytes: %v", err)
	}
	if in.n > 2*readBufferSize {
		t.Fatalf("read %d bytes before refusing the first byte, want at most %d", in.n, 2*readBufferSize)
	}
}

// A string field is at most MaxStringBytes long, so that a report quoting
// it stays small; the message quotes only its start.
func TestReadRefusesAStringLongerThanTheMost(t *testing.T) {
	long := strings.Repeat("x", MaxStringBytes+1)
	fits := long[1:]
	invoke := func(chat string) string {
		return `{"type":"invoke","process":1,"f":"persist","time":1,"chat":"` + chat + `","key":"k"}`
	}
	if h := mustRead(t, lines(testHeader, invoke(fits))); h.Events[0].Chat != fits {
		t.Fatal("a chat id of MaxStringBytes was not read")
	}
	syncOK := func(ids string) string {
		return lines(testHeader, `{"type":"invoke","process":1,"f":"sync","time":1,"chat":"c","after":0,"limit":0}`,
			`{"type":"ok","process":1,"f":"sync","time":2,"seqs":[1,2],"message_ids":`+ids+`}`)
	}
	for _, c := range []struct{ name, text, want string }{
		{"chat", lines(testHeader, invoke(long)), `"chat" is 65537 bytes long, more than the 65536 a string may have: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...`},
		{"a message id, plainly written", syncOK(`["m","` + long + `"]`), `"message_ids"[1] is 65537 bytes long`},
		{"a message id, escaped", syncOK(`["m", "\u0078` + long[1:] + `"]`), `"message_ids"[1] is 65537 bytes long`},
		{"an unknown field's name", lines(testHeader, strings.Replace(invoke("c"), `"key"`, `"`+long+`":1,"key"`, 1)), "a field name of 65537 bytes"},
	} {
		_, err := Read(strings.NewReader(c.text), "h.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 300 {
			t.Errorf("%s: %.400v, want a short message with %q", c.name, err, c.want)
		}
	}
	// Read to a sink that hashes message ids, the plain array is judged
	// the same way.
	_, err := Scan(strings.NewReader(syncOK(`["m","`+long+`"]`)), "h.jsonl", hashingSink{})
	if err == nil || !strings.Contains(err.Error(), `"message_ids"[1] is 65537 bytes long`) {
		t.Errorf("hashed message ids: %v", err)
	}
}

// hashingSink takes message ids as hashes, as the checker does.
type hashingSink struct{}

func (hashingSink) Event(*Event)            { /* judged by the read alone */ }
func (hashingSink) Final(*Final)            { /* judged by the read alone */ }
func (hashingSink) HashID(id []byte) uint64 { return uint64(len(id)) }
