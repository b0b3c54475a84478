package pytext

import "strings"

// IsSpace reports whether r is whitespace for Python's str.isspace() and for re's \s in str
// patterns (the two sets are identical): \t \n \v \f \r, \x1c–\x1f, space, \x85, \xa0,
// \u1680, \u2000–\u200a, \u2028, \u2029, \u202f, \u205f and \u3000.
func IsSpace(r rune) bool {
	switch {
	case r <= ' ':
		return r == ' ' || ('\t' <= r && r <= '\r') || (0x1c <= r && r <= 0x1f)
	case r < 0x85:
		return false
	case r == 0x85, r == 0xa0, r == 0x1680:
		return true
	case 0x2000 <= r && r <= 0x200a:
		return true
	case r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// Strip returns s without leading and trailing Python whitespace, like Python's str.strip()
// with no arguments.
func Strip(s string) string {
	return strings.TrimFunc(s, IsSpace)
}

// pySpace is a Go regexp character class matching exactly the runes IsSpace accepts, i.e.
// Python re's \s for str patterns.
const pySpace = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`
