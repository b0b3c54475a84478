// Package pytext reproduces the Python str semantics the session-store port depends on
// (spec §7.1, §8.4, §12.1): Unicode whitespace as Python's str.isspace() and re's \s see it,
// str.strip(), code-point lengths and slices, and the original's sanitize_title and
// sanitize_context helpers.
//
// Go differs from Python here: unicode.IsSpace omits \x1c–\x1f, Go regexp's \s, \w and \b are
// ASCII-only, (?i) does not fold i to İ/ı as Python's re.IGNORECASE does, and len() and
// slicing count bytes, not code points. Every function in this package counts and slices in
// code points and uses Python's whitespace set.
//
// Invalid UTF-8: a Python str cannot hold it, so there is no reference behaviour. This package
// treats each invalid byte as one code point U+FFFD, which is what ranging over a Go string
// yields: it is never whitespace, it counts as one code point, and SanitizeTitle writes it out
// as U+FFFD (its result is always valid UTF-8). Strip, Truncate and SanitizeContext copy such
// bytes through unchanged where they keep them.
//
// It holds Python's string rules only: it must not decide what the store
// accepts (the store calls it), and it never touches a database.
package pytext
