package report

import (
	"io"
	"strings"

	"golang.org/x/term"

	"github.com/chatseq/chatseq/internal/textwidth"
)

// TerminalWidth is the width text written to w must fit: the terminal's,
// less a column, when w is one (an *os.File, or a writer over one that
// tells its descriptor); 0 (no limit) for a file or a pipe, which keep
// whole lines for grep and diff.
func TerminalWidth(w io.Writer) int {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 2 {
		return 0
	}
	return width - 1
}

// minDetail is the narrowest the last column of a table may be wrapped
// to beside its row; narrower, it goes on lines of its own below.
const minDetail = 24

// table lays out rows as text/tabwriter does (cells left-aligned, two
// spaces apart, the last cell not padded) and fits the last cell within
// width by wrapping it between words: continuation lines start under it,
// or, when it would have under minDetail columns (or a word of it would
// not fit there), the cell goes below its row, indented. width 0 is no
// limit. A single word wider than the terminal (a long path) is kept
// whole: it wraps, rather than lose characters.
type table struct {
	rows  [][]string
	right bool // align every cell but the last to the right
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, width int) error {
	widths := map[int]int{}
	for _, r := range t.rows {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], textwidth.Columns(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r[:len(r)-1] {
			pad := strings.Repeat(" ", widths[i]-textwidth.Columns(c))
			if t.right {
				// As tabwriter.AlignRight: the padding before the cell.
				line.WriteString("  " + pad + c)
			} else {
				line.WriteString(c + pad + "  ")
			}
		}
		start := textwidth.Columns(line.String())
		last := r[len(r)-1]
		switch {
		case last == "":
			b.WriteString(strings.TrimRight(line.String(), " "))
		case width <= 0 || start+textwidth.Columns(last) <= width:
			b.WriteString(line.String() + last)
		case width-start >= minDetail && longestWord(last) <= width-start:
			indent := "\n" + strings.Repeat(" ", start)
			b.WriteString(line.String() + strings.Join(textwidth.Wrap(last, width-start), indent))
		default:
			const under = "    "
			b.WriteString(strings.TrimRight(line.String(), " ") + "\n" + under)
			b.WriteString(strings.Join(textwidth.Wrap(last, width-len(under)), "\n"+under))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// longestWord is the width of s's widest word.
func longestWord(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		n = max(n, textwidth.Columns(w))
	}
	return n
}

// FitTable writes rows under header within width (0: no limit), cells
// left-aligned two spaces apart. The last column is the detail: it wraps
// beside its row, or below it when there is too little room. When the
// other columns alone are wider than width, each row is written as a
// paragraph instead, "first: header cell, header cell; detail", wrapped
// between words, so that nothing is cut or split.
func FitTable(w io.Writer, header []string, rows [][]string, width int) error {
	return fitTable(w, header, rows, width, false)
}

func fitTable(w io.Writer, header []string, rows [][]string, width int, right bool) error {
	t := table{right: right}
	t.add(header...)
	for _, r := range rows {
		t.add(r...)
	}
	if width <= 0 || t.leadingWidth() <= width {
		return t.write(w, width)
	}
	for _, r := range rows {
		writeItems(w, paragraph(header, r), width, "  ")
	}
	return nil
}

// writeItems writes items, space-separated, within width, later lines
// indented: lines break between items, so that a label stays beside its
// value, and inside one only when it alone is wider than a line.
func writeItems(w io.Writer, items []string, width int, indent string) {
	var b strings.Builder
	line := ""
	for _, item := range items {
		switch {
		case line == "":
			line = item
		case textwidth.Columns(line)+1+textwidth.Columns(item) <= width:
			line += " " + item
		case textwidth.Columns(indent+item) <= width:
			b.WriteString(line + "\n")
			line = indent + item
		default: // too wide for a line of its own: word by word
			for _, word := range strings.Fields(item) {
				if textwidth.Columns(line)+1+textwidth.Columns(word) <= width {
					line += " " + word
				} else {
					b.WriteString(line + "\n")
					line = indent + word
				}
			}
		}
	}
	b.WriteString(line + "\n")
	io.WriteString(w, b.String())
}

// leadingWidth is the width of the columns before the detail.
func (t *table) leadingWidth() int {
	widths := map[int]int{}
	for _, r := range t.rows {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], textwidth.Columns(c))
		}
	}
	n := 0
	for _, wd := range widths {
		n += wd + 2
	}
	return n - 2
}

// paragraph is a row as the items of one paragraph: "first:", then
// "header cell," for each cell, then the detail's words after a ";".
func paragraph(header, row []string) []string {
	items := []string{row[0] + ":"}
	for i := 1; i < len(row)-1; i++ {
		if row[i] != "" {
			items = append(items, strings.TrimSpace(header[i]+" "+row[i])+",")
		}
	}
	last := len(items) - 1
	items[last] = strings.TrimSuffix(items[last], ",")
	if detail := row[len(row)-1]; detail != "" {
		if last > 0 {
			items[last] += ";"
		}
		items = append(items, strings.Fields(detail)...)
	}
	return items
}

// WrapLine writes s within width (0: no limit), later lines indented by
// indent.
func WrapLine(w io.Writer, s string, width int, indent string) { wrapLine(w, s, width, indent) }

// wrapLine writes s within width, later lines indented by indent; the
// spaces s starts with stay before its first line.
func wrapLine(w io.Writer, s string, width int, indent string) {
	body := strings.TrimLeft(s, " ")
	lead := s[:len(s)-len(body)]
	lines := textwidth.Wrap(body, width-len(lead))
	if len(lines) > 1 {
		first := lines[0]
		rest := textwidth.Wrap(strings.Join(lines[1:], " "), width-textwidth.Columns(indent))
		lines = append([]string{first}, rest...)
	}
	io.WriteString(w, lead+strings.Join(lines, "\n"+indent)+"\n")
}
