package fts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sanitizeCase is one verified input → output pair of the original's
// sanitiser, and whether SQLite accepts the output as an FTS5 query.
type sanitizeCase struct {
	name  string
	in    string
	want  string
	valid bool
}

// specTable is every row of reference-spec §9.1's verified table.
var specTable = []sanitizeCase{
	{"HelloWorld", "hello world", "hello world", true},
	{"ExactPhrase", `"exact phrase"`, `"exact phrase"`, true},
	{"CPlusPlus", "C++", "C", true},
	{"PhraseThenWord", `"docker networking" setup`, `"docker networking" setup`, true},
	{"Unterminated", `"unterminated`, "unterminated", true},
	{"Hyphenated", "chat-send", `"chat-send"`, true},
	{"OpenParen", "(problem", "problem", true},
	{"QuotedHyphenated", `"chat-send"`, `"chat-send"`, true},
	{"TrailingAnd", "hello AND", "hello", true},
	{"PhraseWithHyphenated", `"my chat-send thing"`, `"my chat-send thing"`, true},
	{"LeadingOr", "OR world", "world", true},
	{"DottedHyphenated", "my-app.config.ts", `"my-app.config.ts"`, true},
	{"StarsOnly", "***", "", false},
	{"Dotted", "P2.2", `"P2.2"`, true},
	{"Prefix", "deploy*", "deploy*", true},
	{"Underscored", "sp_new", `"sp_new"`, true},
	{"Braces", "{test}", "test", true},
	{"UnderscoredAndCJK", "sp_new and 血管瘤", `"sp_new" and 血管瘤`, true},
	{"DoubledOperator", "a AND OR b", "a AND OR b", false},
	{"HyphenUnderscore", "docker-compose_up", `"docker-compose_up"`, true},
	{"LeadingNot", "NOT x", "x", true},
	{"TrailingNot", "x NOT", "x", true},
	{"DottedThenWord", "node.js v2", `"node.js" v2`, true},
	{"LowerCaseLeadingAnd", "and hello", "hello", true},
	{"DottedCJK", "日本.語", `"日本.語"`, true},
	{"LeadingStar", "*foo", "foo", true},
	{"DoubleStar", "foo**", "foo*", true},
	{"StarAfterSpace", "foo *bar", "foo bar", true},
	{"Caret", "a^b", "a b", true},
	{"PhraseThenLoneQuote", `"a" "b`, `"a"  b`, true},
	{"QuotesInsideWord", `a"b"c`, `a"b"c`, true},
	{"AndOnly", "AND", "", false},
	{"OrOr", "OR OR", "OR", false},
	{"Spaced", "  spaced   out  ", "spaced   out", true},
	{"Colon", "foo:bar", "foo bar", true}, // v21 blanks ':' (v11 kept it: invalid)
	{"Apostrophe", "it's", "it's", false},
	{"SpacedHyphen", "x - y", "x - y", false},
}

// testA3 is every sanitiser input of reference-tests A.3 with its exact
// output (the assertions themselves are in TestSanitizeReferenceAssertions).
var testA3 = []sanitizeCase{
	{"HelloWorld", "hello world", "hello world", true},
	{"CPlusPlus", "C++", "C", true},
	{"Unterminated", `"unterminated`, "unterminated", true},
	{"OpenParen", "(problem", "problem", true},
	{"Braces", "{test}", "test", true},
	{"TrailingAnd", "hello AND", "hello", true},
	{"LeadingOr", "OR world", "world", true},
	{"StarsOnly", "***", "", false},
	{"Prefix", "deploy*", "deploy*", true},
	{"ExactPhrase", `"exact phrase"`, `"exact phrase"`, true},
	{"PhraseThenWord", `"docker networking" setup`, `"docker networking" setup`, true},
	{"TwoPhrasesOred", `"hello world" OR "foo bar"`, `"hello world" OR "foo bar"`, true},
	{"Hyphenated", "chat-send", `"chat-send"`, true},
	{"TwoHyphens", "docker-compose-up", `"docker-compose-up"`, true},
	{"HyphenatedInSentence", "fix chat-send bug", `fix "chat-send" bug`, true},
	{"HyphenatedOred", "chat-send OR deploy-prod", `"chat-send" OR "deploy-prod"`, true},
	{"QuotedHyphenated", `"chat-send"`, `"chat-send"`, true},
	{"PhraseWithHyphenated", `"my chat-send thing"`, `"my chat-send thing"`, true},
	{"Dotted", "P2.2", `"P2.2"`, true},
	{"DottedLower", "simulate.p2", `"simulate.p2"`, true},
	{"ManyDots", "simulate.p2.test.ts", `"simulate.p2.test.ts"`, true},
	{"QuotedDotted", `"P2.2"`, `"P2.2"`, true},
	{"DottedOred", "P2.2 OR simulate.p2", `"P2.2" OR "simulate.p2"`, true},
	{"HyphenDot", "my-app.config", `"my-app.config"`, true},
	{"DottedHyphenated", "my-app.config.ts", `"my-app.config.ts"`, true},
	{"Underscored", "sp_new", `"sp_new"`, true},
	{"TwoUnderscores", "a_b_c", `"a_b_c"`, true},
	{"UnderscoreDigit", "sp_new1", `"sp_new1"`, true},
	{"HyphenUnderscore", "docker-compose_up", `"docker-compose_up"`, true},
	{"DotUnderscore", "my.app_config.ts", `"my.app_config.ts"`, true},
	{"QuotedUnderscored", `"sp_new"`, `"sp_new"`, true},
	{"UnderscoredAndCJK", "sp_new and 血管瘤", `"sp_new" and 血管瘤`, true},
	// New at v21 (test_sanitize_fts5_query_strips_dangerous_chars): ':'
	// becomes a space, both terms kept.
	{"TodoColon", "TODO: fix", "TODO  fix", true},
	{"ErrorColonTimeout", "error:timeout", "error timeout", true},
	{"ColonInPhraseKept", `"a:b" c:d`, `"a:b" c d`, true},
}

// allTableInputs is every input of the two tables.
func allTableInputs() []string {
	var qs []string
	for _, c := range append(append([]sanitizeCase{}, specTable...), testA3...) {
		qs = append(qs, c.in)
	}
	return qs
}

// TestSanitize checks every row of spec §9.1 and every A.3 input: Sanitize
// gives the original's exact output, SQLite accepts it exactly when the
// table says so (and so does the package's own syntax check), and Parse
// hands a valid output to SQLite unchanged.
func TestSanitize(t *testing.T) {
	t.Parallel()
	db := openFTS(t)
	for _, table := range []struct {
		name  string
		cases []sanitizeCase
	}{{"Spec91", specTable}, {"TestsA3", testA3}} {
		t.Run(table.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range table.cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					got := Sanitize(c.in)
					if diff := cmp.Diff(c.want, got); diff != "" {
						t.Fatalf("Sanitize(%q) (-want +got):\n%s", c.in, diff)
					}
					if got == "" {
						if q := Parse(c.in); q.Route != RouteNone {
							t.Errorf("Parse(%q) = %+v, want RouteNone", c.in, q)
						}
						return
					}
					if v := db.valid(got); v != c.valid {
						t.Errorf("SQLite accepts %q: %v, table says %v", got, v, c.valid)
					}
					if _, v := check(got); v != c.valid {
						t.Errorf("check(%q) = %v, want %v", got, v, c.valid)
					}
					q := Parse(c.in)
					if c.valid && q.Route == RouteUnicode61 && q.Match != got {
						t.Errorf("Parse(%q).Match = %q, want Sanitize's %q", c.in, q.Match, got)
					}
					if q.Match != "" && !db.valid(q.Match) {
						t.Errorf("Parse(%q).Match = %q: SQLite rejects it", c.in, q.Match)
					}
				})
			}
		})
	}
}

// TestSanitizeReferenceAssertions is reference-tests A.3's sanitiser
// tests, assertion by assertion.
func TestSanitizeReferenceAssertions(t *testing.T) {
	t.Parallel()
	s := Sanitize
	type assertion struct {
		name string
		ok   bool
	}
	for _, test := range []struct {
		name    string
		asserts []assertion
	}{
		{"StripsDangerousChars", []assertion{
			{"hello world", s("hello world") == "hello world"},
			{"no + in C++", !strings.Contains(s("C++"), "+")},
			{`no " in "unterminated`, !strings.Contains(s(`"unterminated`), `"`)},
			{"no ( in (problem", !strings.Contains(s("(problem"), "(")},
			{"no { in {test}", !strings.Contains(s("{test}"), "{")},
			{"hello AND", s("hello AND") == "hello"},
			{"OR world", s("OR world") == "world"},
			{"***", s("***") == ""},
			{"deploy*", s("deploy*") == "deploy*"},
		}},
		{"PreservesQuotedPhrases", []assertion{
			{"exact phrase", s(`"exact phrase"`) == `"exact phrase"`},
			{"phrase then word", strings.Contains(s(`"docker networking" setup`), `"docker networking"`)},
			{"two phrases", strings.Contains(s(`"hello world" OR "foo bar"`), `"hello world"`) &&
				strings.Contains(s(`"hello world" OR "foo bar"`), `"foo bar"`)},
			{"unterminated", !strings.Contains(s(`"unterminated`), `"`)},
		}},
		{"QuotesHyphenatedTerms", []assertion{
			{"chat-send", s("chat-send") == `"chat-send"`},
			{"docker-compose-up", s("docker-compose-up") == `"docker-compose-up"`},
			{"fix chat-send bug", strings.Contains(s("fix chat-send bug"), `"chat-send"`) &&
				strings.Contains(s("fix chat-send bug"), "fix") && strings.Contains(s("fix chat-send bug"), "bug")},
			{"chat-send OR deploy-prod", strings.Contains(s("chat-send OR deploy-prod"), `"chat-send"`) &&
				strings.Contains(s("chat-send OR deploy-prod"), `"deploy-prod"`)},
			{`"chat-send"`, s(`"chat-send"`) == `"chat-send"`},
			{`"my chat-send thing"`, s(`"my chat-send thing"`) == `"my chat-send thing"`},
		}},
		{"QuotesDottedTerms", []assertion{
			{"P2.2", s("P2.2") == `"P2.2"`},
			{"simulate.p2", s("simulate.p2") == `"simulate.p2"`},
			{"simulate.p2.test.ts", s("simulate.p2.test.ts") == `"simulate.p2.test.ts"`},
			{`"P2.2"`, s(`"P2.2"`) == `"P2.2"`},
			{"P2.2 OR simulate.p2", strings.Contains(s("P2.2 OR simulate.p2"), `"P2.2"`) &&
				strings.Contains(s("P2.2 OR simulate.p2"), `"simulate.p2"`)},
			{"my-app.config", s("my-app.config") == `"my-app.config"`},
			{"my-app.config.ts", s("my-app.config.ts") == `"my-app.config.ts"`},
		}},
		{"QuotesUnderscoredTerms", []assertion{
			{"sp_new", s("sp_new") == `"sp_new"`},
			{"a_b_c", s("a_b_c") == `"a_b_c"`},
			{"sp_new1", s("sp_new1") == `"sp_new1"`},
			{"docker-compose_up", s("docker-compose_up") == `"docker-compose_up"`},
			{"my.app_config.ts", s("my.app_config.ts") == `"my.app_config.ts"`},
			{`"sp_new"`, s(`"sp_new"`) == `"sp_new"`},
			{"sp_new and 血管瘤", strings.Contains(s("sp_new and 血管瘤"), `"sp_new"`) &&
				strings.Contains(s("sp_new and 血管瘤"), "血管瘤")},
		}},
	} {
		t.Run(test.name, func(t *testing.T) {
			t.Parallel()
			for _, a := range test.asserts {
				if !a.ok {
					t.Errorf("assertion failed: %s", a.name)
				}
			}
		})
	}
}

// TestSanitizeCap: upstream cuts a query to MAX_FTS5_QUERY_CHARS (2048)
// code points before anything else (test_sanitize_fts5_query_runtime_is_bounded,
// test_long_search_query_is_capped_and_does_not_crash read it), counting
// code points as Python's len() does, not bytes.
func TestSanitizeCap(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in, want string
	}{
		{"AtTheCap", strings.Repeat("a", 2048), strings.Repeat("a", 2048)},
		{"OverTheCap", strings.Repeat("a", 2047) + "bcd", strings.Repeat("a", 2047) + "b"},
		{"CodePointsNotBytes", strings.Repeat("记", 2049), strings.Repeat("记", 2048)},
		// The cut may split a phrase: its opening quote is then unbalanced
		// and blanked, as upstream does.
		{"CutsAPhrase", strings.Repeat("a", 2040) + ` "bc def"`, strings.Repeat("a", 2040) + "  bc def"},
		// The cut comes before the colon is blanked.
		{"ColonPastTheCap", strings.Repeat("a", 2048) + ":b", strings.Repeat("a", 2048)},
		// Upstream's own adversarial input: 100,000 quotes leave 1,024
		// empty phrases.
		{"QuoteRun", strings.Repeat(`"`, 100_000) + strings.Repeat("a.", 100_000), strings.Repeat(`"`, 2048)},
	} {
		if got := Sanitize(c.in); got != c.want {
			t.Errorf("%s: Sanitize = …%q (%d code points), want …%q", c.name, tail(got), len([]rune(got)), tail(c.want))
		}
	}
}

// tail is the last 12 code points of s, for short failure messages.
func tail(s string) string {
	r := []rune(s)
	return string(r[max(0, len(r)-12):])
}
