package httpapi

import (
	"strings"
	"testing"
)

func TestParseListeningReadsWhatServePrints(t *testing.T) {
	for _, c := range []struct {
		addr     string
		volatile bool
		want     string
	}{
		{"127.0.0.1:8483", false, "http://127.0.0.1:8483"},
		{"[::]:8483", true, "http://127.0.0.1:8483"},
		{"0.0.0.0:9000", true, "http://127.0.0.1:9000"},
		{"[::1]:8480", false, "http://[::1]:8480"},
	} {
		line := ListeningLine("ADR-004 core, embedded", c.addr, c.volatile)
		got, ok := ParseListening(line)
		if !ok || got.URL != c.want || got.Volatile != c.volatile || got.Describe != "ADR-004 core, embedded" {
			t.Errorf("ParseListening(%q) = %+v, %v; want %q, volatile %v", line, got, ok, c.want, c.volatile)
		}
	}
	for _, line := range []string{"serving on 127.0.0.1:8480", "chatseq serve: starting", "chatseq serve: x listening on http://nowhere"} {
		if got, ok := ParseListening(line); ok {
			t.Errorf("ParseListening(%q) = %+v, want no address", line, got)
		}
	}
}

func TestExposedWarnsBeyondLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8480", "[::1]:8480", "localhost:8480"} {
		if w := Exposed(addr, true); w != "" {
			t.Errorf("Exposed(%s) = %q, want no warning on loopback", addr, w)
		}
	}
	for _, addr := range []string{"[::]:8480", "0.0.0.0:8480", "10.1.2.3:8480"} {
		w := Exposed(addr, false)
		if !strings.HasPrefix(w, "WARNING: chatseq serve listens on "+addr+", beyond loopback") || strings.Contains(w, "test hooks") {
			t.Errorf("Exposed(%s, hooks off) = %q", addr, w)
		}
		if w := Exposed(addr, true); !strings.Contains(w, "test hooks (--test-hooks) let anyone reset or delete counters") {
			t.Errorf("Exposed(%s, hooks on) = %q, want the hooks named", addr, w)
		}
	}
}
