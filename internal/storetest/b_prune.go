package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"PruneCandidatesFilters", bPruneCandidatesFilters},
		group{"PruneSessions", bPruneSessions},
		group{"ArchiveSessions", bArchiveSessions},
		group{"PruneEmptyGhostSessions", bPruneGhosts},
		group{"FinalizeOrphanedCompressionSessions", bFinalizeOrphans},
	)
}

// bAgo is the wall clock's time d ago, as a JSON number of an import
// record.
func bAgo(d time.Duration) string {
	return fmt.Sprintf("%.6f", float64(store.TimestampOf(time.Now().Add(-d))))
}

// bPruneCorpus imports the sessions the prune filters select from:
// old1..old4 long ended (old4 a child of old1, old2 archived), live (old
// but never ended), recent (ended, two days old).
func bPruneCorpus(t *testing.T, s *store.Store) {
	t.Helper()
	bImport(t, s,
		`{"id": "old1", "source": "cli", "started_at": 1000, "ended_at": 1100, "end_reason": "user_exit", "title": "Alpha Project",
			"model": "gpt-4o", "git_branch": "feature/x", "billing_provider": "OpenRouter", "user_id": "u1", "chat_id": "c1", "chat_type": "dm",
			"cwd": "/home/u/proj", "input_tokens": 100, "output_tokens": 50, "estimated_cost_usd": 0.5,
			"messages": [{"role": "user", "content": "hi", "timestamp": 1001},
				{"role": "assistant", "content": null, "tool_calls": [{"id": "1"}, {"id": "2"}], "timestamp": 1002}]}`,
		`{"id": "old2", "source": "telegram", "started_at": 2000, "ended_at": 2100, "end_reason": "compression", "title": "beta",
			"model": "claude", "archived": 1, "cwd": "/home/u/proj/sub", "estimated_cost_usd": 0.1, "actual_cost_usd": 2.0}`,
		`{"id": "live", "source": "cli", "started_at": 3000}`,
		`{"id": "old4", "source": "cli", "started_at": 4000, "ended_at": 4100, "parent_session_id": "old1", "cwd": "/home/u/project"}`,
		`{"id": "recent", "source": "cli", "started_at": `+bAgo(48*time.Hour)+`, "ended_at": `+bAgo(47*time.Hour)+`}`,
	)
}

// bPruneCandidatesFilters checks every PruneOptions filter through
// PruneCandidates (oldest first, nothing changed) and the dry-run counts
// of PruneSessions and ArchiveSessions for the same options.
func bPruneCandidatesFilters(t *testing.T, h Harness) {
	s := h.Open(t)
	bPruneCorpus(t, s)
	n := func(v int64) *int64 { return &v }
	f := func(v float64) *float64 { return &v }
	yes, no := true, false
	for _, tc := range []struct {
		name string
		opts store.PruneOptions
		want []string
	}{
		{"Default90Days", store.PruneOptions{}, []string{"old1", "old2", "old4"}},
		{"AnyAge", store.PruneOptions{AnyAge: true}, []string{"old1", "old2", "old4", "recent"}},
		{"AnyAgeOverridesOlderThan", store.PruneOptions{AnyAge: true, OlderThan: 1000 * time.Hour}, []string{"old1", "old2", "old4", "recent"}},
		{"OlderThanDay", store.PruneOptions{OlderThan: 24 * time.Hour}, []string{"old1", "old2", "old4", "recent"}},
		{"OlderThanThreeDays", store.PruneOptions{OlderThan: 72 * time.Hour}, []string{"old1", "old2", "old4"}},
		{"Before", store.PruneOptions{Before: time.Unix(2500, 0)}, []string{"old1", "old2"}},
		{"BeforeIsExclusive", store.PruneOptions{Before: time.Unix(2000, 0)}, []string{"old1"}},
		{"AfterIsInclusive", store.PruneOptions{After: time.Unix(2000, 0)}, []string{"old2", "old4"}},
		{"Source", store.PruneOptions{Source: "telegram"}, []string{"old2"}},
		{"TitleAnyCase", store.PruneOptions{TitleLike: "ALPHA"}, []string{"old1"}},
		{"TitleWildcards", store.PruneOptions{TitleLike: "a_pha%proj"}, []string{"old1"}},
		{"TitleNoMatch", store.PruneOptions{TitleLike: "gamma"}, []string{}},
		{"Model", store.PruneOptions{ModelLike: "GPT"}, []string{"old1"}},
		{"Branch", store.PruneOptions{BranchLike: "feature/"}, []string{"old1"}},
		{"EndReason", store.PruneOptions{EndReason: "compression"}, []string{"old2"}},
		{"CwdPrefix", store.PruneOptions{CwdPrefix: "/home/u/proj"}, []string{"old1", "old2"}},
		{"CwdPrefixSlash", store.PruneOptions{CwdPrefix: "/home/u/proj/"}, []string{"old1", "old2"}},
		{"CwdPrefixNotAPrefixOfNames", store.PruneOptions{CwdPrefix: "/home/u/pro"}, []string{}},
		{"Provider", store.PruneOptions{Provider: "openrouter"}, []string{"old1"}},
		{"User", store.PruneOptions{UserID: "u1"}, []string{"old1"}},
		{"Chat", store.PruneOptions{ChatID: "c1", ChatType: "dm"}, []string{"old1"}},
		{"ChatTypeExact", store.PruneOptions{ChatType: "DM"}, []string{}},
		{"MinMessages", store.PruneOptions{MinMessages: n(2)}, []string{"old1"}},
		{"MaxMessages", store.PruneOptions{MaxMessages: n(0)}, []string{"old2", "old4"}},
		{"MinTokens", store.PruneOptions{MinTokens: n(150)}, []string{"old1"}},
		{"MaxTokens", store.PruneOptions{MaxTokens: n(149)}, []string{"old2", "old4"}},
		{"MinToolCalls", store.PruneOptions{MinToolCalls: n(2)}, []string{"old1"}},
		{"MaxToolCalls", store.PruneOptions{MaxToolCalls: n(1)}, []string{"old2", "old4"}},
		{"MinCostActualFirst", store.PruneOptions{MinCost: f(1.0)}, []string{"old2"}},
		{"MaxCost", store.PruneOptions{MaxCost: f(0.5)}, []string{"old1", "old4"}},
		{"Archived", store.PruneOptions{Archived: &yes}, []string{"old2"}},
		{"NotArchived", store.PruneOptions{Archived: &no}, []string{"old1", "old4"}},
		{"IDs", store.PruneOptions{IDs: []string{"old2", "live", "nope"}}, []string{"old2"}},
		{"EmptyIDs", store.PruneOptions{IDs: []string{}}, []string{}},
		{"Combined", store.PruneOptions{Source: "cli", MaxMessages: n(0), AnyAge: true}, []string{"old4", "recent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.PruneCandidates(t.Context(), tc.opts)
			bErr(t, "PruneCandidates", err, nil)
			bEq(t, "candidates", bSessionIDs(got), tc.want)
			dry := tc.opts
			dry.DryRun = true
			count, err := s.PruneSessions(t.Context(), dry)
			bErr(t, "PruneSessions(dry run)", err, nil)
			bEq(t, "dry-run count", count, len(tc.want))
		})
	}
	// A title filter is lowercased as Python does, the title as SQLite's
	// LOWER() does (ASCII only): so a filter "É" (lowercased to "é")
	// never finds a title's "É".
	u := h.Open(t)
	bImport(t, u,
		`{"id": "t1", "source": "cli", "started_at": 10, "ended_at": 11, "title": "ÉTÉ Caps"}`,
		`{"id": "t2", "source": "cli", "started_at": 20, "ended_at": 21, "title": "été lower"}`,
	)
	for _, tc := range []struct {
		like string
		want []string
	}{
		{"été", []string{"t2"}}, {"ÉTÉ", []string{"t2"}}, {"caps", []string{"t1"}}, {"É", []string{"t2"}}, {"é", []string{"t2"}},
	} {
		got, err := u.PruneCandidates(t.Context(), store.PruneOptions{TitleLike: tc.like})
		bErr(t, "PruneCandidates(title "+tc.like+")", err, nil)
		bEq(t, "candidates of title "+tc.like, bSessionIDs(got), tc.want)
	}

	// A candidate is the whole row.
	got, err := s.PruneCandidates(t.Context(), store.PruneOptions{Source: "telegram"})
	bErr(t, "PruneCandidates", err, nil)
	bEq(t, "candidate row", got[0], *bGet(t, s, "old2"))

	long := strings.Repeat("x", 50001)
	for _, tc := range []struct {
		name string
		opts store.PruneOptions
		want error
	}{
		{"BadSource", store.PruneOptions{Source: bBadUTF8}, store.ErrInvalidText},
		{"BadTitle", store.PruneOptions{TitleLike: bBadUTF8}, store.ErrInvalidText},
		{"BadCwd", store.PruneOptions{CwdPrefix: bBadUTF8}, store.ErrInvalidText},
		{"LongTitle", store.PruneOptions{TitleLike: long}, store.ErrInvalidFilter},
		{"LongModel", store.PruneOptions{ModelLike: long}, store.ErrInvalidFilter},
		{"LongBranch", store.PruneOptions{BranchLike: long}, store.ErrInvalidFilter},
		{"LongCwd", store.PruneOptions{CwdPrefix: "/" + long}, store.ErrInvalidFilter},
	} {
		_, err := s.PruneCandidates(t.Context(), tc.opts)
		bErr(t, tc.name+": PruneCandidates", err, tc.want)
		_, err = s.PruneSessions(t.Context(), tc.opts)
		bErr(t, tc.name+": PruneSessions", err, tc.want)
		_, err = s.ArchiveSessions(t.Context(), tc.opts)
		bErr(t, tc.name+": ArchiveSessions", err, tc.want)
	}
	bEq(t, "sessions after the dry runs and refusals", bExisting(t, s, "old1", "old2", "live", "old4", "recent"),
		[]string{"old1", "old2", "live", "old4", "recent"})
	bEq(t, "archived flag after the refusals", bGet(t, s, "old1").Archived, int64(0))
}

// bPruneSessions checks what a prune deletes (the selected sessions and
// their messages) and leaves (live sessions; children become roots).
func bPruneSessions(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bPruneCorpus(t, s)
	// A chain a→b→c→d with a and b old: c's parent is cleared, d keeps c.
	bImport(t, s,
		`{"id": "a", "source": "chain", "started_at": 100, "ended_at": 101}`,
		`{"id": "b", "source": "chain", "started_at": 200, "ended_at": 201, "parent_session_id": "a"}`,
		`{"id": "c", "source": "chain", "started_at": `+bAgo(time.Hour)+`, "ended_at": `+bAgo(time.Minute)+`, "parent_session_id": "b", "messages": [{"role": "user", "content": "keep", "timestamp": 5}]}`,
		`{"id": "d", "source": "chain", "started_at": `+bAgo(time.Minute)+`, "parent_session_id": "c"}`,
	)
	n, err := s.PruneSessions(ctx, store.PruneOptions{Source: "chain"})
	bErr(t, "PruneSessions(chain)", err, nil)
	bEq(t, "pruned chain", n, 2)
	bEq(t, "chain left", bExisting(t, s, "a", "b", "c", "d"), []string{"c", "d"})
	if p := bGet(t, s, "c").ParentSessionID; p != nil {
		t.Fatalf("c's parent %q, want none", *p)
	}
	bEq(t, "d's parent", *bGet(t, s, "d").ParentSessionID, "c")
	msgs, err := s.GetMessages(ctx, "c")
	bErr(t, "GetMessages(c)", err, nil)
	bEq(t, "c's messages", len(msgs), 1)

	// IDs confirm a selection: only listed sessions go.
	n, err = s.PruneSessions(ctx, store.PruneOptions{IDs: []string{"old4", "recent"}})
	bErr(t, "PruneSessions(IDs)", err, nil)
	bEq(t, "pruned of the listed", n, 1)
	bEq(t, "left", bExisting(t, s, "old1", "old2", "live", "old4", "recent"), []string{"old1", "old2", "live", "recent"})

	n, err = s.PruneSessions(ctx, store.PruneOptions{})
	bErr(t, "PruneSessions", err, nil)
	bEq(t, "pruned", n, 2)
	bEq(t, "left", bExisting(t, s, "old1", "old2", "live", "recent"), []string{"live", "recent"})
	msgs, err = s.GetMessagesWith(ctx, "old1", store.MessageOptions{IncludeInactive: true})
	if err == nil && len(msgs) != 0 {
		t.Fatalf("messages of a pruned session: %d", len(msgs))
	}
	n, err = s.PruneSessions(ctx, store.PruneOptions{})
	bErr(t, "PruneSessions again", err, nil)
	bEq(t, "pruned again", n, 0)
}

// bArchiveSessions checks SetSessionArchived and ArchiveSessions: a whole
// compression lineage is archived at once; a repeated archive selects
// nothing; a dry run changes nothing.
func bArchiveSessions(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	// root ended for compression and is continued by mid, mid by tip:
	// one lineage. child is a child of solo, which ended otherwise: a
	// lineage of its own.
	bImport(t, s,
		`{"id": "root", "source": "cli", "started_at": 100, "ended_at": 110, "end_reason": "compression"}`,
		`{"id": "mid", "source": "cli", "started_at": 120, "ended_at": 130, "end_reason": "compression", "parent_session_id": "root"}`,
		`{"id": "tip", "source": "cli", "started_at": 140, "parent_session_id": "mid"}`,
		`{"id": "solo", "source": "cli", "started_at": 200, "ended_at": 210, "end_reason": "user_exit"}`,
		`{"id": "child", "source": "cli", "started_at": 220, "ended_at": 230, "parent_session_id": "solo"}`,
		`{"id": "tg", "source": "telegram", "started_at": 300, "ended_at": 310}`,
	)
	archived := func() []string {
		t.Helper()
		out := []string{}
		for _, id := range []string{"root", "mid", "tip", "solo", "child", "tg"} {
			if bGet(t, s, id).Archived == 1 {
				out = append(out, id)
			}
		}
		return out
	}
	for _, st := range []struct {
		name string
		id   string
		arch bool
		ok   bool
		want []string
	}{
		{"ArchiveTip", "tip", true, true, []string{"root", "mid", "tip"}},
		{"ArchiveAgainCounts", "tip", true, true, []string{"root", "mid", "tip"}},
		{"UnarchiveMid", "mid", false, true, []string{}},
		{"ArchiveRoot", "root", true, true, []string{"root", "mid", "tip"}},
		{"ArchiveSolo", "solo", true, true, []string{"root", "mid", "tip", "solo"}},
		{"UnarchiveRoot", "root", false, true, []string{"solo"}},
		{"Unknown", "nope", true, false, []string{"solo"}},
		{"UnarchiveSolo", "solo", false, true, []string{}},
	} {
		ok, err := s.SetSessionArchived(ctx, st.id, st.arch)
		bErr(t, st.name, err, nil)
		bEq(t, st.name, ok, st.ok)
		bEq(t, st.name+": archived", archived(), st.want)
	}

	for _, st := range []struct {
		name string
		opts store.PruneOptions
		n    int
		want []string
	}{
		{"DryRun", store.PruneOptions{DryRun: true}, 5, []string{}},
		{"Source", store.PruneOptions{Source: "telegram"}, 1, []string{"tg"}},
		{"EndReasonLineage", store.PruneOptions{EndReason: "compression", Before: time.Unix(115, 0)}, 1, []string{"root", "mid", "tip", "tg"}},
		{"Rest", store.PruneOptions{}, 2, []string{"root", "mid", "tip", "solo", "child", "tg"}},
		{"Repeated", store.PruneOptions{}, 0, []string{"root", "mid", "tip", "solo", "child", "tg"}},
		{"RepeatedAllArchived", store.PruneOptions{DryRun: true, Archived: new(true)}, 5, []string{"root", "mid", "tip", "solo", "child", "tg"}},
	} {
		n, err := s.ArchiveSessions(ctx, st.opts)
		bErr(t, st.name, err, nil)
		bEq(t, st.name, n, st.n)
		bEq(t, st.name+": archived", archived(), st.want)
	}
	bEq(t, "archived sessions are not deleted", bExisting(t, s, "root", "mid", "tip", "solo", "child", "tg"),
		[]string{"root", "mid", "tip", "solo", "child", "tg"})
}

// bPruneGhosts checks PruneEmptyGhostSessions: ended, untitled TUI
// sessions without a message row, older than a day; their children
// become roots.
func bPruneGhosts(t *testing.T, h Harness) {
	s := h.Open(t)
	bImport(t, s,
		`{"id": "ghost", "source": "tui", "started_at": 1000, "ended_at": 1001}`,
		`{"id": "ghost2", "source": "tui", "started_at": `+bAgo(25*time.Hour)+`, "ended_at": `+bAgo(24*time.Hour)+`}`,
		`{"id": "kid", "source": "cli", "started_at": 1002, "parent_session_id": "ghost"}`,
		`{"id": "titled", "source": "tui", "started_at": 1000, "ended_at": 1001, "title": "t"}`,
		`{"id": "talked", "source": "tui", "started_at": 1000, "ended_at": 1001, "messages": [{"role": "user", "content": "x", "timestamp": 1000}]}`,
		`{"id": "open", "source": "tui", "started_at": 1000}`,
		`{"id": "cli", "source": "cli", "started_at": 1000, "ended_at": 1001}`,
		`{"id": "young", "source": "tui", "started_at": `+bAgo(23*time.Hour)+`, "ended_at": `+bAgo(time.Hour)+`}`,
	)
	n, err := s.PruneEmptyGhostSessions(t.Context(), "")
	bErr(t, "PruneEmptyGhostSessions", err, nil)
	bEq(t, "ghosts pruned", n, 2)
	bEq(t, "left", bExisting(t, s, "ghost", "ghost2", "kid", "titled", "talked", "open", "cli", "young"),
		[]string{"kid", "titled", "talked", "open", "cli", "young"})
	if p := bGet(t, s, "kid").ParentSessionID; p != nil {
		t.Fatalf("kid's parent %q, want none", *p)
	}
	n, err = s.PruneEmptyGhostSessions(t.Context(), "")
	bErr(t, "PruneEmptyGhostSessions again", err, nil)
	bEq(t, "ghosts pruned again", n, 0)
}

// bFinalizeOrphans checks FinalizeOrphanedCompressionSessions: a
// continuation of a session that ended 'compression', live, with messages,
// no API call, no end reason, older than 7 days, is ended now.
func bFinalizeOrphans(t *testing.T, h Harness) {
	s := h.Open(t)
	msg := `"messages": [{"role": "user", "content": "x", "timestamp": 1000}]`
	bImport(t, s,
		`{"id": "p", "source": "cli", "started_at": 900, "ended_at": 950, "end_reason": "compression"}`,
		`{"id": "q", "source": "cli", "started_at": 900, "ended_at": 950, "end_reason": "user_exit"}`,
		`{"id": "orphan", "source": "cli", "started_at": 1000, "parent_session_id": "p", `+msg+`}`,
		`{"id": "called", "source": "cli", "started_at": 1000, "parent_session_id": "p", "api_call_count": 1, `+msg+`}`,
		`{"id": "empty", "source": "cli", "started_at": 1000, "parent_session_id": "p"}`,
		`{"id": "young", "source": "cli", "started_at": `+bAgo(6*24*time.Hour)+`, "parent_session_id": "p", `+msg+`}`,
		`{"id": "other", "source": "cli", "started_at": 1000, "parent_session_id": "q", `+msg+`}`,
		`{"id": "root", "source": "cli", "started_at": 1000, `+msg+`}`,
	)
	lo := bNow()
	n, err := s.FinalizeOrphanedCompressionSessions(t.Context())
	hi := bNow()
	bErr(t, "FinalizeOrphanedCompressionSessions", err, nil)
	bEq(t, "finalized", n, int64(1))
	o := bGet(t, s, "orphan")
	if o.EndedAt == nil || o.EndReason == nil {
		t.Fatalf("orphan not ended: %v, %v", o.EndedAt, o.EndReason)
	}
	bBetween(t, "ended_at", *o.EndedAt, lo, hi)
	bEq(t, "end reason", *o.EndReason, "orphaned_compression")
	for _, id := range []string{"called", "empty", "young", "other", "root"} {
		if e := bGet(t, s, id).EndedAt; e != nil {
			t.Fatalf("%s ended at %v", id, *e)
		}
	}
	msgs, err := s.GetMessages(t.Context(), "orphan")
	bErr(t, "GetMessages(orphan)", err, nil)
	bEq(t, "orphan's messages kept", len(msgs), 1)
	n, err = s.FinalizeOrphanedCompressionSessions(t.Context())
	bErr(t, "FinalizeOrphanedCompressionSessions again", err, nil)
	bEq(t, "finalized again", n, int64(0))
}
