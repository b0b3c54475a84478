package pytext

import (
	"errors"
	"fmt"
	"strings"
)

// MaxTitleLength is the longest session title, in code points, SanitizeTitle accepts.
const MaxTitleLength = 100

// ErrTitleTooLong is wrapped by the error SanitizeTitle returns for a title longer than
// MaxTitleLength code points after cleaning.
var ErrTitleTooLong = errors.New("title too long")

// titleTooLongError carries the original's exact ValueError message.
type titleTooLongError struct{ length int }

func (e *titleTooLongError) Error() string {
	return fmt.Sprintf("Title too long (%d chars, max %d)", e.length, MaxTitleLength)
}

func (e *titleTooLongError) Unwrap() error { return ErrTitleTooLong }

// SanitizeTitle is the original's SessionDB.sanitize_title (spec §7.1). In order it:
//  1. returns "" for "" (Python returns None);
//  2. removes the control characters [\x00-\x08\x0b\x0c\x0e-\x1f\x7f];
//  3. removes the invisible characters [\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffc\ufff9-\ufffb];
//  4. replaces each run of Python whitespace (see IsSpace) with one ASCII space and strips;
//  5. returns "" when nothing is left (Python returns None);
//  6. fails when more than MaxTitleLength code points are left.
//
// Because steps 2 and 3 run first, \v, \f, \x1c–\x1f, \u2028 and \u2029 are deleted rather than
// turned into a space. It returns the cleaned title, or an error wrapping ErrTitleTooLong whose
// message is exactly Python's, e.g. "Title too long (101 chars, max 100)". Each invalid UTF-8
// byte in title becomes U+FFFD in the result and counts as one code point.
func SanitizeTitle(title string) (string, error) {
	if title == "" {
		return "", nil
	}
	var b strings.Builder
	b.Grow(len(title))
	n := 0           // code points written
	pending := false // whitespace seen since the last written code point
	for _, r := range title {
		switch {
		case isTitleControl(r) || isTitleInvisible(r):
			// Deleted before whitespace is collapsed: does not end a whitespace run.
		case IsSpace(r):
			pending = true
		default:
			if pending && n > 0 { // leading whitespace is stripped
				b.WriteByte(' ')
				n++
			}
			pending = false
			b.WriteRune(r)
			n++
		}
	}
	// Trailing whitespace is stripped simply by never writing the pending space.
	if n > MaxTitleLength {
		return "", &titleTooLongError{length: n}
	}
	return b.String(), nil
}

// isTitleControl matches sanitize_title's [\x00-\x08\x0b\x0c\x0e-\x1f\x7f].
func isTitleControl(r rune) bool {
	return r <= 0x08 || r == 0x0b || r == 0x0c || (0x0e <= r && r <= 0x1f) || r == 0x7f
}

// isTitleInvisible matches sanitize_title's
// [\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffc\ufff9-\ufffb].
func isTitleInvisible(r rune) bool {
	switch {
	case 0x200b <= r && r <= 0x200f, 0x2028 <= r && r <= 0x202e, 0x2060 <= r && r <= 0x2069:
		return true
	case r == 0xfeff, r == 0xfffc, 0xfff9 <= r && r <= 0xfffb:
		return true
	}
	return false
}
