package cmd

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/fixtures/postgres"
	"github.com/chatseq/chatseq/httpapi"
	pgserver "github.com/chatseq/chatseq/localserver/postgres"
	"github.com/chatseq/chatseq/targets/core"
)

// password is what a leak test's credentials hold; no artifact may show it.
const password = "Hunter2SecretPw"

// runLeaking runs the command line in process and fails the test if the
// password is in its stdout, its stderr or any file under dirs; it returns
// the exit code.
func runLeaking(t *testing.T, args []string, dirs ...string) int {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Execute(args, &stdout, &stderr)
	for name, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
		if strings.Contains(out, password) {
			t.Errorf("%s of %q shows the password:\n%s", name, args[0], out)
		}
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if i := bytes.Index(b, []byte(password)); i >= 0 {
				t.Errorf("%s shows the password: …%s…", path, b[max(0, i-120):min(len(b), i+40)])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("exit %d\nstdout:\n%.2000s\nstderr:\n%.2000s", code, stdout.String(), stderr.String())
	return code
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// A run given a password (a DSN in URL or key=value form) keeps it out of
// everything it writes: stdout, stderr, results.json, report.html (which
// repeats the command when an invariant failed or is undecided), the
// history, the latency log.
func TestNoCredentialInAnyArtifactOfARun(t *testing.T) {
	cluster := postgres.StartForTest(t)
	// The throwaway cluster trusts loopback: any password connects.
	dsns := map[string]string{
		"url":       fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/postgres?sslmode=disable", pgserver.Superuser, password, cluster.Port()),
		"key=value": fmt.Sprintf("host=127.0.0.1 port=%d user=%s password=%s dbname=postgres sslmode=disable", cluster.Port(), pgserver.Superuser, password),
	}
	for form, dsn := range dsns {
		t.Run(form, func(t *testing.T) {
			out := t.TempDir()
			// An undecided invariant makes report.html show the command
			// that reproduces the run, as a failure does.
			args := []string{"bench", "--target", "postgres", "--dsn", dsn, "--out", out, "--duration", "300ms", "--writers", "2", "--chats", "2", "--kafka", "off", "--format", "json", "--sync-ratio", "0", "--require", "sync_completeness"}
			if code := runLeaking(t, args, out); code != ExitUnknown {
				t.Fatalf("exit %d, want %d (sync_completeness required without syncs)", code, ExitUnknown)
			}
			if b, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !bytes.Contains(b, []byte("Reproduce the run: <code id=\"repro-command\">chatseq bench")) {
				t.Fatalf("report.html should still show the command that reproduces the run (err %v)", err)
			}
			for _, f := range []string{"history.jsonl", "latency.hlog", "report.html"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Fatalf("the run should have left its %s to search: %v", f, err)
				}
			}
			b, err := os.ReadFile(filepath.Join(out, "results.json"))
			if err != nil || !bytes.Contains(b, []byte(`"command": "chatseq bench`)) {
				t.Fatalf("results.json should still reproduce the run (err %v):\n%.600s", err, b)
			}
		})
	}
}

// A run that cannot start (the database refuses, the --serve command
// fails) says why without the password, and so does `chatseq run`'s
// JUnit file, which repeats --dsn in its reproducing command.
func TestNoCredentialWhenARunCannotStart(t *testing.T) {
	port := closedPort(t)
	dsn := fmt.Sprintf("host=127.0.0.1 port=%d user=app password=%s dbname=chat connect_timeout=5", port, password)
	t.Run("dsn", func(t *testing.T) {
		out := t.TempDir()
		if code := runLeaking(t, []string{"bench", "--target", "postgres", "--dsn", dsn, "--out", out, "--duration", "300ms", "--kafka", "off"}, out); code != ExitRunError {
			t.Fatalf("exit %d, want %d", code, ExitRunError)
		}
	})
	t.Run("serve", func(t *testing.T) {
		out := t.TempDir()
		serve := fmt.Sprintf(`PGPASSWORD=%s sh -c 'echo "connecting to postgres://app:%s@db/chat" >&2; exit 3'`, password, password)
		args := []string{"bench", "--target", "http", "--serve", serve, "--url", fmt.Sprintf("http://app:%s@127.0.0.1:%d", password, port), "--out", out, "--duration", "300ms"}
		if code := runLeaking(t, args, out); code != ExitRunError {
			t.Fatalf("exit %d, want %d", code, ExitRunError)
		}
	})
	t.Run("run --junit", func(t *testing.T) {
		out := t.TempDir()
		junit := filepath.Join(out, "junit.xml")
		args := []string{"run", "--target", "postgres", "--dsn", dsn, "--out", filepath.Join(out, "results"), "--junit", junit, "--ops", "10", filepath.Join("..", "scenarios", "postgres-outbox-faults.yaml")}
		if code := runLeaking(t, args, out); code != ExitRunError {
			t.Fatalf("exit %d, want %d", code, ExitRunError)
		}
		if b, err := os.ReadFile(junit); err != nil || !bytes.Contains(b, []byte("--dsn")) {
			t.Fatalf("the JUnit file should still name --dsn in its reproducing command (err %v):\n%s", err, b)
		}
	})
}

// A token given as an HTTP URL's user (https://TOKEN@host, Basic
// credentials without a password) is a credential too: a whole run
// against a service keeps it out of every artifact (url.URL.Redacted
// hides passwords only, and the run's description showed it).
func TestNoTokenOfAnHTTPURLInAnyArtifact(t *testing.T) {
	backing, err := core.Factory(nil)(context.Background(), bench.DefaultConfig().TargetEnv(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer backing.Close()
	srv := httptest.NewServer(httpapi.NewServer(backing).Handler())
	defer srv.Close()
	out := t.TempDir()
	u := strings.Replace(srv.URL, "http://", "http://"+password+"@", 1)
	args := []string{"bench", "--target", "http", "--url", u, "--out", out, "--duration", "300ms"}
	if code := runLeaking(t, args, out); code != ExitOK {
		t.Fatalf("exit %d, want %d", code, ExitOK)
	}
}
