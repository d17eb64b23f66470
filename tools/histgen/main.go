// Command histgen writes a simulated history of a valid ADR-004 sequencer
// (see internal/histgen) for the checker's scale targets:
//
//	go run ./tools/histgen -persists 5000000 -chats 500 -o big.jsonl
//	go run ./tools/histgen -persists 1000000 -hot -o hot.jsonl
//	go run ./tools/histgen -persists 2000 -hot -stale-sync -o stale.jsonl
//	go run ./tools/histgen -profile zipf -o zipf.jsonl
//	go run ./tools/histgen -profile heavy-sync -o heavy.jsonl
//
// A -profile (internal/histgen's Profiles) sets the flags of a shape; the
// flags given beside it change it.
//
// It prints what it wrote: lines, bytes, time, and with -stale-sync the
// lines of the one broken sync.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/histgen"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "histgen:", err)
		os.Exit(2)
	}
}

// profileOf returns the configuration the flags start from: the last
// -profile among args, or the defaults. It is read before the other flags
// so that they change the profile whatever their place.
func profileOf(args []string) (histgen.Config, error) {
	fs := flag.NewFlagSet("histgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("profile", "", "")
	// Only -profile is known here: parse it alone, skipping the others.
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		for _, p := range []string{"-profile", "--profile"} {
			switch {
			case a == p && i+1 < len(args):
				if err := fs.Set("profile", args[i+1]); err != nil {
					return histgen.Config{}, err
				}
				i++
			case strings.HasPrefix(a, p+"="):
				fs.Set("profile", strings.TrimPrefix(a, p+"="))
			}
		}
	}
	if *name == "" {
		return histgen.Default(), nil
	}
	return histgen.Profile(*name)
}

func run(args []string, stdout, stderr io.Writer) error {
	cfg, err := profileOf(args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("histgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: histgen [flags] -o FILE\n\nWrites a simulated, valid ADR-004 history (JSON Lines) for chatseq check.\n\nflags:")
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "write the history to this file (\"-\": standard output, the summary then goes to standard error)")
	fs.IntVar(&cfg.Persists, "persists", cfg.Persists, "persist operations, retries and replays included")
	fs.IntVar(&cfg.Chats, "chats", cfg.Chats, "chats the operations spread over, uniformly")
	fs.BoolVar(&cfg.Hot, "hot", cfg.Hot, "put every operation on one chat (overrides -chats)")
	fs.IntVar(&cfg.Writers, "writers", cfg.Writers, "concurrent writer processes")
	fs.IntVar(&cfg.Readers, "readers", cfg.Readers, "concurrent reader processes")
	fs.Float64Var(&cfg.SyncShare, "sync-share", cfg.SyncShare, "fraction of all operations that are syncs, in [0, 1)")
	fs.IntVar(&cfg.SyncLimit, "limit", cfg.SyncLimit, "page size of every sync")
	fs.Float64Var(&cfg.CrashAfterAllocate, "crash-allocate", cfg.CrashAfterAllocate, "chance a persist crashes after allocating (a gap; the key is retried)")
	fs.Float64Var(&cfg.CrashAfterPersist, "crash-persist", cfg.CrashAfterPersist, "chance a persist crashes after committing (its retry is a replay)")
	fs.Float64Var(&cfg.Replay, "replay", cfg.Replay, "chance a writer re-sends its last acknowledged key")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "random seed: equal flags write equal files")
	fs.Float64Var(&cfg.Zipf, "zipf", cfg.Zipf, "draw each operation's chat from a Zipf distribution of this exponent (above 1; 0: uniformly)")
	fs.IntVar(&cfg.Partitions, "partitions", cfg.Partitions, "publish each message when it commits on partition chat mod this, and write the final events table (0: no events)")
	fs.BoolVar(&cfg.FullPages, "full-pages", cfg.FullPages, "heavy syncs: a reader behind fewer than -limit messages syncs from where a full page lies above")
	fs.String("profile", "", "start from a shape checkers meet in practice: "+strings.Join(histgen.Profiles, " or ")+" (see internal/histgen.Profile)")
	fs.BoolVar(&cfg.StaleSync, "stale-sync", cfg.StaleSync, "break one late sync so that only linearizability can see it, and print its lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		fs.Usage()
		return fmt.Errorf("-o is required")
	}

	var w io.Writer = stdout
	summary := stdout
	var file *history.File
	if *out == "-" {
		summary = stderr
	} else {
		f, err := history.Create(*out)
		if err != nil {
			return err
		}
		file, w = f, f
	}
	began := time.Now()
	res, err := histgen.Generate(w, cfg)
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(*out)
		}
	}
	if err != nil {
		return err
	}
	took := time.Since(began)

	s := bufio.NewWriter(summary)
	name := *out
	if name == "-" {
		name = "standard output"
	}
	fmt.Fprintf(s, "wrote %s: %d lines, %d bytes (%.1f MB) in %.2fs (%.0f MB/s)\n",
		name, res.Lines, res.Bytes, float64(res.Bytes)/1e6, took.Seconds(), float64(res.Bytes)/1e6/took.Seconds())
	fmt.Fprintf(s, "  %d persists (%d replays, %d crashes after allocate, %d after persist), %d syncs; %d messages, %d gaps, %d late commits\n",
		res.Persists, res.Dedup, res.CrashesAfterAllocate, res.CrashesAfterPersist, res.Syncs, res.Messages, res.Gaps, res.LateCommits)
	if cfg.Zipf > 0 || cfg.Partitions > 0 || cfg.FullPages {
		fmt.Fprintf(s, "  %d entries returned by syncs (%.1f a sync), %d events\n", res.Returned, float64(res.Returned)/float64(max(res.Syncs, 1)), res.Events)
	}
	if res.Stale != nil {
		fmt.Fprintf(s, "stale sync: lines %d (invoke) and %d (ok): %s\n", res.Stale.InvokeLine, res.Stale.OKLine, res.Stale)
	}
	return s.Flush()
}
