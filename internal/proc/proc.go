// Package proc holds what the local servers that start processes share:
// a free loopback port, and a bounded tail of a server's output.
package proc

import (
	"bytes"
	"net"
	"sync"
)

// FreePort asks the kernel for a loopback port nothing listens on.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// TailBuffer keeps the last max bytes written, enough to explain a failed
// start without holding a long-running server's whole log.
type TailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

// NewTailBuffer keeps at most max bytes.
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

func (b *TailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - b.max; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *TailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
