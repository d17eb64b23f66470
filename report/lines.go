package report

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxLineChars cuts a history line shown in the report: a sync that
// returned a thousand sequences would otherwise fill the screen.
const maxLineChars = 600

// readLines returns the text of the wanted 1-based line numbers of the
// file at path, reading it once and stopping after the last one wanted.
func readLines(path string, want []int) (map[int]string, error) {
	out := map[int]string{}
	if len(want) == 0 {
		return out, nil
	}
	wanted := slices.Clone(want)
	slices.Sort(wanted)
	wanted = slices.Compact(wanted)
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	next := 0
	for n := 1; next < len(wanted); n++ {
		line, err := r.ReadString('\n')
		if n == wanted[next] {
			out[n] = cutLine(strings.TrimRight(line, "\r\n"))
			next++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func cutLine(s string) string {
	if len(s) <= maxLineChars {
		return s
	}
	cut := maxLineChars
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …"
}
