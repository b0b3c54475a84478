package store

// Port of reference-tests.md B.1
// (tests/hermes_state/test_resolve_resume_session_id.py).

import (
	"math"
	"testing"
)

// makeChain is the reference's _make_chain(db, [(sid, parent), …]): each
// session created (cli) with its parent, the i-th started at
// int(now) - 10000 + i*100.
func makeChain(t testing.TB, s *Store, pairs [][2]string) {
	t.Helper()
	base := math.Floor(nowTS()) - 10000
	for i, p := range pairs {
		mustCreate(t, s, NewSession{ID: p[0], Source: "cli", ParentSessionID: p[1]})
		backdate(t, s, p[0], base+float64(i)*100)
	}
}

// assertResume checks resolve_resume_session_id(id) == want.
func assertResume(t testing.TB, s *Store, id, want string) {
	t.Helper()
	got, err := s.ResolveResumeSessionID(t.Context(), id)
	if err != nil || got != want {
		t.Errorf("ResolveResumeSessionID(%q) = %q, %v; want %q", id, got, err, want)
	}
}

// upstream: tests/hermes_state/test_resolve_resume_session_id.py, its 8 tests of
// v11 (one subtest each, named after them; test_returns_self_when_session_has_messages
// is test_returns_self_when_only_parent_has_messages at v21); its 4 new ones are
// TestResolveResumeSessionIDV21.
func TestResolveResumeSessionID(t *testing.T) {
	t.Parallel()

	t.Run("RedirectsFromEmptyHeadToDescendantWithMessages", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeChain(t, s, [][2]string{
			{"head", ""}, {"mid1", "head"}, {"mid2", "mid1"}, {"mid3", "mid2"}, {"bulk", "mid3"}, {"tail", "bulk"},
		})
		for _, c := range []string{"msg 0", "msg 1", "msg 2", "msg 3", "msg 4"} {
			mustAppend(t, s, "bulk", NewMessage{Role: "user", Content: new(c)})
		}
		assertResume(t, s, "head", "bulk")
	})

	t.Run("ReturnsSelfWhenOnlyParentHasMessages", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeChain(t, s, [][2]string{{"root", ""}, {"child", "root"}})
		mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("hi")})
		assertResume(t, s, "root", "root")
	})

	t.Run("ReturnsSelfWhenNoDescendantHasMessages", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeChain(t, s, [][2]string{{"root", ""}, {"child1", "root"}, {"child2", "child1"}})
		assertResume(t, s, "root", "root")
	})

	t.Run("ReturnsSelfForIsolatedSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeChain(t, s, [][2]string{{"isolated", ""}})
		assertResume(t, s, "isolated", "isolated")
	})

	t.Run("ReturnsSelfForNonexistentSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		assertResume(t, s, "does_not_exist", "does_not_exist")
	})

	t.Run("EmptySessionIdPassthrough", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		// The original's second assert, (None) is None, has no Go form: the
		// id is a string.
		assertResume(t, s, "", "")
	})

	t.Run("WalksFromMiddleOfChain", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeChain(t, s, [][2]string{{"a", ""}, {"b", "a"}, {"c", "b"}, {"d", "c"}})
		mustAppend(t, s, "d", NewMessage{Role: "user", Content: new("x")})
		assertResume(t, s, "b", "d")
		assertResume(t, s, "c", "d")
	})

	t.Run("PrefersMostRecentChildWhenForkExists", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeChain(t, s, [][2]string{{"parent", ""}, {"older_fork", "parent"}, {"newer_fork", "parent"}})
		mustAppend(t, s, "newer_fork", NewMessage{Role: "user", Content: new("x")})
		assertResume(t, s, "parent", "newer_fork")
	})
}
