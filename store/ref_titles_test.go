package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Ports of the reference's title tests (reference-tests.md A.10, A.11,
// A.13, A.14, A.15) and the title edge cases of spec §7.1, §7.5, §7.6 and
// §12.1. Every expected value below was checked against hermes_state.py at
// the reference commit.

// steppingClock returns a clock for Options.Now that starts at start and
// moves step forward on every call: it stands in for the reference tests'
// time.sleep(0.01) between writes whose started_at order matters.
func steppingClock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	next := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := next
		next = next.Add(step)
		return t
	}
}

// refEpoch is 2026-01-01T00:00:00Z, the start of the controlled clocks.
var refEpoch = time.Unix(1767225600, 0)

// createSessions creates cli sessions with the given ids, in order.
func createSessions(t *testing.T, s *Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, err := s.CreateSession(context.Background(), NewSession{ID: id, Source: "cli"}); err != nil {
			t.Fatalf("CreateSession(%q): %v", id, err)
		}
	}
}

// setTitle sets a title and fails the test on error.
func setTitle(t *testing.T, s *Store, id, title string) {
	t.Helper()
	if err := s.SetSessionTitle(context.Background(), id, title); err != nil {
		t.Fatalf("SetSessionTitle(%q, %q): %v", id, title, err)
	}
}

// titled creates one cli session per (id, title) pair, in order, each
// titled; with a stepping clock each starts later than the one before.
func titled(t *testing.T, s *Store, pairs ...[2]string) {
	t.Helper()
	for _, p := range pairs {
		createSessions(t, s, p[0])
		setTitle(t, s, p[0], p[1])
	}
}

// sessionTitleOf reads the title column through GetSession (nil for NULL).
func sessionTitleOf(t *testing.T, s *Store, id string) *string {
	t.Helper()
	sess, err := s.GetSession(context.Background(), id)
	if err != nil {
		t.Fatalf("GetSession(%q): %v", id, err)
	}
	return sess.Title
}

func wantTitle(t *testing.T, s *Store, id string, want *string) {
	t.Helper()
	if diff := cmp.Diff(want, sessionTitleOf(t, s, id)); diff != "" {
		t.Errorf("title of %q (-want +got):\n%s", id, diff)
	}
}

func resolveTitle(t *testing.T, s *Store, title string) string {
	t.Helper()
	id, err := s.ResolveSessionByTitle(context.Background(), title)
	if err != nil {
		t.Fatalf("ResolveSessionByTitle(%q): %v", title, err)
	}
	return id
}

func nextTitle(t *testing.T, s *Store, base string) string {
	t.Helper()
	next, err := s.NextTitleInLineage(context.Background(), base)
	if err != nil {
		t.Fatalf("NextTitleInLineage(%q): %v", base, err)
	}
	return next
}

// upstream: TestSessionTitle (all 10 tests, one subtest each, named after them).
//
// TestSessionTitle is A.10 TestSessionTitle.
func TestSessionTitle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("SetAndGetTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		if err := s.SetSessionTitle(ctx, "s1", "My Session"); err != nil {
			t.Fatalf("SetSessionTitle = %v, want nil (True)", err)
		}
		wantTitle(t, s, "s1", new("My Session"))
	})

	t.Run("SetTitleNonexistentSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if err := s.SetSessionTitle(ctx, "nonexistent", "Title"); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("SetSessionTitle(nonexistent) = %v, want ErrSessionNotFound (False)", err)
		}
	})

	t.Run("TitleInitiallyNone", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		wantTitle(t, s, "s1", nil)
	})

	t.Run("UpdateTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "First Title")
		setTitle(t, s, "s1", "Updated Title")
		wantTitle(t, s, "s1", new("Updated Title"))
	})

	t.Run("TitleInSearchSessions", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "Debugging Auth")
		createSessions(t, s, "s2")
		sessions, err := s.SearchSessions(ctx, "", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range sessions {
			if r.Title != nil && *r.Title == "Debugging Auth" {
				ids = append(ids, r.ID)
			}
		}
		if diff := cmp.Diff([]string{"s1"}, ids); diff != "" {
			t.Errorf("sessions titled Debugging Auth (-want +got):\n%s", diff)
		}
	})

	t.Run("TitleInExport", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "Export Test")
		if _, err := s.AppendMessage(ctx, "s1", NewMessage{Role: "user", Content: new("Hello")}); err != nil {
			t.Fatal(err)
		}
		export, err := s.ExportSession(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(new("Export Test"), export.Title); diff != "" {
			t.Errorf("export title (-want +got):\n%s", diff)
		}
	})

	t.Run("TitleWithSpecialCharacters", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		title := "PR #438 — fixing the 'auth' middleware"
		setTitle(t, s, "s1", title)
		wantTitle(t, s, "s1", &title)
	})

	t.Run("TitleEmptyStringNormalizedToNone", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "My Title")
		setTitle(t, s, "s1", "")
		wantTitle(t, s, "s1", nil)
	})

	t.Run("MultipleEmptyTitlesNoConflict", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1", "s2")
		setTitle(t, s, "s1", "")
		setTitle(t, s, "s2", "")
		wantTitle(t, s, "s1", nil)
		wantTitle(t, s, "s2", nil)
	})

	t.Run("TitleSurvivesEndSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "Before End")
		if err := s.EndSession(ctx, "s1", "user_exit"); err != nil {
			t.Fatal(err)
		}
		sess, err := s.GetSession(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(new("Before End"), sess.Title); diff != "" {
			t.Errorf("title (-want +got):\n%s", diff)
		}
		if sess.EndedAt == nil {
			t.Error("ended_at is NULL, want set")
		}
	})
}

// upstream: TestSanitizeTitle (all 21 tests, one subtest each, named after them).
//
// TestSanitizeTitle is A.11 TestSanitizeTitle. Python's None is "" here.
func TestSanitizeTitle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	same := func(in string) [2]string { return [2]string{in, in} }
	// Each subtest: pairs of input and wanted output.
	for _, tc := range []struct {
		name  string
		pairs [][2]string
	}{
		{"NormalTitleUnchanged", [][2]string{same("My Project")}},
		{"StripsWhitespace", [][2]string{{"  hello world  ", "hello world"}}},
		{"CollapsesInternalWhitespace", [][2]string{{"hello   world", "hello world"}}},
		{"TabsAndNewlinesCollapsed", [][2]string{{"hello\t\nworld", "hello world"}}},
		{"NoneReturnsNone", [][2]string{{"", ""}}},
		{"EmptyStringReturnsNone", [][2]string{{"", ""}}},
		{"WhitespaceOnlyReturnsNone", [][2]string{{"   \t\n  ", ""}}},
		{"ControlCharsStripped", [][2]string{{"hello\x00world", "helloworld"}, {"\x07\x08test\x1b", "test"}}},
		{"DelCharStripped", [][2]string{{"hello\x7fworld", "helloworld"}}},
		{"ZeroWidthCharsStripped", [][2]string{{"hello\u200bworld", "helloworld"}, {"hello\u200dworld", "helloworld"}}},
		{"RtlOverrideStripped", [][2]string{{"hello\u202eworld", "helloworld"}}},
		{"BomStripped", [][2]string{{"\ufeffhello", "hello"}}},
		{"OnlyControlCharsReturnsNone", [][2]string{{"\x00\x01\x02\u200b\ufeff", ""}}},
		{"MaxLengthAllowed", [][2]string{same(strings.Repeat("A", 100))}},
		{"UnicodeEmojiAllowed", [][2]string{same("🚀 My Project 🎉")}},
		{"CjkCharactersAllowed", [][2]string{same("我的项目")}},
		{"AccentedCharactersAllowed", [][2]string{same("Résumé éditing")}},
		{"SpecialPunctuationAllowed", [][2]string{same("PR #438 — fixing the 'auth' middleware")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range tc.pairs {
				got, err := SanitizeTitle(p[0])
				if err != nil || got != p[1] {
					t.Errorf("SanitizeTitle(%q) = %q, %v; want %q, nil", p[0], got, err, p[1])
				}
			}
		})
	}

	t.Run("ExceedsMaxLengthRaises", func(t *testing.T) {
		t.Parallel()
		got, err := SanitizeTitle(strings.Repeat("A", 101))
		if !errors.Is(err, ErrTitleTooLong) || !strings.Contains(err.Error(), "Title too long (101 chars, max 100)") {
			t.Errorf("SanitizeTitle(A*101) = %q, %v; want ErrTitleTooLong \"Title too long (101 chars, max 100)\"", got, err)
		}
	})

	t.Run("SanitizeAppliedInSetSessionTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "  hello\x00  world  ")
		wantTitle(t, s, "s1", new("hello world"))
	})

	t.Run("TooLongTitleRejectedBySet", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		err := s.SetSessionTitle(ctx, "s1", strings.Repeat("X", 150))
		if !errors.Is(err, ErrTitleTooLong) || !strings.Contains(err.Error(), "Title too long (150 chars, max 100)") {
			t.Errorf("SetSessionTitle(X*150) = %v; want ErrTitleTooLong \"Title too long (150 chars, max 100)\"", err)
		}
		wantTitle(t, s, "s1", nil)
	})
}

// TestSanitizeTitleUnicode covers spec §7.1 and §12.1: Python's Unicode \s
// collapses to one space, steps 2 and 3 delete control and invisible
// characters before whitespace is collapsed, and lengths are code points.
func TestSanitizeTitleUnicode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
		err            string // wanted error text; "" for none
	}{
		{name: "NBSPAndIdeographicSpace", in: "a\u00a0\u00a0b\u3000c", want: "a b c"},
		{name: "NEL", in: "a\u0085b", want: "a b"},
		{name: "EnQuadToHairSpace", in: "a\u2000b\u2001c\u2002d\u2003e\u2004f\u2005g\u2006h\u2007i\u2008j\u2009k\u200al", want: "a b c d e f g h i j k l"},
		{name: "NarrowNBSP", in: "a\u202fb", want: "a b"},
		{name: "MediumMathematicalSpace", in: "a\u205fb", want: "a b"},
		{name: "OghamSpaceMark", in: "a\u1680b", want: "a b"},
		{name: "MixedWhitespaceRun", in: "a\t\u00a0\n\u3000b", want: "a b"},
		{name: "CRLF", in: "a\r\nb", want: "a b"},
		{name: "LeadingTrailingUnicodeSpace", in: "\u00a0 lead and trail \u3000", want: "lead and trail"},
		// Step 2 removes \v \f \x1c-\x1f before whitespace is collapsed.
		{name: "VerticalTabRemoved", in: "a\vb", want: "ab"},
		{name: "FormFeedRemoved", in: "a\fb", want: "ab"},
		{name: "FileGroupRecordUnitSeparatorsRemoved", in: "a\x1cb\x1dc\x1ed\x1ff", want: "abcdf"},
		// Step 3 removes U+2028/U+2029 although Python counts them as \s.
		{name: "LineParagraphSeparatorsRemoved", in: "a\u2028b\u2029c", want: "abc"},
		{name: "SeparatorBetweenSpaces", in: "a \u2028 b", want: "a b"},
		{name: "ZeroWidthAndMarks", in: "x\u200b\u200c\u200d\u200e\u200fy", want: "xy"},
		{name: "BidiEmbeddingsAndOverrides", in: "x\u202a\u202b\u202c\u202d\u202ey", want: "xy"},
		{name: "WordJoinerAndIsolates", in: "x\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069y", want: "xy"},
		{name: "BOMBothEnds", in: "\ufeffhi\ufeff", want: "hi"},
		{name: "ObjectReplacementAndAnnotations", in: "x\ufffc\ufff9\ufffa\ufffby", want: "xy"},
		{name: "InvisibleInsideSpaceRun", in: "a \u200b b", want: "a b"},
		{name: "InvisibleThenNBSP", in: "a\u200b\u00a0b", want: "a b"},
		{name: "ZWJEmojiSequenceLosesJoiners", in: "👨\u200d👩\u200d👧", want: "👨👩👧"},
		{name: "SkinToneModifierKept", in: "👍🏽 ok", want: "👍🏽 ok"},
		{name: "OnlyNBSP", in: "\u00a0", want: ""},
		{name: "OnlySeparators", in: "\u3000\u2028\u2029", want: ""},
		{name: "OnlyNELAndSpaces", in: " \u0085 ", want: ""},
		{name: "CJK100", in: strings.Repeat("我", 100), want: strings.Repeat("我", 100)},
		{name: "CJK101", in: strings.Repeat("我", 101), err: "Title too long (101 chars, max 100)"},
		{name: "Emoji100", in: strings.Repeat("🚀", 100), want: strings.Repeat("🚀", 100)},
		{name: "Emoji101", in: strings.Repeat("😀", 101), err: "Title too long (101 chars, max 100)"},
		{name: "CombiningMarks100CodePoints", in: strings.Repeat("e\u0301", 50), want: strings.Repeat("e\u0301", 50)},
		{name: "CombiningMarks102CodePoints", in: strings.Repeat("e\u0301", 51), err: "Title too long (102 chars, max 100)"},
		{name: "RemovedCharsDoNotCount", in: strings.Repeat("A", 100) + "\u200b\ufeff\x00  ", want: strings.Repeat("A", 100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := SanitizeTitle(tc.in)
			if tc.err != "" {
				if !errors.Is(err, ErrTitleTooLong) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("SanitizeTitle(%q) = %q, %v; want ErrTitleTooLong %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("SanitizeTitle(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

// upstream: TestTitleUniqueness (all 7 tests, one subtest each, named after them).
//
// TestTitleUniqueness is A.13 TestTitleUniqueness.
func TestTitleUniqueness(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("DuplicateTitleRaises", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1", "s2")
		setTitle(t, s, "s1", "my project")
		err := s.SetSessionTitle(ctx, "s2", "my project")
		if !errors.Is(err, ErrTitleInUse) {
			t.Fatalf("SetSessionTitle(s2, taken) = %v, want ErrTitleInUse", err)
		}
		var inUse *TitleInUseError
		if !errors.As(err, &inUse) {
			t.Fatalf("error %v is not a *TitleInUseError", err)
		}
		if got, want := inUse.Error(), "Title 'my project' is already in use by session s1"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if !strings.Contains(err.Error(), "already in use") {
			t.Errorf("err.Error() = %q, want it to contain \"already in use\"", err)
		}
		wantTitle(t, s, "s2", nil)
	})

	t.Run("SameSessionCanKeepTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "my project")
		if err := s.SetSessionTitle(ctx, "s1", "my project"); err != nil {
			t.Errorf("re-setting own title = %v, want nil (True)", err)
		}
	})

	t.Run("NullTitlesNotUnique", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1", "s2")
		wantTitle(t, s, "s1", nil)
		wantTitle(t, s, "s2", nil)
	})

	t.Run("GetSessionByTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "refactoring auth")
		sess, err := s.SessionByTitle(ctx, "refactoring auth")
		if err != nil {
			t.Fatal(err)
		}
		if sess.ID != "s1" {
			t.Errorf("SessionByTitle.ID = %q, want s1", sess.ID)
		}
	})

	t.Run("GetSessionByTitleNotFound", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if sess, err := s.SessionByTitle(ctx, "nonexistent"); !errors.Is(err, ErrNotFound) {
			t.Errorf("SessionByTitle(nonexistent) = %v, %v; want ErrNotFound (None)", sess, err)
		}
	})

	t.Run("GetSessionTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		if got, err := s.SessionTitle(ctx, "s1"); err != nil || got != "" {
			t.Errorf("SessionTitle before = %q, %v; want \"\" (None)", got, err)
		}
		setTitle(t, s, "s1", "my title")
		if got, err := s.SessionTitle(ctx, "s1"); err != nil || got != "my title" {
			t.Errorf("SessionTitle after = %q, %v; want \"my title\"", got, err)
		}
	})

	t.Run("GetSessionTitleNonexistent", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if got, err := s.SessionTitle(ctx, "nonexistent"); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("SessionTitle(nonexistent) = %q, %v; want ErrSessionNotFound (None)", got, err)
		}
	})
}

// upstream: TestTitleLineage (all 8 tests, one subtest each, named after them).
//
// TestTitleLineage is A.14 TestTitleLineage.
func TestTitleLineage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("ResolveExactTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "my project"})
		if got := resolveTitle(t, s, "my project"); got != "s1" {
			t.Errorf("resolve = %q, want s1", got)
		}
	})

	t.Run("ResolveReturnsLatestNumbered", func(t *testing.T) {
		t.Parallel()
		// The reference sleeps 10 ms between the sessions.
		s, _ := openStore(t, &Options{Now: steppingClock(refEpoch, 10*time.Millisecond)})
		titled(t, s, [2]string{"s1", "my project"}, [2]string{"s2", "my project #2"}, [2]string{"s3", "my project #3"})
		if got := resolveTitle(t, s, "my project"); got != "s3" {
			t.Errorf("resolve = %q, want s3", got)
		}
	})

	t.Run("ResolveExactNumbered", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "my project"}, [2]string{"s2", "my project #2"})
		if got := resolveTitle(t, s, "my project #2"); got != "s2" {
			t.Errorf("resolve = %q, want s2", got)
		}
	})

	t.Run("ResolveNonexistentTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if id, err := s.ResolveSessionByTitle(ctx, "nonexistent"); !errors.Is(err, ErrNotFound) {
			t.Errorf("resolve(nonexistent) = %q, %v; want ErrNotFound (None)", id, err)
		}
	})

	t.Run("NextTitleNoExisting", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if got := nextTitle(t, s, "my project"); got != "my project" {
			t.Errorf("next = %q, want %q", got, "my project")
		}
	})

	t.Run("NextTitleFirstContinuation", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "my project"})
		if got := nextTitle(t, s, "my project"); got != "my project #2" {
			t.Errorf("next = %q, want %q", got, "my project #2")
		}
	})

	t.Run("NextTitleIncrements", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "my project"}, [2]string{"s2", "my project #2"}, [2]string{"s3", "my project #3"})
		if got := nextTitle(t, s, "my project"); got != "my project #4" {
			t.Errorf("next = %q, want %q", got, "my project #4")
		}
	})

	t.Run("NextTitleStripsExistingNumber", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "my project"}, [2]string{"s2", "my project #2"})
		if got := nextTitle(t, s, "my project #2"); got != "my project #3" {
			t.Errorf("next = %q, want %q", got, "my project #3")
		}
	})
}

// upstream: TestTitleSqlWildcards (all 3 tests, one subtest each, named after them).
//
// TestTitleSqlWildcards is A.15 TestTitleSqlWildcards.
func TestTitleSqlWildcards(t *testing.T) {
	t.Parallel()

	t.Run("ResolveTitleWithUnderscore", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "test_project"}, [2]string{"s2", "testXproject #2"})
		if got := resolveTitle(t, s, "test_project"); got != "s1" {
			t.Errorf("resolve = %q, want s1", got)
		}
	})

	t.Run("ResolveTitleWithPercent", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "100% done"}, [2]string{"s2", "100X done #2"})
		if got := resolveTitle(t, s, "100% done"); got != "s1" {
			t.Errorf("resolve = %q, want s1", got)
		}
	})

	t.Run("NextLineageWithUnderscore", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		titled(t, s, [2]string{"s1", "test_project"}, [2]string{"s2", "testXproject #2"})
		if got := nextTitle(t, s, "test_project"); got != "test_project #2" {
			t.Errorf("next = %q, want %q", got, "test_project #2")
		}
	})
}

// TestTitleLineageEdgeCases covers the ⚠ cases of spec §7.5 and §7.6: the
// variant match is LIKE 'base #%' (ASCII case-insensitive, any suffix), the
// number is read with Python's Unicode \d and unbounded int, and a numbered
// title resolves to its exact row. Sessions start 1 s apart, in the order
// given.
func TestTitleLineageEdgeCases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := func(t *testing.T) *Store {
		s, _ := openStore(t, &Options{Now: steppingClock(refEpoch, time.Second)})
		return s
	}
	type check struct {
		resolve map[string]string // title → wanted id
		next    map[string]string // base → wanted next title
	}
	for _, tc := range []struct {
		name     string
		sessions [][2]string
		want     check
	}{
		{
			name:     "UpperCaseVariantCounts",
			sessions: [][2]string{{"s1", "my project"}, {"s2", "MY PROJECT #2"}},
			want: check{
				resolve: map[string]string{"my project": "s2", "MY PROJECT": "s2"},
				next:    map[string]string{"my project": "my project #3", "My Project": "My Project #3"},
			},
		},
		{
			name:     "NonNumericSuffixCounts",
			sessions: [][2]string{{"f", "foo #abc"}},
			want: check{
				resolve: map[string]string{"foo": "f"},
				next:    map[string]string{"foo": "foo #2"},
			},
		},
		{
			name:     "OnlyNumberedVariant",
			sessions: [][2]string{{"b", "bar #5"}},
			want: check{
				resolve: map[string]string{"bar": "b", "bar #5": "b"},
				next:    map[string]string{"bar": "bar #6", "bar #5": "bar #6", "bar #9": "bar #6"},
			},
		},
		{
			name:     "NoSessionsRepeatedSuffix",
			sessions: nil,
			want:     check{next: map[string]string{"x #2 #3": "x #2"}},
		},
		{
			name:     "RepeatedSuffix",
			sessions: [][2]string{{"x", "x #2 #3"}},
			want: check{
				resolve: map[string]string{"x #2": "x", "x": "x"},
				next:    map[string]string{"x #2 #3": "x #2 #4", "x #2": "x #4", "x": "x #4"},
			},
		},
		{
			name:     "ResolveNumberedFallsBackToExact",
			sessions: [][2]string{{"s1", "my project"}, {"s2", "my project #2"}, {"s3", "my project #3"}},
			want: check{
				resolve: map[string]string{"my project #2": "s2", "my project": "s3", "my project #3": "s3"},
			},
		},
		{
			name:     "UnicodeDigits",
			sessions: [][2]string{{"a", "baz #\u0663"}}, // ARABIC-INDIC DIGIT THREE
			want: check{
				resolve: map[string]string{"baz": "a"},
				next:    map[string]string{"baz": "baz #4", "baz #\u0663": "baz #4"},
			},
		},
		{
			name:     "NumberBeyondInt64",
			sessions: [][2]string{{"a", "big #99999999999999999999"}},
			want:     check{next: map[string]string{"big": "big #100000000000000000000"}},
		},
		{
			name:     "NonASCIICaseSensitive",
			sessions: [][2]string{{"a", "été"}, {"c", "été #2"}, {"b", "ÉTÉ #2"}},
			want: check{
				resolve: map[string]string{"été": "c", "ÉTÉ": "b"},
				next:    map[string]string{"été": "été #3"},
			},
		},
		{
			name:     "EmptySuffix",
			sessions: [][2]string{{"a", "q"}, {"b", "q#2"}, {"c", "q #"}},
			want: check{
				resolve: map[string]string{"q": "c"},
				next:    map[string]string{"q": "q #2"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			titled(t, s, tc.sessions...)
			for title, want := range tc.want.resolve {
				if got := resolveTitle(t, s, title); got != want {
					t.Errorf("ResolveSessionByTitle(%q) = %q, want %q", title, got, want)
				}
			}
			for base, want := range tc.want.next {
				if got := nextTitle(t, s, base); got != want {
					t.Errorf("NextTitleInLineage(%q) = %q, want %q", base, got, want)
				}
			}
		})
	}

	t.Run("CaseSensitiveUniqueness", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		titled(t, s, [2]string{"s1", "my project"}, [2]string{"s2", "My Project"})
		sess, err := s.SessionByTitle(ctx, "My Project")
		if err != nil || sess.ID != "s2" {
			t.Errorf("SessionByTitle(My Project) = %v, %v; want s2", sess, err)
		}
		if _, err := s.SessionByTitle(ctx, "MY PROJECT"); !errors.Is(err, ErrNotFound) {
			t.Errorf("SessionByTitle(MY PROJECT) = %v, want ErrNotFound (exact match)", err)
		}
	})

	t.Run("InUseCheckedForMissingSession", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		titled(t, s, [2]string{"t1", "my project"})
		err := s.SetSessionTitle(ctx, "ghost", "  my   project ")
		var inUse *TitleInUseError
		if !errors.Is(err, ErrTitleInUse) || !errors.As(err, &inUse) {
			t.Fatalf("SetSessionTitle(ghost, taken) = %v, want *TitleInUseError", err)
		}
		if got, want := inUse.Error(), "Title 'my project' is already in use by session t1"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
	})
}
