// Package textwidth fits text to a terminal's width: it wraps at spaces
// and cuts at spaces, so a number or a word is never split.
//
// Widths count runes: chatseq's output is ASCII plus a few one-column
// symbols (µ, ≥, …), none of them double-width.
package textwidth

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks text cut short.
const Ellipsis = "…"

// Columns is how many terminal columns s takes.
func Columns(s string) int { return utf8.RuneCountInString(s) }

// Cut returns s if it fits in width columns, else as many whole words of
// it as fit followed by "…". A first word longer than width is cut
// inside (there is nothing else to show); width < 1 gives "".
func Cut(s string, width int) string {
	if Columns(s) <= width {
		return s
	}
	if width < 1 {
		return ""
	}
	room := width - Columns(Ellipsis)
	cut := ""
	for i, r := range s {
		if Columns(s[:i]) > room {
			break
		}
		if r == ' ' {
			cut = s[:i]
		}
	}
	cut = strings.TrimRight(cut, " ,;:")
	if cut == "" {
		// One word wider than the room: its first runes.
		runes := []rune(s)
		return string(runes[:max(room, 0)]) + Ellipsis
	}
	return cut + Ellipsis
}

// Wrap breaks s at spaces into lines of at most width columns; a word
// longer than width gets a line of its own, whole. width < 1 is no limit.
func Wrap(s string, width int) []string {
	if width < 1 || Columns(s) <= width {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case Columns(line)+1+Columns(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// JoinFitting joins as many of fields, from the first, as fit in width
// columns with sep between them; the first field alone is cut to width.
func JoinFitting(fields []string, sep string, width int) string {
	out := ""
	for i, f := range fields {
		next := f
		if i > 0 {
			next = out + sep + f
		}
		if Columns(next) > width {
			if i == 0 {
				return Cut(f, width)
			}
			break
		}
		out = next
	}
	return out
}

// WrapCommand breaks a shell command line into lines of at most width
// columns that a shell still reads as the one command: each but the last
// ends in " \", the later ones start with indent. It breaks only at spaces
// outside quotes (a backslash-newline inside single quotes is not a line
// continuation); a word wider than a line keeps a line of its own, whole.
// width < 1 is no limit.
func WrapCommand(cmd string, width int, indent string) []string {
	const cont = " \\"
	if width < 1 || Columns(cmd) <= width {
		return []string{cmd}
	}
	var lines []string
	line := ""
	for _, word := range shellWords(cmd) {
		switch {
		case line == "":
			line = word
		case Columns(line)+1+Columns(word)+Columns(cont) <= width:
			line += " " + word
		default:
			lines = append(lines, line+cont)
			line = indent + word
		}
	}
	return append(lines, line)
}

// LongestShellWord is the width of cmd's widest shell word (shellWords).
func LongestShellWord(cmd string) int {
	n := 0
	for _, w := range shellWords(cmd) {
		n = max(n, Columns(w))
	}
	return n
}

// shellWords splits cmd at the spaces a POSIX shell splits it at: outside
// single and double quotes, and not escaped by a backslash. The words
// keep their quotes.
func shellWords(cmd string) []string {
	var words []string
	var word strings.Builder
	single, double, escaped := false, false, false
	for _, r := range cmd {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && !single:
			escaped = true
		case r == '\'' && !double:
			single = !single
		case r == '"' && !single:
			double = !double
		case r == ' ' && !single && !double:
			if word.Len() > 0 {
				words = append(words, word.String())
				word.Reset()
			}
			continue
		}
		word.WriteRune(r)
	}
	if word.Len() > 0 {
		words = append(words, word.String())
	}
	return words
}
