package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// echoOnce accepts one connection from l, reports its remote address's
// network, and echoes one line of n bytes back.
func echoOnce(t *testing.T, l net.Listener, n int, network chan<- string) {
	c, err := l.Accept()
	if err != nil {
		network <- "accept: " + err.Error()
		return
	}
	defer c.Close()
	network <- c.RemoteAddr().Network()
	buf := make([]byte, n)
	if _, err := io.ReadFull(c, buf); err != nil {
		return
	}
	c.Write(buf)
}

func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	defer c.Close()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != msg {
		t.Fatalf("echo %q, want %q", got, msg)
	}
}

// A connection Dial makes to a Listener of this process goes through a
// pipe, not the kernel; one from elsewhere (net.Dial, as another process
// dials) reaches the same listener over TCP.
func TestDialInProcessAndOverTCP(t *testing.T) {
	l, err := Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	network := make(chan string, 1)
	before := Piped()

	go echoOnce(t, l, 5, network)
	c, err := Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, c, "hello")
	if got := <-network; got != "pipe" || Piped() != before+1 {
		t.Fatalf("in process: the server saw a %q connection, %d piped: want a pipe", got, Piped()-before)
	}

	go echoOnce(t, l, 5, network)
	c, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, c, "world")
	if got := <-network; got != "tcp" {
		t.Fatalf("over TCP: the server saw a %q connection", got)
	}
}

// An address no Listener of this process listens on is dialled over TCP.
func TestDialElsewhereIsTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	network := make(chan string, 1)
	go echoOnce(t, l, 3, network)
	before := Piped()
	c, err := Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, c, "abc")
	if got := <-network; got != "tcp" || Piped() != before {
		t.Fatalf("the server saw a %q connection, %d piped", got, Piped()-before)
	}
}

// Once closed, a Listener accepts nothing and its address is no longer
// dialled in process; a Dial that waits on a listener nobody accepts
// from ends with its context.
func TestClosedListenerAndCancelledDial(t *testing.T) {
	l, err := Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Dial(ctx, "tcp", addr); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("dial nobody accepts: %v, want the context's deadline", err)
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("accept after close: %v, want net.ErrClosed", err)
	}
	before := Piped()
	if c, err := Dial(context.Background(), "tcp", addr); err == nil {
		c.Close()
		t.Fatal("dialled a closed listener's address")
	}
	if Piped() != before {
		t.Fatal("a closed listener's address was dialled in process")
	}
}
