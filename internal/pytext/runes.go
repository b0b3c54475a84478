package pytext

import "unicode/utf8"

// RuneCount returns the length of s in code points, like Python's len(s).
func RuneCount(s string) int {
	return utf8.RuneCountInString(s)
}

// Truncate returns the first n code points of s, like Python's s[:n]: all of s when it has at
// most n code points, and for negative n all but the last -n code points ("" when that is
// none). It never splits a multi-byte character.
func Truncate(s string, n int) string {
	if n < 0 {
		n += utf8.RuneCountInString(s)
		if n <= 0 {
			return ""
		}
	}
	if n >= len(s) { // a code point takes at least one byte
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
