package fts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheck pins the syntax check against SQLite: check accepts exactly
// what SQLite accepts, except for the syntax it rejects on purpose
// (sqlite true, check false), which Parse never produces.
func TestCheck(t *testing.T) {
	t.Parallel()
	db := openFTS(t)
	nots := func(n int) string { return strings.Repeat("a NOT ", n) + "a" }
	for _, c := range []struct {
		name   string
		q      string
		sqlite bool
		check  bool
	}{
		{"Word", "docker", true, true},
		{"Words", "a b c", true, true},
		{"Phrase", `"a b"`, true, true},
		{"EscapedQuote", `"a""b"`, true, true},
		{"EmptyPhrase", `""`, true, true},
		{"Prefix", "a*", true, true},
		{"StarBetween", "a*b", true, true},
		{"DoubleStar", "a**", false, false},
		{"LeadingStar", "*a", false, false},
		{"Operators", "a AND b OR c NOT d", true, true},
		{"LowerCaseOperator", "a or b", true, true},
		{"LeadingOperator", "NOT a", false, false},
		{"TrailingOperator", "a OR", false, false},
		{"LoneOperator", "OR", false, false},
		{"DoubledOperator", "a AND OR b", false, false},
		{"Column", "content:a", true, true},
		{"ColumnAnyCase", "Content:a", true, true},
		{"QuotedColumn", `"content":a`, true, true},
		{"ColumnSpaced", "content : a", true, true},
		{"ColumnPrefix", "content:a*", true, true},
		{"ExcludedColumn", "-content:a", true, true},
		{"ExcludedColumnAfterWord", "a -content:b", true, true},
		{"UnknownColumn", "foo:bar", false, false},
		{"ColumnWithoutPhrase", "content:", false, false},
		{"Minus", "a - b", false, false},
		{"MinusWord", "-a", false, false},
		{"Near", "NEAR", true, true},
		{"Substitute", "a\x1ab", true, true},
		{"NonASCII", "日本語 café 🙂", true, true},
		{"NoBreakSpaceIsBareword", "a\u00a0b", true, true},
		{"VerticalTab", "a\vb", false, false},
		{"Apostrophe", "it's", false, false},
		{"Dot", "a.b", false, false},
		{"Unterminated", `"a`, false, false},
		{"Empty", "", false, false},
		{"Blank", " ", false, false},
		{"NotsAtLimit", nots(256), true, true},
		{"NotsOverLimit", nots(257), false, false},
		{"OrOverNotsAtLimit", nots(255) + " OR x", true, true},
		{"OrOverNotsOverLimit", nots(256) + " OR x", false, false},
		{"ParenAfterWord", "a (b)", false, false},
		{"ParenThenWord", "(a) b", false, false},
		// Valid FTS5 that check rejects: Parse never writes it.
		{"Parens", "a AND (b OR c)", true, false},
		{"NearGroup", "NEAR(a b, 5)", true, false},
		{"Plus", "a + b", true, false},
		{"Caret", "^a", true, false},
		{"ColumnList", "{content}: a", true, false},
		{"Nul", "a\x00(", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, errU := db.match("u", c.q)
			_, errG := db.match("g", c.q)
			if got := errU == nil && errG == nil; got != c.sqlite {
				t.Errorf("SQLite accepts %q: %v, want %v (%v / %v)", c.q, got, c.sqlite, errU, errG)
			}
			if _, got := check(c.q); got != c.check {
				t.Errorf("check(%q) = %v, want %v", c.q, got, c.check)
			}
		})
	}
}

func TestCheckPhrases(t *testing.T) {
	t.Parallel()
	got, ok := check(`content:a* "b ""c""" NOT d`)
	want := checked{phrases: []string{"a", `b "c"`, "d"}, operators: true}
	if !ok {
		t.Fatal("rejected")
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(checked{})); diff != "" {
		t.Error(diff)
	}
}
