package pytext

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// pythonSpaces is every code point for which CPython 3.11's str.isspace() is true (and
// re.match(r'\s', c) matches), enumerated over the whole code space.
var pythonSpaces = []rune{
	0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
	0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
}

func TestIsSpaceAllCodePoints(t *testing.T) {
	t.Parallel()
	want := make(map[rune]bool, len(pythonSpaces))
	for _, r := range pythonSpaces {
		want[r] = true
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got := IsSpace(r); got != want[r] {
			t.Errorf("IsSpace(%U) = %v; want %v", r, got, want[r])
		}
	}
	for _, r := range []rune{-1, utf8.RuneError, unicode.MaxRune + 1, 0x180e, 0x200b, 0xfeff} {
		if IsSpace(r) {
			t.Errorf("IsSpace(%U) = true; want false", r)
		}
	}
}

func TestStrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"Empty", "", ""},
		{"OnlySpace", " \t\n\r\v\f", ""},
		{"ASCII", "  hello world \n", "hello world"},
		{"InteriorKept", " a \t b ", "a \t b"},
		{"InformationSeparators", "\x1c\x1d\x1ehi\x1f", "hi"},
		{"UnicodeSpaces", "\u00a0\u3000\u2003hi\u2028\u2029\u0085\u202f\u205f\u1680", "hi"},
		{"ZeroWidthIsNotSpace", "\u200bhi\ufeff", "\u200bhi\ufeff"},
		{"MongolianVowelSeparatorIsNotSpace", "\u180ehi", "\u180ehi"},
		{"InvalidUTF8Kept", " \xffhi\xfe ", "\xffhi\xfe"},
		{"NoSpace", "通信", "通信"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Strip(tt.in); got != tt.want {
				t.Errorf("Strip(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}
