package cmd

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/dustin/go-humanize"

	"github.com/chatseq/chatseq/checker"
)

// historyHeapPerByte is how many bytes of heap checking a history holds
// per byte of its file, at least: a 184-byte event for each line of about
// 140 bytes, the line's strings, and the checker's index. Measured live
// after collections: 1.4 to 1.65.
const historyHeapPerByte = 1.4

// machineMemory is the memory this process can have: its cgroup's limit,
// else the machine's. A variable so tests can shrink the machine.
var machineMemory = memlimit.ApplyFallback(memlimit.FromCgroup, memlimit.FromSystem)

// memoryCeiling is the most memory this process can have: its cgroup's
// limit, else the machine's memory, or the runtime's limit when the user
// set it higher (GOMEMLIMIT; math.MaxInt64 with AUTOMEMLIMIT=off).
func memoryCeiling() int64 {
	ceiling := debug.SetMemoryLimit(-1)
	if total, err := machineMemory(); err == nil && total > 0 && total < math.MaxInt64 {
		ceiling = max(ceiling, int64(total))
	}
	return ceiling
}

// checkFits returns an error saying so when checking the history files
// would need more memory than the process can have: the machine's (or the
// cgroup's), or the runtime's limit when the user set it higher
// (GOMEMLIMIT; AUTOMEMLIMIT=off sets none, and so skips this). The caller
// reports every invariant undecided (exit 3) rather than reading the
// history and being killed for memory halfway through the check with
// nothing said.
func checkFits(paths []string, linMemory int64) error {
	var size int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil // the reader names the problem
		}
		size += fi.Size()
	}
	ceiling := memoryCeiling()
	need := int64(float64(size)*historyHeapPerByte) + linMemory
	if need <= ceiling {
		return nil
	}
	files := strings.Join(paths, " ")
	return fmt.Errorf(
		"checking %s (%s) needs about %s of memory, more than the %s this process can have: every invariant is undecided. "+
			"The history is whole: check it where memory allows ('chatseq check %s'), or set GOMEMLIMIT above %s to try here anyway",
		files, humanize.IBytes(uint64(size)), humanize.IBytes(uint64(need)), humanize.IBytes(uint64(ceiling)), files, humanize.IBytes(uint64(need)))
}

// unchecked is the report of a history that was not read: every invariant
// undecided, the reason its one warning.
func unchecked(reason error) checker.Report {
	return checker.Report{Invariants: []checker.Result{}, NotApplicable: []checker.NotApplicable{}, Warnings: []string{reason.Error()}}
}
