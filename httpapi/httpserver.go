package httpapi

import (
	"net"
	"net/http"
	"os"
	"time"
)

// DefaultListen is where chatseq serve listens unless told otherwise.
const DefaultListen = "127.0.0.1:8480"

// TestHooksEnv, set to 1 in chatseq serve's environment, turns its test
// hooks on as --test-hooks does: bench --serve sets it for the command it
// starts, which may be any shell command.
const TestHooksEnv = "CHATSEQ_SERVE_TEST_HOOKS"

// TestHooksAsked reports whether the environment asks for the test hooks.
func TestHooksAsked() bool { return os.Getenv(TestHooksEnv) == "1" }

// Exposed says why a server listening at addr can be reached beyond this
// machine ("" when it listens on loopback only): it trusts HeaderUser as
// its authentication, and its test hooks, when on, reach inside the design.
func Exposed(addr string, hooks bool) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() || host == "localhost" {
		return ""
	}
	msg := "WARNING: chatseq serve listens on " + addr + ", beyond loopback: it takes the " + HeaderUser + " header as the caller's identity without checking it, so whoever reaches it can act as any user"
	if hooks {
		msg += ", and its test hooks (--test-hooks) let anyone reset or delete counters, which overwrites acknowledged messages, and inject faults"
	}
	return msg + ". Listen on 127.0.0.1, or put it behind a gateway that authenticates callers and sets " + HeaderUser + "."
}

// timeouts bound how long one connection may hold the server: a client that
// sends its headers or body slowly, or never, or keeps a connection open
// without asking anything, is cut off rather than kept for good.
type timeouts struct {
	header, read, write, idle time.Duration
}

// serverTimeouts are generous for any honest client: a body is at most 1 MB
// (maxBody) and a sync page at most a thousand messages.
var serverTimeouts = timeouts{header: 10 * time.Second, read: 30 * time.Second, write: 2 * time.Minute, idle: 2 * time.Minute}

// NewHTTPServer is an http.Server for h with the timeouts chatseq serve
// uses.
func NewHTTPServer(h http.Handler) *http.Server { return newHTTPServer(h, serverTimeouts) }

func newHTTPServer(h http.Handler, t timeouts) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: t.header, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle}
}
