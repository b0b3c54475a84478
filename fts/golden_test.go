package fts

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenHeader are the starts of the header lines TestGolden writes itself.
var goldenHeader = []string{"# Parse's plan", "#   go test", "# group:", "# anchor:", "# self:"}

var update = flag.Bool("update", false, "rewrite testdata/queries.golden from Parse's current answers")

const goldenFile = "testdata/queries.golden"

// goldenLine is one line of the golden file that the test keeps as it is:
// a comment or an input.
type goldenLine struct {
	comment string // a line starting with '#', or ""
	input   string
}

// readGolden returns the comments and inputs of the golden file; every
// other line is output, which the test regenerates.
func readGolden(tb testing.TB) []goldenLine {
	tb.Helper()
	f, err := os.Open(goldenFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines []goldenLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
			lines = append(lines, goldenLine{comment: line})
		case strings.HasPrefix(line, "in "):
			in, err := strconv.Unquote(strings.TrimSpace(strings.TrimPrefix(line, "in ")))
			if err != nil {
				tb.Fatalf("%s: %q: %v", goldenFile, line, err)
			}
			lines = append(lines, goldenLine{input: in})
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return lines
}

// goldenInputs returns the inputs of the golden file.
func goldenInputs(tb testing.TB) []string {
	var qs []string
	for _, l := range readGolden(tb) {
		if l.comment == "" {
			qs = append(qs, l.input)
		}
	}
	return qs
}

// TestGolden renders Parse's plan for every input of testdata/queries.golden
// and compares it with the file (go test ./fts -run TestGolden -update
// rewrites it). Each plan is also checked as FuzzQuery checks plans, and
// the "self" line says whether a message whose text is exactly the input
// is found.
func TestGolden(t *testing.T) {
	t.Parallel()
	db := openFTS(t)
	self := openSelfDB(t)
	var b strings.Builder
	b.WriteString("# Parse's plan for each input. Edit or add \"in\" lines, then run\n")
	b.WriteString("#   go test -tags sqlite_fts5 ./fts -run TestGolden -update\n")
	b.WriteString("# group: a LIKE alternative's terms, like: the same as LIKE patterns (ESCAPE '\\'),\n")
	b.WriteString("# anchor: the text centring a LIKE hit's snippet.\n")
	b.WriteString("# self: whether a message whose text is exactly the input is found.\n")
	n := 0
	for _, l := range readGolden(t) {
		if l.comment != "" {
			if !slices.ContainsFunc(goldenHeader, func(h string) bool { return strings.HasPrefix(l.comment, h) }) {
				fmt.Fprintf(&b, "\n%s\n", l.comment)
			}
			continue
		}
		n++
		p := Parse(l.input)
		checkPlan(t, db, l.input, p)
		checkCompatible(t, db, l.input)
		fmt.Fprintf(&b, "in     %s\n", strconv.Quote(l.input))
		fmt.Fprintf(&b, "route  %s\n", p.Route)
		if p.Match != "" {
			fmt.Fprintf(&b, "match  %s\n", strconv.Quote(p.Match))
		}
		for _, g := range p.Groups {
			fmt.Fprintf(&b, "group  all %s none %s\n", quoteAll(g.All, likeText), quoteAll(g.None, likeText))
			fmt.Fprintf(&b, "like   all %s none %s\n", quoteAll(g.All, likePattern), quoteAll(g.None, likePattern))
		}
		if p.Anchor != "" {
			fmt.Fprintf(&b, "anchor %s\n", strconv.Quote(p.Anchor))
		}
		if p.Route != RouteNone {
			fmt.Fprintf(&b, "self   %v\n", self.finds(t, l.input, p))
		}
	}
	if n < 80 {
		t.Errorf("%s has %d inputs, want at least 80", goldenFile, n)
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is stale (-file +now); run with -update if the change is intended:\n%s", goldenFile, diff)
	}
}

// quoteAll writes one form (likeText, likePattern) of each term, quoted.
func quoteAll(terms []LikeTerm, form func(LikeTerm) string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = strconv.Quote(form(t))
	}
	return "[" + strings.Join(q, " ") + "]"
}

func likeText(t LikeTerm) string    { return t.Text }
func likePattern(t LikeTerm) string { return t.Pattern }

// selfDB holds one message at a time, to see whether a plan finds the
// text it was made from.
type selfDB struct{ *ftsDB }

func openSelfDB(t *testing.T) selfDB {
	db := openFTS(t)
	for _, table := range []string{"u", "g"} {
		if _, err := db.db.Exec("DELETE FROM " + table); err != nil {
			t.Fatal(err)
		}
	}
	return selfDB{db}
}

// finds reports whether p finds a message whose content is text.
func (d selfDB) finds(t *testing.T, text string, p Plan) bool {
	t.Helper()
	if p.Route == RouteLike {
		return likeFinds(t, d.ftsDB, text, p.Groups)
	}
	table := map[Route]string{RouteUnicode61: "u", RouteTrigram: "g"}[p.Route]
	if _, err := d.db.Exec("INSERT INTO "+table+"(rowid, content) VALUES (1, ?)", text); err != nil {
		t.Fatal(err)
	}
	defer d.db.Exec("DELETE FROM " + table)
	rows, err := d.match(table, p.Match)
	if err != nil {
		t.Fatalf("%q: %v", p.Match, err)
	}
	return len(rows) == 1
}

// likeFinds evaluates groups the way the store's LIKE scan does, with the
// plan's patterns.
func likeFinds(t *testing.T, db *ftsDB, text string, groups []LikeGroup) bool {
	t.Helper()
	var ors []string
	var args []any
	for _, g := range groups {
		var ands []string
		for _, term := range g.All {
			ands = append(ands, `c LIKE ? ESCAPE '\'`)
			args = append(args, term.Pattern)
		}
		for _, term := range g.None {
			ands = append(ands, `c NOT LIKE ? ESCAPE '\'`)
			args = append(args, term.Pattern)
		}
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	var n int
	err := db.db.QueryRow("SELECT count(*) FROM (SELECT ? AS c) WHERE "+strings.Join(ors, " OR "),
		append([]any{text}, args...)...).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}
