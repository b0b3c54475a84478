package fts

import (
	"database/sql"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ...  ", nil},
		{"How do I deploy with Docker?", []string{"how", "do", "i", "deploy", "with", "docker"}},
		{"web_search deploy.yaml docker-compose", []string{"web", "search", "deploy", "yaml", "docker", "compose"}},
		{"Café NAÏVE Ångström", []string{"cafe", "naive", "angstrom"}},
		{"e\u0301t\u00e9", []string{"ete"}},         // a combining acute inside a token is dropped
		{"\u0301abc", []string{"abc"}},              // it does not start one
		{"a\u0305b", []string{"a", "b"}},            // U+0305 is no diacritic of unicode61's: a separator
		{"数据库迁移 こんにちは", []string{"数据库迁移", "こんにちは"}}, // CJK runs are one token
		{"P2.2 v1,000", []string{"p2", "2", "v1", "000"}},
		{"ΣΊΣΥΦΟΣ", []string{"σίσυφοσ"}}, // Greek accents stay (remove_diacritics=1 covers Latin)
		{"x\x00y", []string{"x", "y"}},
		{"\uE000private", []string{"\uE000private"}}, // Co is a token character
		{"emoji😀here", []string{"emoji", "here"}},
		{"ﬁle ½", []string{"ﬁle", "½"}},
	} {
		if got := Tokens(tc.in); !cmp.Equal(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// vocabDB is an FTS5 table (unicode61, default options) and its
// fts5vocab instance table, for reading what FTS5 makes of a text.
type vocabDB struct{ db *sql.DB }

func openVocab(tb testing.TB) vocabDB {
	tb.Helper()
	d, err := sql.Open("sqlite3", "file::memory:")
	if err != nil {
		tb.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	tb.Cleanup(func() { d.Close() })
	for _, s := range []string{
		"CREATE VIRTUAL TABLE t USING fts5(c)",
		"CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')",
	} {
		if _, err := d.Exec(s); err != nil {
			tb.Fatalf("%s: %v (build with -tags sqlite_fts5)", s, err)
		}
	}
	return vocabDB{d}
}

// tokens indexes text alone and returns FTS5's terms in position order;
// it fails the test when a position is missing or doubled.
func (v vocabDB) tokens(tb testing.TB, text string) []string {
	tb.Helper()
	for _, s := range []string{"DELETE FROM t"} {
		if _, err := v.db.Exec(s); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := v.db.Exec("INSERT INTO t(rowid, c) VALUES (1, ?)", text); err != nil {
		tb.Fatal(err)
	}
	rows, err := v.db.Query("SELECT term, offset FROM v ORDER BY offset")
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var term string
		var off int
		if err := rows.Scan(&term, &off); err != nil {
			tb.Fatal(err)
		}
		if off != len(out) {
			tb.Fatalf("%q: FTS5 term %q at offset %d, want %d", text, term, off, len(out))
		}
		out = append(out, term)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestTokensMatchFTS5 compares Tokens with what FTS5 indexes, for the
// table above, the search corpus rows and random texts drawn from the
// characters whose class or fold is special.
func TestTokensMatchFTS5(t *testing.T) {
	v := openVocab(t)
	texts := append([]string{}, ftsRows...)
	texts = append(texts, "Café NAÏVE Ångström e\u0301t\u00e9 \u0301abc a\u0305b ΣΊΣΥΦΟΣ ﬁle ½ \uE000x 😀",
		"ǅ ǈ ǋ ǲ İ ı ẞ ß Ⅻ ⅻ Ⓐ ⓐ 𐐀 𐐨 ﬀ ＡＢＣ ａｂｃ ٣٤ ߀ 𝟘 Ꭰ ꭰ Ა ა")
	r := rand.New(rand.NewSource(17))
	pool := interestingRunes()
	for i := 0; i < 300; i++ {
		texts = append(texts, randomText(r, pool, 1+r.Intn(60)))
	}
	for _, text := range texts {
		want := v.tokens(t, text)
		if got := Tokens(text); !cmp.Equal(got, want, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") })) {
			t.Errorf("Tokens(%q)\n got %q\nwant %q (FTS5)", text, got, want)
		}
	}
}

// interestingRunes are the characters next to every class and fold
// boundary of the tables, ASCII punctuation and spaces.
func interestingRunes() []rune {
	var out []rune
	add := func(r rune) {
		if r > 0 && r <= utf8.MaxRune && !(r >= 0xD800 && r <= 0xDFFF) {
			out = append(out, r)
		}
	}
	for _, rs := range [][]runeRange{unicode61TokenRanges, unicode61DiacriticRanges} {
		for _, x := range rs {
			add(x.lo - 1)
			add(x.lo)
			add(x.hi)
			add(x.hi + 1)
		}
	}
	for _, f := range unicode61Folds {
		add(f.lo)
		add(f.hi)
		add(f.hi + 1)
	}
	for c := rune(1); c < 0x80; c++ {
		add(c)
	}
	return out
}

func randomText(r *rand.Rand, pool []rune, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if r.Intn(5) == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(pool[r.Intn(len(pool))])
	}
	return b.String()
}

// FuzzTokens compares Tokens with FTS5 on valid UTF-8 texts without NUL.
func FuzzTokens(f *testing.F) {
	for _, s := range ftsRows {
		f.Add(s)
	}
	f.Add("Café e\u0301 \u0301a 𐐀")
	v := openVocab(f)
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
			t.Skip("SQLite reads invalid UTF-8 and NUL otherwise (see Tokens)")
		}
		want := v.tokens(t, text)
		if got := Tokens(text); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("Tokens(%q) = %q, FTS5 %q", text, got, want)
		}
	})
}
