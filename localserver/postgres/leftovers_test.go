//go:build unix

package postgres

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// helperEnv makes the test binary a process that starts a cluster, says
// where, and waits for its stdin to close (then stops the cluster): the
// owner the leftover test kills or keeps alive.
const helperEnv = "CHATSEQ_PG_LEFTOVER_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runOwnerHelper())
	}
	os.Exit(m.Run())
}

func runOwnerHelper() int {
	// The server outlives a killed owner, as where there is no
	// parent-death signal: the worst leftover, a live server on it.
	keepServerOnParentDeath = true
	c, err := Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	fmt.Printf("READY %s %d %d\n", c.dir, c.port, c.server.cmd.Process.Pid)
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "helper: stop:", err)
		return 1
	}
	return 0
}

// ownerProcess is a helper that owns a cluster.
type ownerProcess struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	dir       string
	port      int
	serverPID int
}

func startOwner(t *testing.T) *ownerProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o := &ownerProcess{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		// A live owner stops its cluster once told; a killed one is
		// already reaped.
		_ = stdin.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper owner did not report its cluster: %v", err)
	}
	if _, err := fmt.Sscanf(line, "READY %s %d %d", &o.dir, &o.port, &o.serverPID); err != nil {
		t.Fatalf("helper owner said %q: %v", line, err)
	}
	return o
}

func serverAlive(t *testing.T, pid int) bool {
	t.Helper()
	p, err := inspect(pid)
	if err != nil {
		t.Fatalf("inspecting process %d: %v", pid, err)
	}
	return p.alive
}

// A killed run's cluster (its directory, and its server still running)
// is removed by the next Start; the cluster of a run still alive is not
// touched and keeps serving.
func TestStartRemovesKilledRunsClusterAndKeepsLiveOnes(t *testing.T) {
	dead := startOwner(t)
	live := startOwner(t)

	if err := dead.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = dead.cmd.Wait()
	if !serverAlive(t, dead.serverPID) {
		t.Fatalf("the killed owner's server %d is already gone: nothing left to clear", dead.serverPID)
	}
	if _, err := os.Stat(dead.dir); err != nil {
		t.Fatalf("the killed owner's cluster %s is already gone: %v", dead.dir, err)
	}

	c := startForTest(t)

	if _, err := os.Stat(dead.dir); !os.IsNotExist(err) {
		t.Errorf("the killed run's cluster %s is still there after the next Start (stat: %v)", dead.dir, err)
	}
	if serverAlive(t, dead.serverPID) {
		t.Errorf("the killed run's server %d still runs after the next Start", dead.serverPID)
	}
	if _, err := os.Stat(filepath.Join(live.dir, "data", "PG_VERSION")); err != nil {
		t.Errorf("the live run's cluster %s was touched: %v", live.dir, err)
	}
	if !serverAlive(t, live.serverPID) {
		t.Errorf("the live run's server %d was stopped", live.serverPID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", Superuser, live.port))
	if err != nil {
		t.Fatalf("the live run's cluster no longer serves: %v", err)
	}
	defer conn.Close(context.Background())
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("the live run's cluster answered %d, %v", one, err)
	}
	if _, ok := readOwner(c.dir); !ok {
		t.Errorf("the new cluster %s carries no owner file", c.dir)
	}
}

// The sweep judges owners by PID and start time: a PID that now names
// another process (same PID, other start) is a dead owner, and a PID in a
// dead owner's postmaster.pid that now names an unrelated process is not
// killed. Clusters without an owner file, live owners' clusters and other
// directories are left alone; a half-removed claimed cluster is finished.
func TestSweepJudgesOwnersByPIDAndStartTime(t *testing.T) {
	base := t.TempDir()
	mk := func(name, owner string) string {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	unrelated := exec.Command("sleep", "60")
	if err := unrelated.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unrelated.Process.Kill(); _ = unrelated.Wait() })

	me := os.Getpid()
	reused := mk(dirPrefix+"reused", fmt.Sprintf("pid %d\nstart not-when-this-process-started\n", me))
	gone := mk(dirPrefix+"gone", fmt.Sprintf("pid %d\nstart 1\n", exited.Process.Pid))
	if err := os.WriteFile(filepath.Join(gone, "data", "postmaster.pid"), []byte(strconv.Itoa(unrelated.Process.Pid)+"\n"+filepath.Join(gone, "data")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := mk(dirPrefix+"mine", "")
	if err := writeOwner(mine); err != nil {
		t.Fatal(err)
	}
	unmarked := mk(dirPrefix+"unmarked", "")
	claimed := mk(reapedPrefix+"halfway", "")
	other := mk("other-dir", fmt.Sprintf("pid %d\nstart 1\n", exited.Process.Pid))

	removed, err := sweepLeftovers(base)
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}
	slices.Sort(removed)
	want := []string{claimed, gone, reused}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, dir := range want {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still there (stat: %v)", dir, err)
		}
	}
	for _, dir := range []string{mine, unmarked, other} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was touched: %v", dir, err)
		}
	}
	if !serverAlive(t, unrelated.Process.Pid) {
		t.Error("the sweep killed an unrelated process whose PID a dead cluster's postmaster.pid named")
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), reapedPrefix) {
			t.Errorf("claimed directory %s left behind", e.Name())
		}
	}
}

// ps is the fallback where there is no /proc: it tells the same process
// apart from another started at another time, and a zombie from a live
// process.
func TestInspectByPSAgreesWithProc(t *testing.T) {
	me, err := inspectPS(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !me.alive || me.start == "" || !strings.Contains(me.cmdline, filepath.Base(os.Args[0])) {
		t.Fatalf("ps says of this process %+v", me)
	}
	again, err := inspectPS(os.Getpid())
	if err != nil || again.start != me.start {
		t.Fatalf("two readings of this process's start: %q then %q (%v)", me.start, again.start, err)
	}
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	if p, err := inspectPS(exited.Process.Pid); err != nil || p.alive {
		t.Fatalf("ps says of an exited process %+v, %v", p, err)
	}
	z, err := parsePS("Z+   Tue Nov 24 07:20:41 2026 [postgres] <defunct>")
	if err != nil || z.alive || z.start != "Tue_Nov_24_07:20:41_2026" {
		t.Fatalf("a zombie's line read as %+v, %v", z, err)
	}
	if _, err := parsePS("garbage"); err == nil {
		t.Fatal("a line that is not ps output was read")
	}
}
