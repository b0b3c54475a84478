package storetest

import (
	"encoding/json"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"DeleteSessionDelegates", bDeleteSessionDelegates},
		group{"DeleteSessionsBulk", bDeleteSessionsBulk},
		group{"DeleteSessionIfEmpty", bDeleteSessionIfEmpty},
		group{"DeleteEmptySessions", bDeleteEmptySessions},
	)
}

// bMarked returns a NewSession option for a delegate child: a
// model_config whose _delegate_from is marker, under parent (or none).
func bMarked(parent, marker string) func(*store.NewSession) {
	return func(n *store.NewSession) {
		n.ParentSessionID = parent
		if marker != "" {
			n.ModelConfig = json.RawMessage(`{"_delegate_from": "` + marker + `", "k": 1}`)
		}
	}
}

// bParent returns session id's parent, "" for none.
func bParent(t *testing.T, s *store.Store, id string) string {
	t.Helper()
	if p := bGet(t, s, id).ParentSessionID; p != nil {
		return *p
	}
	return ""
}

// bDeleteSessionDelegates checks DeleteSession: the session, its
// messages, its usage rows and its delegate children (marked with
// _delegate_from, recursively) go; other children become roots,
// grandchildren keep their parents.
func bDeleteSessionDelegates(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "p", "cli")
	bSay(t, s, "p", "user", "zanzibar", 10)
	bErr(t, "UpdateTokenCounts", s.UpdateTokenCounts(ctx, "p", store.TokenUpdate{InputTokens: 5, Model: "m"}), nil)
	bCreate(t, s, "d1", "cli", bMarked("p", "p"))      // a delegate child
	bCreate(t, s, "d2", "cli", bMarked("", "p"))       // marked for p, no parent link
	bCreate(t, s, "d3", "cli", bMarked("d1", "other")) // any marker under a delegate
	bCreate(t, s, "d4", "cli", bMarked("d1", ""))      // untagged child of a delegate
	bCreate(t, s, "br", "cli", bMarked("p", ""))       // a branch
	bCreate(t, s, "gc", "cli", bMarked("br", ""))      // the branch's child
	bCreate(t, s, "x", "cli", bMarked("", "somebody")) // marked for another
	bCreate(t, s, "loop", "cli", bMarked("d2", "d2"))  // marked for a delegate
	bSay(t, s, "d1", "user", "zanzibar", 11)
	bDispatch(t, s, store.DelegationDispatch{ID: "deleg", ParentSessionID: "p", DispatchedAt: 1})

	bErr(t, "DeleteSession", s.DeleteSession(ctx, "p", ""), nil)
	all := []string{"p", "d1", "d2", "d3", "d4", "br", "gc", "x", "loop"}
	bEq(t, "left", bExisting(t, s, all...), []string{"d4", "br", "gc", "x"})
	bEq(t, "parents", []string{bParent(t, s, "d4"), bParent(t, s, "br"), bParent(t, s, "gc"), bParent(t, s, "x")}, []string{"", "", "br", ""})
	hits, err := s.SearchMessages(ctx, "zanzibar", store.SearchOptions{IncludeInactive: true})
	bErr(t, "SearchMessages", err, nil)
	bEq(t, "messages of the deleted sessions", len(hits), 0)
	usage, err := s.ModelUsage(ctx, "p")
	bErr(t, "ModelUsage", err, nil)
	bEq(t, "usage rows of the deleted session", len(usage), 0)
	bEq(t, "the delegation row is left", *bDelegation(t, s, "deleg").ParentSessionID, "p")

	bErr(t, "DeleteSession(unknown)", s.DeleteSession(ctx, "p", ""), store.ErrSessionNotFound)
	bErr(t, "DeleteSession(unknown) is not found", s.DeleteSession(ctx, "nope", ""), store.ErrNotFound)
	bEq(t, "left after the refusals", bExisting(t, s, all...), []string{"d4", "br", "gc", "x"})
}

// bDeleteSessionsBulk checks DeleteSessions (all or nothing) and
// DeleteExistingSessions (unknown ids skipped, the count).
func bDeleteSessionsBulk(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		bCreate(t, s, id, "cli")
	}
	bCreate(t, s, "a_kid", "cli", bMarked("a", "a"))
	bCreate(t, s, "d_kid", "cli", bMarked("d", "d"))
	bEnd := func(id string) {
		t.Helper()
		bErr(t, "EndSession", s.EndSession(ctx, id, "user_exit"), nil)
	}
	bEnd("e")
	all := []string{"a", "b", "c", "d", "e", "a_kid", "d_kid"}

	bErr(t, "DeleteSessions with an unknown id", s.DeleteSessions(ctx, []string{"a", "nope", "b"}, ""), store.ErrSessionNotFound)
	bEq(t, "nothing deleted", bExisting(t, s, all...), all)
	bErr(t, "DeleteSessions", s.DeleteSessions(ctx, []string{"a", "b", "a"}, ""), nil)
	bEq(t, "after DeleteSessions", bExisting(t, s, all...), []string{"c", "d", "e", "d_kid"})

	for _, tc := range []struct {
		name string
		ids  []string
		n    int
		left []string
	}{
		{"None", nil, 0, []string{"c", "d", "e", "d_kid"}},
		{"OnlyUnknown", []string{"nope", ""}, 0, []string{"c", "d", "e", "d_kid"}},
		{"Mixed", []string{"c", "nope", "", "c", "d", "e"}, 3, []string{}},
	} {
		n, err := s.DeleteExistingSessions(ctx, tc.ids, "")
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name+": deleted", n, tc.n)
		bEq(t, tc.name+": left", bExisting(t, s, all...), tc.left)
	}
}

// bDeleteSessionIfEmpty checks DeleteSessionIfEmpty: only a session
// without title, message rows (rewound ones count) and children goes.
func bDeleteSessionIfEmpty(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "empty", "cli")
	bCreate(t, s, "ended", "cli")
	bErr(t, "EndSession", s.EndSession(ctx, "ended", "x"), nil)
	bCreate(t, s, "titled", "cli")
	bErr(t, "SetSessionTitle", s.SetSessionTitle(ctx, "titled", "a title"), nil)
	bCreate(t, s, "talked", "cli")
	bSay(t, s, "talked", "user", "x", 1)
	bCreate(t, s, "rewound", "cli")
	id := bSay(t, s, "rewound", "user", "x", 1)
	if _, err := s.RewindToMessage(ctx, "rewound", id); err != nil {
		t.Fatal(err)
	}
	bCreate(t, s, "parent", "cli")
	bCreate(t, s, "kid", "cli", bMarked("parent", ""))
	for _, tc := range []struct {
		id   string
		want bool
		err  error
	}{
		{"empty", true, nil}, {"ended", true, nil}, {"titled", false, nil}, {"talked", false, nil},
		{"rewound", false, nil}, {"parent", false, nil}, {"empty", false, store.ErrSessionNotFound},
	} {
		got, err := s.DeleteSessionIfEmpty(ctx, tc.id, "")
		bErr(t, "DeleteSessionIfEmpty("+tc.id+")", err, tc.err)
		bEq(t, "DeleteSessionIfEmpty("+tc.id+")", got, tc.want)
	}
	bEq(t, "left", bExisting(t, s, "empty", "ended", "titled", "talked", "rewound", "parent", "kid"),
		[]string{"titled", "talked", "rewound", "parent", "kid"})
}

// bDeleteEmptySessions checks CountEmptySessions and DeleteEmptySessions:
// ended, not archived sessions whose message count is 0 (message rows a
// compaction left included); their children become roots.
func bDeleteEmptySessions(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	count := func() int64 {
		t.Helper()
		n, err := s.CountEmptySessions(ctx)
		bErr(t, "CountEmptySessions", err, nil)
		return n
	}
	bEq(t, "empty store", count(), int64(0))
	bImport(t, s,
		`{"id": "z1", "source": "cli", "started_at": 100, "ended_at": 101}`,
		`{"id": "z2", "source": "cli", "started_at": 100}`,
		`{"id": "z3", "source": "cli", "started_at": 100, "ended_at": 101, "archived": 1}`,
		`{"id": "z4", "source": "cli", "started_at": 100, "ended_at": 101, "messages": [{"role": "user", "content": "x", "timestamp": 100}]}`,
		`{"id": "z5", "source": "cli", "started_at": 100, "ended_at": 101, "messages": [{"role": "user", "content": "quokka", "timestamp": 100}]}`,
		`{"id": "z6", "source": "cli", "started_at": 100, "parent_session_id": "z1"}`,
	)
	// z5 is compacted to nothing: its row stays, its count is 0.
	if _, err := s.ArchiveAndCompact(ctx, "z5", nil); err != nil {
		t.Fatalf("ArchiveAndCompact(z5, nil): %v", err)
	}
	bEq(t, "z5's count", bGet(t, s, "z5").MessageCount, int64(0))
	bEq(t, "empty sessions", count(), int64(2))
	n, err := s.DeleteEmptySessions(ctx, "")
	bErr(t, "DeleteEmptySessions", err, nil)
	bEq(t, "deleted", n, 2)
	bEq(t, "left", bExisting(t, s, "z1", "z2", "z3", "z4", "z5", "z6"), []string{"z2", "z3", "z4", "z6"})
	bEq(t, "z6's parent", bParent(t, s, "z6"), "")
	hits, err := s.SearchMessages(ctx, "quokka", store.SearchOptions{IncludeInactive: true})
	bErr(t, "SearchMessages(quokka)", err, nil)
	bEq(t, "rows of the deleted session", len(hits), 0)
	bEq(t, "empty sessions after the delete", count(), int64(0))
	n, err = s.DeleteEmptySessions(ctx, "")
	bErr(t, "DeleteEmptySessions again", err, nil)
	bEq(t, "deleted again", n, 0)
}
