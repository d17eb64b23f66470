// Package memnet lets a server in this process be reached without the
// kernel: a listener it wraps accepts its TCP connections as before, and
// in-process connections that Dial makes to its address through an
// in-memory pipe. The embedded Kafka broker listens this way: its
// clients in the same process (the run's publisher and topic readers)
// spent a quarter of a default run's CPU in loopback socket calls, while
// another process (bench against chatseq serve) still dials its port.
package memnet

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
)

var (
	mu        sync.Mutex
	listeners = map[string]*Listener{}
	piped     atomic.Int64
)

// Piped is how many connections Dial has made in process so far.
func Piped() int64 { return piped.Load() }

// Listener is a TCP listener that also accepts in-process connections.
type Listener struct {
	tcp      net.Listener
	addr     string
	piped    chan net.Conn
	accepted chan acceptResult
	closed   chan struct{}
	once     sync.Once
}

type acceptResult struct {
	conn net.Conn
	err  error
}

// Listen listens on network and address as net.Listen does, and takes
// in-process connections to the address it gets.
func Listen(network, address string) (net.Listener, error) {
	tcp, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	l := &Listener{tcp: tcp, addr: tcp.Addr().String(), piped: make(chan net.Conn), accepted: make(chan acceptResult), closed: make(chan struct{})}
	mu.Lock()
	listeners[l.addr] = l
	mu.Unlock()
	go l.acceptTCP()
	return l, nil
}

func (l *Listener) acceptTCP() {
	for {
		c, err := l.tcp.Accept()
		select {
		case l.accepted <- acceptResult{c, err}:
		case <-l.closed:
			if c != nil {
				c.Close()
			}
			return
		}
		if err != nil {
			return
		}
	}
}

// Accept is the next connection, over TCP or in process.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.piped:
		return c, nil
	case r := <-l.accepted:
		return r.conn, r.err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops both: the address is no longer dialled in process.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		mu.Lock()
		delete(listeners, l.addr)
		mu.Unlock()
		close(l.closed)
		err = l.tcp.Close()
	})
	return err
}

// Addr is the TCP address.
func (l *Listener) Addr() net.Addr { return l.tcp.Addr() }

// Dial connects to address: in process when a Listener of this process
// listens there, else as net.Dialer does.
func Dial(ctx context.Context, network, address string) (net.Conn, error) {
	mu.Lock()
	l := listeners[address]
	mu.Unlock()
	if l == nil {
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	client, server := net.Pipe()
	select {
	case l.piped <- server:
		piped.Add(1)
		return client, nil
	case <-l.closed:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("memnet: " + address + ": listener closed")
}
