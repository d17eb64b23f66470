package cmd

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// withMemoryEnv runs f with GOMEMLIMIT and AUTOMEMLIMIT as given ("" is
// unset) and the runtime's limit restored afterwards.
func withMemoryEnv(t *testing.T, gomemlimit, automemlimit string, f func()) {
	t.Helper()
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	for name, value := range map[string]string{"GOMEMLIMIT": gomemlimit, "AUTOMEMLIMIT": automemlimit} {
		old, had := os.LookupEnv(name)
		if value == "" {
			os.Unsetenv(name)
		} else {
			os.Setenv(name, value)
		}
		defer func() {
			if had {
				os.Setenv(name, old)
			} else {
				os.Unsetenv(name)
			}
		}()
	}
	f()
}

// procMemTotal is MemTotal from /proc/meminfo, in bytes.
func procMemTotal(t *testing.T) int64 {
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no MemTotal in /proc/meminfo")
	return 0
}

func TestLimitMemorySetsTheRuntimesLimitToAShareOfTheMemory(t *testing.T) {
	withMemoryEnv(t, "", "", func() {
		debug.SetMemoryLimit(math.MaxInt64)
		got, err := limitMemory()
		if err != nil {
			t.Fatal(err)
		}
		if now := debug.SetMemoryLimit(-1); now != got {
			t.Fatalf("limitMemory returned %d but the runtime's limit is %d", got, now)
		}
		// The cgroup's limit, where there is one, can only be lower.
		if most := int64(memoryShare*float64(procMemTotal(t))) + 1<<20; got <= 0 || got > most {
			t.Fatalf("limit %d bytes, want in (0, %d]: %.0f%% of this machine's memory", got, most, memoryShare*100)
		}
	})
}

func TestLimitMemoryLeavesTheUsersSettingsAlone(t *testing.T) {
	const sentinel = 123 << 20
	for _, env := range [][2]string{{"500MiB", ""}, {"", "off"}} {
		withMemoryEnv(t, env[0], env[1], func() {
			debug.SetMemoryLimit(sentinel)
			got, err := limitMemory()
			if err != nil || got != sentinel || debug.SetMemoryLimit(-1) != sentinel {
				t.Fatalf("GOMEMLIMIT=%q AUTOMEMLIMIT=%q: limit %d (%v), runtime %d; want %d left as it was",
					env[0], env[1], got, err, debug.SetMemoryLimit(-1), sentinel)
			}
		})
	}
	withMemoryEnv(t, "", "0.5", func() {
		got, err := limitMemory()
		if most := int64(0.5*float64(procMemTotal(t))) + 1<<20; err != nil || got <= 0 || got > most {
			t.Fatalf("AUTOMEMLIMIT=0.5: limit %d (%v), want in (0, %d]", got, err, most)
		}
	})
}

// A bad AUTOMEMLIMIT stops the process before it does anything: exit 2,
// naming the variable.
func TestBadAUTOMEMLIMITExitsTwo(t *testing.T) {
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "CHATSEQ_TEST_MAIN_ARGS=check /nonexistent", "AUTOMEMLIMIT=lots")
	var stderr bytes.Buffer
	child.Stderr = &stderr
	err := child.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitBadInput || !strings.Contains(stderr.String(), "AUTOMEMLIMIT") {
		t.Fatalf("AUTOMEMLIMIT=lots: %v, stderr %q; want exit %d naming AUTOMEMLIMIT", err, stderr.String(), ExitBadInput)
	}
}
