package cmd

import (
	"runtime"
	"runtime/debug"
)

// version is what chatseq --version prints: the module version the binary
// was built at (a tagged version through go install, "(devel)" from a
// checkout), the commit and whether the tree had changes, and the Go
// release that built it.
func version() string {
	v := "(devel)"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v + " " + runtime.Version()
	}
	if info.Main.Version != "" {
		v = info.Main.Version
	}
	var commit, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if commit != "" {
		v += " (commit " + commit + modified + ")"
	}
	return v + " " + info.GoVersion
}
