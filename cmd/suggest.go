package cmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError is cobra's flag error for c, named once (Execute prefixes
// "chatseq: "), with the closest flags for an unknown one.
func flagError(c *cobra.Command, err error) error {
	where := strings.TrimPrefix(c.CommandPath(), c.Root().Name())
	where = strings.TrimSpace(where)
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if near := closeFlags(c, name); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
	}
	msg += fmt.Sprintf(" (see '%s --help')", c.CommandPath())
	if where != "" {
		msg = where + ": " + msg
	}
	return usageError{fmt.Errorf("%s", msg)}
}

// closeFlags are c's visible flags within two edits of name, or that
// start with it, nearest first.
func closeFlags(c *cobra.Command, name string) []string {
	type near struct {
		flag string
		dist int
	}
	var found []near
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		d := editDistance(name, f.Name)
		if d <= 2 || len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			found = append(found, near{"--" + f.Name, d})
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	sort.SliceStable(found, func(i, j int) bool { return found[i].dist < found[j].dist })
	out := make([]string, 0, 3)
	for _, n := range found {
		if len(out) == 3 {
			break
		}
		out = append(out, n.flag)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
