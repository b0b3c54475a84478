package pytext

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSanitizeTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string // exact error text; "" for success
	}{
		// reference-tests.md A.11 TestSanitizeTitle (the two set_session_title cases reduced
		// to their sanitize_title part; None in Python is "" here).
		{name: "NormalTitleUnchanged", in: "My Project", want: "My Project"},
		{name: "StripsWhitespace", in: "  hello world  ", want: "hello world"},
		{name: "CollapsesInternalWhitespace", in: "hello   world", want: "hello world"},
		{name: "TabsAndNewlinesCollapsed", in: "hello\t\nworld", want: "hello world"},
		{name: "NoneReturnsNone", in: "", want: ""},
		{name: "EmptyStringReturnsNone", in: "", want: ""},
		{name: "WhitespaceOnlyReturnsNone", in: "   \t\n  ", want: ""},
		{name: "ControlCharsStrippedNUL", in: "hello\x00world", want: "helloworld"},
		{name: "ControlCharsStrippedBellBackspaceEscape", in: "\x07\x08test\x1b", want: "test"},
		{name: "DelCharStripped", in: "hello\x7fworld", want: "helloworld"},
		{name: "ZeroWidthSpaceStripped", in: "hello\u200bworld", want: "helloworld"},
		{name: "ZeroWidthJoinerStripped", in: "hello\u200dworld", want: "helloworld"},
		{name: "RTLOverrideStripped", in: "hello\u202eworld", want: "helloworld"},
		{name: "BOMStripped", in: "\ufeffhello", want: "hello"},
		{name: "OnlyControlCharsReturnsNone", in: "\x00\x01\x02\u200b\ufeff", want: ""},
		{name: "MaxLengthAllowed", in: strings.Repeat("A", 100), want: strings.Repeat("A", 100)},
		{name: "ExceedsMaxLengthRaises", in: strings.Repeat("A", 101), wantErr: "Title too long (101 chars, max 100)"},
		{name: "UnicodeEmojiAllowed", in: "🚀 My Project 🎉", want: "🚀 My Project 🎉"},
		{name: "CJKCharactersAllowed", in: "我的项目", want: "我的项目"},
		{name: "AccentedCharactersAllowed", in: "Résumé éditing", want: "Résumé éditing"},
		{name: "SpecialPunctuationAllowed", in: "PR #438 — fixing the 'auth' middleware", want: "PR #438 — fixing the 'auth' middleware"},
		{name: "SanitizeAppliedInSetSessionTitle", in: "  hello\x00  world  ", want: "hello world"},
		{name: "TooLongTitleRejectedBySet", in: strings.Repeat("X", 150), wantErr: "Title too long (150 chars, max 100)"},

		// spec §12.1 Unicode edge cases.
		{name: "NBSPAndIdeographicSpace", in: "a\u00a0\u00a0b\u3000c", want: "a b c"},
		{name: "NextLine", in: "a\u0085b", want: "a b"},
		{name: "EnQuadToHairSpace", in: "a\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200ab", want: "a b"},
		{name: "NarrowNBSP", in: "a\u202fb", want: "a b"},
		{name: "MediumMathematicalSpace", in: "a\u205fb", want: "a b"},
		{name: "OghamSpaceMark", in: "a\u1680b", want: "a b"},
		{name: "LeadingTrailingUnicodeSpaces", in: "\u3000\u00a0title\u0085\u2003", want: "title"},
		{name: "VerticalTabRemovedNotCollapsed", in: "a\vb", want: "ab"},
		{name: "FormFeedRemovedNotCollapsed", in: "a\fb", want: "ab"},
		{name: "FileSeparatorRemovedNotCollapsed", in: "a\x1cb\x1dc\x1ed\x1fe", want: "abcde"},
		{name: "LineSeparatorRemovedNotCollapsed", in: "a\u2028b\u2029c", want: "abc"},
		{name: "RemovalJoinsWhitespaceRuns", in: "a \u200b \x00 b", want: "a b"},
		{name: "CRLFCollapsed", in: "a\r\n\r\nb", want: "a b"},
		{name: "OtherInvisiblesRemoved", in: "\u2060a\u2066b\u2069\ufffcc\ufff9\ufffa\ufffb", want: "abc"},
		{name: "ReplacementCharKept", in: "a\ufffdb", want: "a\ufffdb"},
		{name: "MongolianVowelSeparatorKept", in: "a\u180eb", want: "a\u180eb"},
		{name: "CJK100Allowed", in: strings.Repeat("语", 100), want: strings.Repeat("语", 100)},
		{name: "CJK101Rejected", in: strings.Repeat("语", 101), wantErr: "Title too long (101 chars, max 100)"},
		{name: "Emoji100Allowed", in: strings.Repeat("🚀", 100), want: strings.Repeat("🚀", 100)},
		{name: "Emoji101Rejected", in: strings.Repeat("🚀", 101), wantErr: "Title too long (101 chars, max 100)"},
		{name: "CombiningAccentsCountSeparately", in: strings.Repeat("e\u0301", 51), wantErr: "Title too long (102 chars, max 100)"},
		{name: "CombiningAccentsKept", in: "Re\u0301sume\u0301", want: "Re\u0301sume\u0301"},
		{name: "ZWJSequenceLosesZWJ", in: "👩\u200d💻 dev", want: "👩💻 dev"},
		{name: "LengthCountedAfterCleaning", in: "  " + strings.Repeat("A", 100) + "\u200b\x00  ", want: strings.Repeat("A", 100)},
		{name: "CollapsedSpacesCount", in: strings.Repeat("a    ", 50), want: strings.TrimSuffix(strings.Repeat("a ", 50), " ")},
		{name: "CollapsedSpacesCountOverLimit", in: strings.Repeat("a\t\t", 51), wantErr: "Title too long (101 chars, max 100)"},
		{name: "InvalidUTF8BecomesReplacementChar", in: "a\xffb", want: "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SanitizeTitle(tt.in)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("SanitizeTitle(%q) = %q, nil; want error %q", tt.in, got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("SanitizeTitle(%q) error = %q; want %q", tt.in, err, tt.wantErr)
				}
				if !errors.Is(err, ErrTitleTooLong) {
					t.Errorf("SanitizeTitle(%q) error %v does not wrap ErrTitleTooLong", tt.in, err)
				}
				if got != "" {
					t.Errorf("SanitizeTitle(%q) returned %q with the error; want empty", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("SanitizeTitle(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SanitizeTitle(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
