package main

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"

	"github.com/hermesstate/hermesstate/store"
)

// Time layouts of the human output, in the local zone.
const (
	minuteLayout = "2006-01-02 15:04"
	secondLayout = "2006-01-02 15:04:05"
)

// writeJSON prints v as one JSON document on one line. HTML characters stay
// as they are ("<" is not "\u003c"): the output is data, not a web page.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// table collects rows and prints them with their columns aligned, two
// spaces apart. Widths are display widths, so Chinese, Japanese and Korean
// text (two columns a character) lines up too, which text/tabwriter's
// rune counts do not.
type table struct {
	rows [][]string
}

// row adds a row of cells.
func (t *table) row(cells ...string) {
	t.rows = append(t.rows, cells)
}

// write prints the table; the last column is not padded.
func (t *table) write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], uniseg.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-uniseg.StringWidth(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell makes s fit one table cell: tabs and line breaks become spaces, and
// "" becomes "-" so that every column has something in it.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// deref returns *p, or "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// localTime formats ts in the local zone with layout.
func localTime(ts store.Timestamp, layout string) string {
	return ts.Time().Format(layout)
}

// indent writes text with every line prefixed by prefix.
func indent(w io.Writer, prefix, text string) {
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		io.WriteString(w, strings.TrimRight(prefix+line, " ")+"\n")
	}
}

// plural returns "1 session", "2 sessions".
func plural(n int64, noun string) string {
	s := formatInt(n) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// formatInt formats n with thousands separators: 1234567 is "1,234,567".
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
