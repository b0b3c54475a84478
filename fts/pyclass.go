package fts

import (
	"unicode"

	"github.com/hermesstate/hermesstate/internal/pytext"
)

// Python's character classes for str patterns and str methods, written out
// by hand: Go's regexp classes \w, \s and \b are ASCII-only, Python's are
// Unicode-aware. The original runs on Python 3.11 (Unicode 14); these use
// Go's tables (Unicode 15), which agree on every code point Unicode 14
// assigns.

// isWord reports whether r matches Python's \w in a str pattern: a letter
// (category L*), anything with a numeric value (Nd, Nl, No) or '_'. Marks
// (Mn, Mc) are not word characters in Python.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// isSpace reports whether r matches Python's \s in a str pattern, which is
// also what str.isspace, str.strip() and str.split() use (one definition for
// the module: pytext.IsSpace).
func isSpace(r rune) bool { return pytext.IsSpace(r) }

// isBoundary reports whether Python's \b holds before s[i]: exactly one of
// s[i-1] and s[i] is a word character, where positions outside s count as
// non-word.
func isBoundary(s []rune, i int) bool {
	before := i > 0 && isWord(s[i-1])
	after := i < len(s) && isWord(s[i])
	return before != after
}

// strip is Python's str.strip() with no argument.
func strip(s []rune) []rune {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// isBlank reports whether s is empty or Python whitespace only, the
// original's `not query or not query.strip()`.
func isBlank(s string) bool {
	for _, r := range s {
		if !isSpace(r) {
			return false
		}
	}
	return true
}
