package cmd

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/checker"
)

// linFlags choose the linearizability checker (--lin-checker) and
// porcupine's budgets (--lin-timeout, --lin-memory), and which invariants
// must be judged (--require), shared by every command that checks a
// history.
type linFlags struct {
	checker string
	timeout time.Duration
	memory  string
	bytes   int64 // memory, parsed by resolve
	require []string
}

func (l *linFlags) register(fl *pflag.FlagSet, timeoutHelp string) {
	fl.StringVar(&l.checker, "lin-checker", "exact",
		"linearizability checker: exact (decides every chat, near-linear time) or porcupine (a general search with the budgets below; the exact checker also hands it the rare chats it does not cover)")
	fl.DurationVar(&l.timeout, "lin-timeout", 10*time.Second, timeoutHelp)
	fl.StringVar(&l.memory, "lin-memory", humanize.IBytes(checker.DefaultPorcupineMemory),
		"memory porcupine's caches may hold over its workers (e.g. 4GiB): a chat is tried if a linear pass through it fits its worker's share, about sqrt(8·share) operations")
	fl.StringSliceVar(&l.require, "require", nil,
		"invariants that must be judged, comma-separated (e.g. sync_completeness): one the history holds none of the evidence for, n/a otherwise, is unknown (exit 3)")
}

func (l *linFlags) resolve() error {
	if l.checker != "exact" && l.checker != "porcupine" {
		return badInput("--lin-checker must be exact or porcupine, got %q", l.checker)
	}
	if l.timeout <= 0 {
		return badInput("--lin-timeout must be positive, got %s", l.timeout)
	}
	n, err := humanize.ParseBytes(l.memory)
	if err != nil || n < 1<<20 {
		return badInput("--lin-memory must be a size of at least 1MiB, such as 768MiB or 4GiB, got %q", l.memory)
	}
	l.bytes = int64(min(n, math.MaxInt64))
	for _, name := range l.require {
		if !slices.Contains(checker.InvariantNames, name) {
			return badInput("--require: unknown invariant %q; the checker reports %s", name, strings.Join(checker.InvariantNames, ", "))
		}
	}
	return nil
}

// requireArgs repeats --require for a command that reproduces this one.
func (l *linFlags) requireArgs() []string {
	if len(l.require) == 0 {
		return nil
	}
	return []string{"--require", strings.Join(l.require, ",")}
}

// options are the checker options the flags set.
func (l *linFlags) options() checker.Options {
	return checker.Options{LinearizabilityTimeout: l.timeout, PorcupineMemory: l.bytes, Porcupine: l.checker == "porcupine", Require: l.require}
}
