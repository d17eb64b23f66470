package httpapi

import (
	"net"
	"strings"
)

// listeningPrefix begins the line chatseq serve prints on stdout once it
// listens: "chatseq serve: TARGET listening on http://ADDR".
const listeningPrefix = "chatseq serve: "

// ListeningLine is the line a server prints on stdout once it listens at
// addr: bench --serve reads it to learn where the service it started
// listens (docs/http-api.md).
func ListeningLine(describe, addr string) string {
	return listeningPrefix + describe + " listening on http://" + addr
}

// ParseListening reads a line ListeningLine printed and returns the URL
// to reach the server at: an address on every interface (":8483",
// "0.0.0.0:8483", "[::]:8483") is reached on loopback.
func ParseListening(line string) (string, bool) {
	if !strings.HasPrefix(line, listeningPrefix) {
		return "", false
	}
	i := strings.LastIndex(line, " listening on http://")
	if i < 0 {
		return "", false
	}
	addr := strings.TrimSpace(line[i+len(" listening on http://"):])
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" || strings.ContainsAny(addr, " /") {
		return "", false
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), true
}
