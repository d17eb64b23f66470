package cmd

import (
	"context"
	"encoding/pem"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/httpapi"
	"github.com/chatseq/chatseq/targets/core"
)

// referenceAPI is chatseq's reference API over the embedded core, closed
// with the test.
func referenceAPI(t *testing.T) http.Handler {
	t.Helper()
	target, err := core.Factory(nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	return httpapi.NewServer(target).Handler()
}

// guardedService is chatseq's reference API over TLS, behind a bearer
// token and an API key: a request without both is answered 401.
func guardedService(t *testing.T, token, apiKey string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	api := referenceAPI(t)
	var refused atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("X-Api-Key") != apiKey {
			refused.Add(1)
			http.Error(w, `{"error":{"code":"unauthorized","message":"no"}}`, http.StatusUnauthorized)
			return
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &refused
}

// A service behind authentication and a self-signed certificate is
// reached with --header and --ca-cert (or --insecure), and the headers'
// values, credentials, appear in no output and no file of the run.
func TestBenchReachesAGuardedServiceAndShowsNoCredential(t *testing.T) {
	const token, apiKey = "s3cr3t-b3arer-7f1e", "k3y-91ab-d00d"
	srv, refused := guardedService(t, token, apiKey)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, tls := range [][]string{{"--ca-cert", ca}, {"--insecure"}} {
		out := filepath.Join(dir, "out", tls[0][2:])
		args := append([]string{"bench", "--target", "http", "--url", srv.URL, "--ops", "60", "--duration", "0", "--writers", "2",
			"--chats", "2", "--http-timeout", "20s",
			"--header", "Authorization: Bearer " + token, "--header", "X-Api-Key: " + apiKey}, tls...)
		for _, format := range []string{"text", "json"} {
			code, stdout, stderr := run(t, append(args, "--format", format, "--out", out+"-"+format)...)
			if code != ExitOK {
				t.Fatalf("%v --format %s: exit %d\n%s\n%s", tls, format, code, stdout, stderr)
			}
			for name, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if strings.Contains(text, token) || strings.Contains(text, apiKey) {
					t.Errorf("%v: %s shows a header's value:\n%s", tls, name, text)
				}
			}
		}
		var files []string
		_ = filepath.WalkDir(filepath.Dir(out), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		})
		sawRedacted := false
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), token) || strings.Contains(string(b), apiKey) {
				t.Errorf("%s holds a header's value", f)
			}
			sawRedacted = sawRedacted || strings.Contains(string(b), "Authorization: ***")
		}
		if len(files) < 3 || !sawRedacted {
			t.Errorf("run %d: %d files, none showing the header as 'Authorization: ***': %v", i, len(files), files)
		}
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("the service refused %d requests without the credentials", n)
	}
}

// Without the CA or --insecure the self-signed service is not reached,
// and the error says so without a credential.
func TestBenchRefusesAnUntrustedCertificateSayingWhy(t *testing.T) {
	srv, _ := guardedService(t, "t", "k")
	code, stdout, stderr := run(t, "bench", "--target", "http", "--url", srv.URL, "--ops", "5", "--duration", "0",
		"--history", filepath.Join(t.TempDir(), "h.jsonl"), "--header", "Authorization: Bearer hidden-value-42")
	if code == ExitOK || !strings.Contains(stderr, "certificate") {
		t.Fatalf("exit %d, want a failure naming the certificate\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "hidden-value-42") {
		t.Fatalf("the output shows the header's value:\n%s\n%s", stdout, stderr)
	}
}

func TestHTTPFlagsRefuseBadValuesWithoutShowingThem(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("nothing"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := []string{"bench", "--target", "http", "--url", "http://127.0.0.1:1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--header", "Authorization Bearer hidden-value-42"}, "--header #1 has no colon"},
		{[]string{"--header", "Bad Name: hidden-value-42"}, `"Bad Name" is not a header name`},
		{[]string{"--header", "X-Key: hidden-value-42\r\nX-Other: 1"}, "--header X-Key: its value holds a control character"},
		{[]string{"--ca-cert", notPEM}, "no PEM certificate in it"},
		{[]string{"--ca-cert", filepath.Join(dir, "absent.pem")}, "--ca-cert: open"},
		{[]string{"--client-cert", notPEM}, "--client-cert and --client-key go together"},
		{[]string{"--http-timeout", "0s"}, "--http-timeout must be positive"},
		{[]string{"--max-answer-bytes", "10"}, "--max-answer-bytes must be at least 1024"},
	} {
		code, _, stderr := run(t, append(url, c.args...)...)
		if code != ExitBadInput || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "hidden-value-42") {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q, no header value", c.args, code, stderr, c.want)
		}
	}
}
