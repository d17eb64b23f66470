package httpapi

import "testing"

func TestParseListeningReadsWhatServePrints(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1:8483", "http://127.0.0.1:8483"},
		{"[::]:8483", "http://127.0.0.1:8483"},
		{"0.0.0.0:9000", "http://127.0.0.1:9000"},
		{"[::1]:8480", "http://[::1]:8480"},
	} {
		got, ok := ParseListening(ListeningLine("embedded", c.addr))
		if !ok || got != c.want {
			t.Errorf("ParseListening(%q) = %q, %v; want %q", ListeningLine("embedded", c.addr), got, ok, c.want)
		}
	}
	for _, line := range []string{"serving on 127.0.0.1:8480", "chatseq serve: starting", "chatseq serve: x listening on http://nowhere"} {
		if got, ok := ParseListening(line); ok {
			t.Errorf("ParseListening(%q) = %q, want no address", line, got)
		}
	}
}
