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

// historyHeapPerByte and checkHeapBase estimate the memory checking a
// history takes from its file's size: the check's records, its index and
// the growth the collector allows past them (checkGrowth). Peak resident
// memory per byte of file, measured: 0.35 for 5M persists over 500 chats
// (1.76 GB), 0.63 after a 10 s bench (0.74 GB), 0.76 for the 1M-persist
// hot chat (0.75 GB), 0.87 for a 515 MB single-chat bench history (0.45
// GB), where the fixed part weighs most. The estimate keeps a margin over
// each: an estimate too low lets a check be killed halfway, one too high
// refuses a check the machine could run (it asked 7.8 GB for the 5M
// history at 1.4 a byte).
const (
	historyHeapPerByte = 0.8
	checkHeapBase      = 256 << 20
)

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
	need := int64(float64(size)*historyHeapPerByte) + checkHeapBase + linMemory
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
