package pytext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lower returns s lowercased as Python's str.lower() does: every code point
// takes its full lowercase mapping, which differs from Go's
// strings.ToLower (the simple mapping) in two places only: U+0130 (İ)
// becomes "i\u0307", and a capital sigma (Σ) in the Final_Sigma context
// (after a cased letter, ignoring case-ignorable ones, and not before one)
// becomes ς, not σ. Invalid UTF-8 bytes are copied through unchanged.
func Lower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteByte(s[i])
		case r == '\u0130':
			b.WriteString("i\u0307")
		case r == 'Σ' && finalSigma(s, i, i+size):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		i += size
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at s[start:end] is in the
// Final_Sigma context, as CPython's handle_capital_sigma decides it: the
// nearest code point before it that is not case-ignorable exists and is
// cased, and the nearest one after it that is not case-ignorable does not
// exist or is not cased.
func finalSigma(s string, start, end int) bool {
	before := false
	for i := start; i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if !caseIgnorable(r) {
			before = cased(r)
			break
		}
	}
	if !before {
		return false
	}
	for _, r := range s[end:] {
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// cased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk,
// or a Word_Break MidLetter, MidNumLet or Single_Quote character (listed:
// Go's unicode package has no Word_Break tables).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// Alnum returns s keeping only the code points Python's str.isalnum()
// accepts (letters and numbers: categories L and N), which is what
// re.sub(r"[\W_]+", "", s) leaves: Python's \w is those plus "_". Invalid
// UTF-8 bytes are dropped.
func Alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
