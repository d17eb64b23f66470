package httpapi

import (
	"net"
	"strings"
)

// The line chatseq serve prints on stdout once it listens:
// "chatseq serve: TARGET listening on http://ADDR", followed by
// volatileNote when a restart would start the service empty.
const (
	listeningPrefix = "chatseq serve: "
	listeningOn     = " listening on http://"
	volatileNote    = " (state in this process: a restart starts empty)"
)

// ListeningLine is the line a server prints on stdout once it listens at
// addr: bench --serve reads it to learn where the service it started
// listens, and whether a kill would wipe its state (docs/http-api.md).
func ListeningLine(describe, addr string, volatile bool) string {
	line := listeningPrefix + describe + listeningOn + addr
	if volatile {
		line += volatileNote
	}
	return line
}

// Listening is what a ListeningLine says.
type Listening struct {
	Describe string // the served target, as reports name it
	URL      string // where to reach the server
	Volatile bool   // a restart starts it empty
}

// ParseListening reads a line ListeningLine printed. An address on every
// interface (":8483", "0.0.0.0:8483", "[::]:8483") is reached on
// loopback.
func ParseListening(line string) (Listening, bool) {
	if !strings.HasPrefix(line, listeningPrefix) {
		return Listening{}, false
	}
	i := strings.LastIndex(line, listeningOn)
	if i < 0 {
		return Listening{}, false
	}
	rest := line[i+len(listeningOn):]
	addr, note, _ := strings.Cut(rest, " ")
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" || strings.Contains(addr, "/") {
		return Listening{}, false
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	volatile := note != "" && " "+note == volatileNote
	describe := line[len(listeningPrefix):i]
	return Listening{Describe: describe, URL: "http://" + net.JoinHostPort(host, port), Volatile: volatile}, true
}
