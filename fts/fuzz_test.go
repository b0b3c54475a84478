package fts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQuery checks, for any input, that Parse does not panic and returns a
// well-formed plan whose MATCH expression SQLite accepts on both FTS5
// tables, that Parse passes Sanitize's output through unchanged whenever
// SQLite accepts it (the compatibility property), and that the package's
// syntax check agrees with SQLite. Seeds: both reference tables, the golden
// inputs, hand-picked oddities and deterministic random queries.
func FuzzQuery(f *testing.F) {
	for _, q := range allTableInputs() {
		f.Add(q)
	}
	for _, q := range goldenInputs(f) {
		f.Add(q)
	}
	for _, q := range fuzzSeeds {
		f.Add(q)
	}
	for _, q := range randomQueries(2000, 2) {
		f.Add(q)
	}
	db := openFTS(f)
	f.Fuzz(func(t *testing.T, q string) {
		checkPlan(t, db, q, Parse(q))
		checkCompatible(t, db, q)
		checkChecker(t, db, q)
	})
}

// fuzzSeeds are inputs worth keeping that neither table nor the golden
// file has, among them what earlier fuzzing runs turned up.
var fuzzSeeds = []string{
	"", " ", "\t\n", "\u3000", "\u00a0", `"`, `""`, `"""`, `""""`, `"a""b"`, `"a"""`, "\x00", "\x00Q0\x00",
	"a\x00(", `"a\x00b"`, "\x00Q0\x00 \"x\"", "\xff", "a\xffb", "\xe4\xb8", "NEAR(a b, 5)", "NEAR(a", "near(",
	"a:b:c", "content:", ":content", "content:-x", "-", "--", "- a", "a -", "a - -b", "a*b*c", "a**b", "*", "a *", "a* *",
	"a OR OR OR b", "NOT NOT NOT", "OR AND NOT", "a NOT", "AND a AND", "a AND\u3000OR b", "a\vOR\vb",
	"🙂 OR 👍", "a🙂b", "e\u0301", "\u0301", "ｶﾀｶﾅ", "안녕 OR 하세요", "記憶 AND 断裂連接", "通信 NOT", "NOT 通信",
	"\"OR\"", "\"AND\" \"NOT\"", "content:\"a b\"", "\"content\":x", "\"CONTENT\":x", "-\"content\":x",
	strings.Repeat("a NOT ", 300) + "a", strings.Repeat("通信 NOT ", 300) + "通信", strings.Repeat("记忆断裂 NOT ", 300) + "记忆断裂",
	strings.Repeat("a b NOT ", 256) + "a", strings.Repeat("(", 200) + "a", strings.Repeat("x.", 100),
	// Found by fuzzing (coverage, not failures).
	"C000000: !", "\x00*\x00* :\x00*", "0𝙂000", "\"🙂\"", "²\u3000+²", "\x00Q0\x00\"\U000fa73a脉\"", "NOT    0",
	"0 AND 记 AND 0", ":::", "0+0000000", "0*0*0*0*0*0*0*\"0*", "0 0 0 0 0 !0 00! !0 0.0 !0", "0\x1f\x1f\x1f0",
}

// checkPlan fails t unless p is a well-formed plan for q.
func checkPlan(t *testing.T, db *ftsDB, q string, p Plan) {
	t.Helper()
	switch p.Route {
	case RouteNone:
		if p.Match != "" || p.Groups != nil || p.Anchor != "" {
			t.Fatalf("Parse(%q) = %+v: RouteNone with a plan", q, p)
		}
	case RouteUnicode61, RouteTrigram:
		if p.Match == "" || p.Groups != nil || p.Anchor != "" {
			t.Fatalf("Parse(%q) = %+v: a MATCH route needs Match and nothing else", q, p)
		}
		if !utf8.ValidString(p.Match) || strings.ContainsRune(p.Match, 0) {
			t.Fatalf("Parse(%q).Match = %q: invalid UTF-8 or NUL", q, p.Match)
		}
		for _, table := range []string{"u", "g"} {
			if _, err := db.match(table, p.Match); err != nil {
				t.Fatalf("Parse(%q).Match = %q on %s: %v", q, p.Match, table, err)
			}
		}
		if _, ok := check(p.Match); !ok {
			t.Fatalf("Parse(%q).Match = %q: check rejects it", q, p.Match)
		}
	case RouteLike:
		if p.Match != "" || len(p.Groups) == 0 {
			t.Fatalf("Parse(%q) = %+v: RouteLike needs groups and no Match", q, p)
		}
		for _, g := range p.Groups {
			if len(g.All) == 0 {
				t.Fatalf("Parse(%q) = %+v: a group without a positive term", q, p)
			}
			for _, term := range append(append([]LikeTerm{}, g.All...), g.None...) {
				if term.Text == "" || !utf8.ValidString(term.Text) {
					t.Fatalf("Parse(%q) = %+v: empty or invalid term %q", q, p, term.Text)
				}
				if want := "%" + EscapeLike(term.Text) + "%"; term.Pattern != want {
					t.Fatalf("Parse(%q): term %q has pattern %q, want %q", q, term.Text, term.Pattern, want)
				}
			}
		}
		if p.Anchor != p.Groups[0].All[0].Text {
			t.Fatalf("Parse(%q) = %+v: anchor is not the first term", q, p)
		}
	default:
		t.Fatalf("Parse(%q) = %+v: unknown route", q, p)
	}
}

// checkCompatible fails t when SQLite accepts Sanitize(q) but Parse, going
// the unicode61 way, does not pass it on unchanged.
func checkCompatible(t *testing.T, db *ftsDB, q string) {
	t.Helper()
	s := Sanitize(q)
	p := Parse(q)
	if s == "" || strings.ContainsRune(s, 0) || p.Route != RouteUnicode61 {
		return
	}
	if _, err := db.match("u", s); err == nil && p.Match != s {
		t.Fatalf("Parse(%q).Match = %q, want Sanitize's %q (SQLite accepts it)", q, p.Match, s)
	}
}

// checkChecker fails t when the package's syntax check disagrees with
// SQLite: on Sanitize's output (which Parse relies on) in both directions;
// on the raw input in both directions unless it uses syntax the check
// rejects on purpose, and then only where the check accepts.
func checkChecker(t *testing.T, db *ftsDB, q string) {
	t.Helper()
	for _, s := range []string{Sanitize(q), q} {
		if s == "" || strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			continue
		}
		_, errU := db.match("u", s)
		_, errG := db.match("g", s)
		_, ok := check(s)
		if ok && (errU != nil || errG != nil) {
			t.Fatalf("check(%q) accepts what SQLite rejects: %v / %v", s, errU, errG)
		}
		if !ok && errU == nil && !strings.ContainsAny(s, "(){}+^,") && !deepNot(s) {
			t.Fatalf("check(%q) rejects what SQLite accepts", s)
		}
	}
}

// deepNot reports whether s has so many NOTs that check's upper bound on the
// tree depth may be the reason it rejected s.
func deepNot(s string) bool {
	return strings.Count(s, "NOT") > maxDepth-8
}
