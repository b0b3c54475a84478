package pytext

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// referenceTitle is spec §7.1 written step by step, independently of
// SanitizeTitle's one-pass loop: drop the control and invisible
// characters, split at runs of whitespace, join with single spaces, and
// count what is left. Invalid bytes are read as U+FFFD, as SanitizeTitle
// reads them. It returns the title and its length in code points.
func referenceTitle(title string) (string, int) {
	var kept strings.Builder
	for _, r := range title {
		if !isTitleControl(r) && !isTitleInvisible(r) {
			kept.WriteRune(r)
		}
	}
	clean := strings.Join(strings.FieldsFunc(kept.String(), IsSpace), " ")
	return clean, utf8.RuneCountInString(clean)
}

// FuzzSanitizeTitle checks SanitizeTitle against referenceTitle for any
// input, and its promises: it never panics; its result is valid UTF-8, at
// most MaxTitleLength code points, free of control and invisible
// characters, with single inner spaces and no whitespace at the ends; it
// is idempotent; and a longer title fails with ErrTitleTooLong and the
// original's message.
func FuzzSanitizeTitle(f *testing.F) {
	for _, s := range []string{
		"", " ", "title", "  my   project  ", "a\u00a0\u00a0b\u3000c", "tab\there\nnew\rline",
		"\x00\x01\x1f\x7f", "a\x0bb\x0cc", "a\x1cb", "\u200bzero\u200fwidth\u2060", "\u202eevil\u202c", "\ufeffbom",
		"\ufffcobj\ufff9\ufffb", "a\u2028b\u2029c", "\x85next", "emoji 🙂 and 中文", "e\u0301", "\xff\xfe", "a\xffb",
		"'); DROP TABLE sessions;--", "100% _done_ \\", strings.Repeat("x", 100), strings.Repeat("x", 101),
		strings.Repeat("é", 100) + " ", strings.Repeat("a ", 51), strings.Repeat(" \u200b", 200) + "x",
		strings.Repeat("\xff", 101), strings.Repeat("🙂", 101),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		got, err := SanitizeTitle(title)
		want, n := referenceTitle(title)
		if n > MaxTitleLength {
			var tooLong *titleTooLongError
			if !errors.Is(err, ErrTitleTooLong) || !errors.As(err, &tooLong) || tooLong.length != n {
				t.Fatalf("SanitizeTitle(%q) = %q, %v; want ErrTitleTooLong for %d code points", title, got, err, n)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("SanitizeTitle(%q) = %q, %v; want %q", title, got, err, want)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("SanitizeTitle(%q) = %q: invalid UTF-8", title, got)
		}
		for i, r := range got {
			if isTitleControl(r) || isTitleInvisible(r) || IsSpace(r) && (r != ' ' || i == 0 || i == len(got)-1 || got[i+1] == ' ') {
				t.Fatalf("SanitizeTitle(%q) = %q: %U left at byte %d", title, got, r, i)
			}
		}
		if again, err := SanitizeTitle(got); again != got || err != nil {
			t.Fatalf("SanitizeTitle is not idempotent: %q → %q → %q, %v", title, got, again, err)
		}
	})
}
