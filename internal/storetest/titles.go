package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"titles/set", testSetTitle},
		group{"titles/lookup", testTitleLookup},
		group{"titles/lineage", testNextTitle},
	)
}

func testSetTitle(t *testing.T, h Harness) {
	ctx := t.Context()
	s, _ := openClocked(t, h)
	for _, id := range []string{"a", "b"} {
		create(t, s, store.NewSession{ID: id, Source: "cli"})
	}
	title := func(id string) string {
		t.Helper()
		got, err := s.SessionTitle(ctx, id)
		ok(t, err)
		return got
	}
	t.Run("Sanitised", func(t *testing.T) {
		for _, c := range []struct{ in, want string }{
			{"  my\u200b  project\t\n", "my project"},
			{"x\u202ey\ufeff", "xy"},
			{"\u3000ü\u00a0ß ", "ü ß"},
			{"   ", ""}, // clears
			{"Plain", "Plain"},
		} {
			ok(t, s.SetSessionTitle(ctx, "a", c.in))
			equal(t, "title of "+c.in, title("a"), c.want)
			clean, err := store.SanitizeTitle(c.in)
			ok(t, err)
			equal(t, "SanitizeTitle("+c.in+")", clean, c.want)
		}
		ok(t, s.SetSessionTitle(ctx, "a", ""))
		equal(t, "cleared", get(t, s, "a").Title, (*string)(nil))
	})
	t.Run("Length", func(t *testing.T) {
		long := strings.Repeat("é", store.MaxTitleLength) // 100 code points, 200 bytes
		ok(t, s.SetSessionTitle(ctx, "a", long))
		equal(t, "100 code points", title("a"), long)
		before := state(t, s)
		err := s.SetSessionTitle(ctx, "a", long+"é")
		isErr(t, "101 code points", err, store.ErrTitleTooLong)
		equal(t, "message", err.Error(), `store: set title of "a": Title too long (101 chars, max 100)`)
		_, err = store.SanitizeTitle(long + "x")
		equal(t, "SanitizeTitle message", err.Error(), "store: sanitize title: Title too long (101 chars, max 100)")
		unchanged(t, "a refused title", s, before)
		ok(t, s.SetSessionTitle(ctx, "a", ""))
	})
	t.Run("Unique", func(t *testing.T) {
		ok(t, s.SetSessionTitle(ctx, "a", "proj"))
		ok(t, s.SetSessionTitle(ctx, "a", " proj ")) // its own title again
		ok(t, s.SetSessionTitle(ctx, "b", "Proj"))   // case-sensitive
		before := state(t, s)
		for _, id := range []string{"b", "nope"} { // checked before the session's existence
			err := s.SetSessionTitle(ctx, id, "proj")
			var inUse *store.TitleInUseError
			if !errors.As(err, &inUse) {
				t.Fatalf("SetSessionTitle(%s): %v, want a *TitleInUseError", id, err)
			}
			isErr(t, "in use", err, store.ErrTitleInUse)
			equal(t, "error", *inUse, store.TitleInUseError{Title: "proj", SessionID: "a"})
			equal(t, "message", err.Error(), `store: set title of "`+id+`": Title 'proj' is already in use by session a`)
		}
		isErr(t, "unknown session", s.SetSessionTitle(ctx, "nope", "free"), store.ErrSessionNotFound)
		isErr(t, "bad text", s.SetSessionTitle(ctx, "a", "\xff"), store.ErrInvalidText)
		unchanged(t, "refused titles", s, before)
		equal(t, "titles", [2]string{title("a"), title("b")}, [2]string{"proj", "Proj"})
	})
	t.Run("MovesFromCompressionAncestor", func(t *testing.T) {
		create(t, s, store.NewSession{ID: "root", Source: "cli"})
		ok(t, s.SetSessionTitle(ctx, "root", "chain"))
		end(t, s, "root", "compression")
		create(t, s, store.NewSession{ID: "tip", Source: "cli", ParentSessionID: "root"})
		ok(t, s.SetSessionTitle(ctx, "tip", "chain"))
		equal(t, "titles", [2]string{title("root"), title("tip")}, [2]string{"", "chain"})
		// A child of a parent that ended otherwise does not take it.
		create(t, s, store.NewSession{ID: "other", Source: "cli", ParentSessionID: "b"})
		isErr(t, "not an ancestor", s.SetSessionTitle(ctx, "other", "Proj"), store.ErrTitleInUse)
	})
	t.Run("SessionTitleUnknown", func(t *testing.T) {
		_, err := s.SessionTitle(ctx, "nope")
		isErr(t, "SessionTitle", err, store.ErrSessionNotFound)
	})
}

func testTitleLookup(t *testing.T, h Harness) {
	ctx := t.Context()
	s, c := openClocked(t, h)
	for _, st := range []struct{ id, title string }{
		{"s1", "work"}, {"s2", "work #2"}, {"s3", "WORK #3"}, {"s4", "work #x"}, {"s5", "50%"}, {"s6", "50x #2"},
		{"s7", "other"}, {"s8", "café"}, {"s9", "Café #3"}, {"s10", "CAFÉ #2"},
	} {
		create(t, s, store.NewSession{ID: st.id, Source: "cli"})
		ok(t, s.SetSessionTitle(ctx, st.id, st.title))
		c.Advance(time.Second)
	}
	sess, err := s.SessionByTitle(ctx, "work #2")
	ok(t, err)
	equal(t, "SessionByTitle", sess.ID, "s2")
	for _, title := range []string{"Work", " work", "nope"} { // exact, not sanitised
		_, err := s.SessionByTitle(ctx, title)
		isErr(t, "SessionByTitle("+title+")", err, store.ErrNotFound)
	}
	for _, r := range []struct{ title, want string }{
		{"work", "s4"},  // newest variant: any suffix after " #", ASCII case-insensitive
		{"other", "s7"}, // no variant: the exact title
		{"50%", "s5"},   // % literal: "50x #2" is no variant of it
		{"café", "s9"},  // only ASCII letters fold: the newer "CAFÉ #2" is no variant
	} {
		got, err := s.ResolveSessionByTitle(ctx, r.title)
		ok(t, err)
		equal(t, "ResolveSessionByTitle("+r.title+")", got, r.want)
	}
	_, err = s.ResolveSessionByTitle(ctx, "nothing")
	isErr(t, "ResolveSessionByTitle unknown", err, store.ErrNotFound)
}

func testNextTitle(t *testing.T, h Harness) {
	ctx := t.Context()
	s, _ := openClocked(t, h)
	next := func(base string) string {
		t.Helper()
		got, err := s.NextTitleInLineage(ctx, base)
		ok(t, err)
		return got
	}
	equal(t, "unused", next("plan"), "plan")
	create(t, s, store.NewSession{ID: "a", Source: "cli"})
	ok(t, s.SetSessionTitle(ctx, "a", "plan"))
	equal(t, "base used", next("plan"), "plan #2")
	equal(t, "from a variant", next("plan #7"), "plan #2")
	create(t, s, store.NewSession{ID: "b", Source: "cli"})
	ok(t, s.SetSessionTitle(ctx, "b", "plan #5"))
	equal(t, "after #5", next("plan"), "plan #6")
	create(t, s, store.NewSession{ID: "c", Source: "cli"})
	ok(t, s.SetSessionTitle(ctx, "c", "plan #٧")) // Arabic-Indic 7: a Unicode decimal digit
	equal(t, "after #٧", next("plan"), "plan #8")
	create(t, s, store.NewSession{ID: "d", Source: "cli"})
	ok(t, s.SetSessionTitle(ctx, "d", "plan #99999999999999999999"))
	equal(t, "past int64", next("plan"), "plan #100000000000000000000")
	equal(t, "another lineage", next("plan b"), "plan b")
}
