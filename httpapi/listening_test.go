package httpapi

import "testing"

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
