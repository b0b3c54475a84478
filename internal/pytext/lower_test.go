package pytext

import (
	"testing"
	"unicode"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

func TestLower(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"ABC-def_09", "abc-def_09"},
		{"AN-94", "an-94"},
		{"İstanbul", "i\u0307stanbul"},
		{"\u212a", "k"},          // Kelvin sign: an ASCII result
		{"Σ", "σ"},               // nothing cased before it
		{"ΟΔΟΣ", "οδος"},         // final
		{"ΟΔΟΣ ΑΒ", "οδος αβ"},   // final before a space
		{"ΣΑ", "σα"},             // initial
		{"ΑΣΑ", "ασα"},           // medial
		{"Α.Σ", "α.ς"},           // "." is case-ignorable: skipped before
		{"ΑΣ.Β", "ασ.β"},         // and after
		{"Α1Σ", "α1σ"},           // a digit is neither: stops the look-behind
		{"ΑΣ\u0301", "ας\u0301"}, // a combining mark after is skipped
		{"a\xffB", "a\xffb"},     // invalid UTF-8 kept
		{"Σ\xff", "σ\xff"},       // U+FFFD from a bad byte is not cased
		{"\xffΣ", "\xffσ"},
	} {
		if got := Lower(tc.in); got != tc.want {
			t.Errorf("Lower(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAlnum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"an-94", "an94"},
		{"a_b.c d", "abcd"},
		{"日本語 ３", "日本語３"},
		{"①½Ⅻ", "①½Ⅻ"},
		{"e\u0301", "e"}, // a combining mark is not \w in Python
		{"--__..", ""},
		{"a\xffb", "ab"},
	} {
		if got := Alnum(tc.in); got != tc.want {
			t.Errorf("Alnum(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// lowerReference prints, over every code point Python's Unicode database
// assigns (surrogates aside): the ranges assigned, chr(c).lower() where it
// differs from chr(c), the code points str.isalnum() accepts, and two
// probes of the Final_Sigma rule: the c for which "AΣ"+c keeps a medial σ
// (c cased, not case-ignorable) and those for which "A"+c+"Σ" gives a final
// ς (c case-ignorable or cased).
const lowerReference = `import json, sys, unicodedata
assigned, lower, alnum, medial, final = [], {}, [], [], []
for c in range(0x110000):
    if 0xD800 <= c <= 0xDFFF:
        continue
    ch = chr(c)
    if unicodedata.category(ch) == "Cn":
        continue
    if assigned and assigned[-1][1] == c - 1:
        assigned[-1][1] = c
    else:
        assigned.append([c, c])
    if ch.lower() != ch:
        lower[str(c)] = ch.lower()
    if ch.isalnum():
        alnum.append(c)
    if ("A\u03a3" + ch).lower()[1] == "\u03c3":
        medial.append(c)
    if ("A" + ch + "\u03a3").lower()[-1] == "\u03c2":
        final.append(c)
json.load(sys.stdin)
print(json.dumps({"assigned": assigned, "lower": lower, "alnum": alnum, "medial": medial, "final": final}), end="")`

// TestLowerMatchesPython compares Lower, Alnum and the Final_Sigma
// properties with Python's over every code point both Unicode databases
// assign (Go's and Python's may be of different Unicode versions).
// Skipped when python3 is not on PATH.
func TestLowerMatchesPython(t *testing.T) {
	t.Parallel()
	var py struct {
		Assigned [][2]rune
		Lower    map[rune]string
		Alnum    []rune
		Medial   []rune
		Final    []rune
	}
	dbtest.Python(t, lowerReference, struct{}{}, &py)
	set := func(rs []rune) map[rune]bool {
		m := make(map[rune]bool, len(rs))
		for _, r := range rs {
			m[r] = true
		}
		return m
	}
	alnum, medial, final := set(py.Alnum), set(py.Medial), set(py.Final)
	goAssigned := func(r rune) bool {
		return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z,
			unicode.Cc, unicode.Cf, unicode.Co)
	}
	checked, bad := 0, 0
	for _, rg := range py.Assigned {
		for r := rg[0]; r <= rg[1]; r++ {
			if !goAssigned(r) {
				continue
			}
			checked++
			s := string(r)
			want, ok := py.Lower[r]
			if !ok {
				want = s
			}
			errs := 0
			if got := Lower(s); got != want {
				t.Errorf("Lower(%U) = %q, Python %q", r, got, want)
				errs++
			}
			if got := Alnum(s) == s; got != alnum[r] {
				t.Errorf("Alnum keeps %U: %v, Python isalnum %v", r, got, alnum[r])
				errs++
			}
			if got := !caseIgnorable(r) && cased(r); got != medial[r] {
				t.Errorf("%U cased and not case-ignorable: %v, Python %v", r, got, medial[r])
				errs++
			}
			if got := caseIgnorable(r) || cased(r); got != final[r] {
				t.Errorf("%U case-ignorable or cased: %v, Python %v", r, got, final[r])
				errs++
			}
			if errs > 0 {
				if bad++; bad > 20 {
					t.Fatalf("too many differences (%d code points checked)", checked)
				}
			}
		}
	}
	if checked < 100_000 {
		t.Errorf("only %d code points checked", checked)
	}
}
