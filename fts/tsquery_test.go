package fts

import (
	"errors"
	"strings"
	"testing"
)

func TestTSQuery(t *testing.T) {
	for _, tc := range []struct {
		query, want string
		ok          bool
	}{
		{"docker deploy", `('docker') & ('deploy')`, true},
		{"Deploy*", `'deploy':*`, true},
		{"web_search", `'web' <-> 'search'`, true},
		{`"docker compose" OR podman NOT java`, `('docker' <-> 'compose') | (('podman') & !('java'))`, true},
		{"python NOT java c", `('python') & !(('java') & ('c'))`, true},
		{"a OR b AND c", `('a') | (('b') & ('c'))`, true},
		{"café NOT naïve", `('cafe') & !('naive')`, true},
		{`"foo bar"*`, `'foo' <-> 'bar':*`, true},
		{"it's", `'it' <-> 's'`, true},
		{`docker "..."`, `'docker'`, true},     // dropped from an implicit AND
		{`docker AND "..."`, ``, false},        // an explicit AND with it: nothing
		{`docker OR "..."`, `'docker'`, true},  // OR ignores it
		{`docker NOT "..."`, `'docker'`, true}, // NOT of nothing
		{`"..." NOT docker`, ``, false},
	} {
		got, ok, err := TSQuery(Plan{Route: RouteUnicode61, Match: Parse(tc.query).Match})
		if strings.Contains(tc.query, `"..."`) {
			// Parse drops a phrase without tokens itself when it repairs a
			// query; the plan here is the MATCH text as written.
			got, ok, err = TSQuery(Plan{Route: RouteUnicode61, Match: tc.query})
		}
		if err != nil || ok != tc.ok || got != tc.want {
			t.Errorf("TSQuery(%q) = %q, %v, %v; want %q, %v", tc.query, got, ok, err, tc.want, tc.ok)
		}
	}
	if _, _, err := TSQuery(Parse("记忆系统")); !errors.Is(err, ErrNotUnicode61) {
		t.Errorf("TSQuery of a trigram plan: %v, want ErrNotUnicode61", err)
	}
	for _, m := range []string{"NEAR(a b)", "a:b", "-content:a", "(a)", "a AND", ""} {
		if _, _, err := TSQuery(Plan{Route: RouteUnicode61, Match: m}); !errors.Is(err, ErrUnsupportedMatch) {
			t.Errorf("TSQuery(Match %q): %v, want ErrUnsupportedMatch", m, err)
		}
	}
}

func TestParseMatchTree(t *testing.T) {
	e, err := ParseMatch(`a b OR c NOT "d e"* AND content:f`)
	if err != nil {
		t.Fatal(err)
	}
	ph := func(s string) Expr { return Expr{Kind: ExprPhrase, Text: s} }
	want := Expr{Kind: ExprOr, Children: []Expr{
		{Kind: ExprAnd, Implicit: true, Children: []Expr{ph("a"), ph("b")}},
		{Kind: ExprAnd, Children: []Expr{
			{Kind: ExprNot, Children: []Expr{ph("c"), {Kind: ExprPhrase, Text: "d e", Prefix: true}}},
			ph("f"),
		}},
	}}
	if !equalExpr(e, want) {
		t.Errorf("ParseMatch = %+v\nwant %+v", e, want)
	}
}

func equalExpr(a, b Expr) bool {
	if a.Kind != b.Kind || a.Text != b.Text || a.Prefix != b.Prefix || a.Implicit != b.Implicit || len(a.Children) != len(b.Children) {
		return false
	}
	for i := range a.Children {
		if !equalExpr(a.Children[i], b.Children[i]) {
			return false
		}
	}
	return true
}

func TestTSVector(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"How do I deploy? Do it.", `'how':1 'do':2,5 'i':3 'deploy':4 'it':6`},
		{"Café web_search", `'cafe':1 'web':2 'search':3`},
	} {
		if got := TSVector(tc.in); got != tc.want {
			t.Errorf("TSVector(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	many := strings.Repeat("x ", MaxPositions+10) + strings.Repeat("y ", MaxPosition) + "z"
	got := TSVector(many)
	if n := strings.Count(strings.SplitN(got, " ", 2)[0], ","); n != MaxPositions-1 {
		t.Errorf("x keeps %d positions, want %d", n+1, MaxPositions)
	}
	if !strings.HasSuffix(got, " 'z'") {
		t.Errorf("z, past position %d, should have no position: ...%s", MaxPosition, got[len(got)-20:])
	}
	if got := QuoteLexeme(`it's a\b`); got != `'it''s a\\b'` {
		t.Errorf("QuoteLexeme = %s", got)
	}
	long := strings.Repeat("ж", 1500)
	if got := CapLexeme(long); len(got) != 2046 || got != long[:2046] {
		t.Errorf("CapLexeme: %d bytes", len(got))
	}
	if got := CapLexeme("a" + long); len(got) != 2045 {
		t.Errorf("CapLexeme cuts at a character: %d bytes, want 2045", len(got))
	}
}
