package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultDir is where `chatseq run` looks without arguments.
const DefaultDir = "scenarios"

// Collect expands files and directories into scenario files. A directory
// is walked recursively for *.yaml and *.yml, in lexical order, skipping
// directories and files Go tooling skips too (testdata, and names starting
// with "." or "_"), so test fixtures and work in progress stay out of CI
// runs. A
// file named explicitly is read whatever its extension.
func Collect(args []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if clean := filepath.Clean(p); !seen[clean] {
			seen[clean] = true
			files = append(files, p)
		}
	}
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			add(arg)
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if p != arg && skippedName(e.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(p)); (ext == ".yaml" || ext == ".yml") && !skippedName(e.Name()) {
				// (A file starting with "." or "_" is skipped as a
				// directory is: an editor's backup, work in progress.)
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no scenario files (*.yaml, *.yml) in this directory", arg)
		}
		sort.Strings(found)
		for _, p := range found {
			add(p)
		}
	}
	return files, nil
}

func skippedName(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// Load decodes every file. All problems in all files are returned
// together (as Errors), so one run of `chatseq run` lists everything to
// fix. Two scenarios with one name are an error: the name keys the
// history file and the JUnit test case.
func Load(files []string) ([]*Scenario, error) {
	var all Errors
	var scs []*Scenario
	byName := map[string]string{}
	for _, f := range files {
		sc, err := DecodeFile(f)
		if err != nil {
			var es Errors
			if errors.As(err, &es) {
				all = append(all, es...)
			} else {
				all = append(all, &Error{File: f, Msg: err.Error()})
			}
			continue
		}
		if other, dup := byName[sc.Name]; dup {
			all = append(all, &Error{File: f, Msg: fmt.Sprintf("scenario name %q is also used by %s; names must be unique", sc.Name, other)})
			continue
		}
		byName[sc.Name] = f
		scs = append(scs, sc)
	}
	if len(all) > 0 {
		return nil, all
	}
	return scs, nil
}
