package store

// Ports of upstream c2a3b9ce5's tests/test_hermes_state.py
// TestPruneSessionFilters and TestSessionArchive,
// tests/hermes_state/test_session_archiving.py and
// tests/hermes_state/test_session_md_export.py (its prune-candidate tests),
// and this port's tests of the prune filters, ghost pruning, orphaned
// compression sessions and usage by model, checked against c2a3b9ce5 run on
// the same rows.

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// upNow is the clock of the prune tests: upstream's time.time().
var upNow = time.Unix(1_800_000_000, 0)

// openPruneStore opens a store whose clock stands at upNow.
func openPruneStore(t testing.TB) *Store {
	t.Helper()
	s, _ := openStore(t, &Options{Now: func() time.Time { return upNow }})
	return s
}

// mkEnded is TestPruneSessionFilters._mk: an ended session started age
// before upNow, with a message count, title and cwd.
func mkEnded(t testing.TB, s *Store, id, source string, age time.Duration, title, endReason string, messages int64, cwd string) {
	t.Helper()
	mustUpsert(t, s, NewSession{ID: id, Source: source, Cwd: cwd})
	mustEnd(t, s, id, endReason)
	var ttl any
	if title != "" {
		ttl = title
	}
	execSQL(t, s, "UPDATE sessions SET started_at = ?, message_count = ?, title = ? WHERE id = ?",
		float64(TimestampOf(upNow.Add(-age))), messages, ttl, id)
}

// mk is mkEnded with the defaults of _mk: cli, done, no title, 0 messages.
func mk(t testing.TB, s *Store, id string, age time.Duration) {
	t.Helper()
	mkEnded(t, s, id, "cli", age, "", "done", 0, "")
}

// mkRich is TestPruneSessionFilters._mk_rich: an ended cli session started
// a minute ago, then the SET clause applied with args.
func mkRich(t testing.TB, s *Store, id, set string, args ...any) {
	t.Helper()
	mustCreate(t, s, NewSession{ID: id, Source: "cli"})
	mustEnd(t, s, id, "done")
	execSQL(t, s, "UPDATE sessions SET started_at = ? WHERE id = ?", float64(TimestampOf(upNow.Add(-time.Minute))), id)
	if set != "" {
		execSQL(t, s, "UPDATE sessions SET "+set+" WHERE id = ?", append(args, id)...)
	}
}

// prune runs PruneSessions and fails the test on an error.
func prune(t testing.TB, s *Store, opts PruneOptions) int {
	t.Helper()
	n, err := s.PruneSessions(t.Context(), opts)
	if err != nil {
		t.Fatalf("PruneSessions(%+v): %v", opts, err)
	}
	return n
}

// candidates returns the ids PruneCandidates lists for opts.
func candidates(t testing.TB, s *Store, opts PruneOptions) []string {
	t.Helper()
	got, err := s.PruneCandidates(t.Context(), opts)
	if err != nil {
		t.Fatalf("PruneCandidates(%+v): %v", opts, err)
	}
	return ids(got)
}

// wantLeft checks the sessions left, by id.
func wantLeft(t testing.TB, s *Store, want ...string) {
	t.Helper()
	got := dbtest.Values[string](t, s.r, "SELECT id FROM sessions ORDER BY id")
	if want == nil {
		want = []string{}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions left (-want +got):\n%s", diff)
	}
}

func TestUpPruneSessionFilters(t *testing.T) {
	t.Parallel()
	const hour = time.Hour

	// upstream: TestPruneSessionFilters::test_started_after_window_prunes_only_recent
	t.Run("StartedAfterWindowPrunesOnlyRecent", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mk(t, s, "recent1", hour)
		mk(t, s, "recent2", 2*hour)
		mk(t, s, "old", 10*hour)
		if n := prune(t, s, PruneOptions{AnyAge: true, After: upNow.Add(-5 * hour)}); n != 2 {
			t.Errorf("pruned %d, want 2", n)
		}
		wantLeft(t, s, "old")
	})

	// upstream: TestPruneSessionFilters::test_before_after_window
	t.Run("BeforeAfterWindow", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mk(t, s, "inside", 5*hour)
		mk(t, s, "too_new", hour)
		mk(t, s, "too_old", 20*hour)
		if n := prune(t, s, PruneOptions{AnyAge: true, After: upNow.Add(-10 * hour), Before: upNow.Add(-2 * hour)}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "too_new", "too_old")
	})

	// upstream: TestPruneSessionFilters::test_title_and_message_count_filters
	t.Run("TitleAndMessageCountFilters", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mkEnded(t, s, "smoke1", "cli", time.Minute, "Codex Smoke Test 1", "done", 2, "")
		mkEnded(t, s, "smoke2", "cli", time.Minute, "codex smoke test 2", "done", 8, "")
		mkEnded(t, s, "real", "cli", time.Minute, "Debugging auth", "done", 8, "")
		if diff := cmp.Diff([]string{"smoke1", "smoke2"}, candidates(t, s, PruneOptions{AnyAge: true, TitleLike: "smoke"})); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
		if n := prune(t, s, PruneOptions{AnyAge: true, TitleLike: "Smoke", MaxMessages: new(int64(3))}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "real", "smoke2")
	})

	// upstream: TestPruneSessionFilters::test_end_reason_and_cwd_filters
	t.Run("EndReasonAndCwdFilters", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mkEnded(t, s, "s1", "cli", time.Minute, "", "done", 0, "/home/u/scratch/x")
		mkEnded(t, s, "s2", "cli", time.Minute, "", "error", 0, "/home/u/scratch")
		mkEnded(t, s, "s3", "cli", time.Minute, "", "done", 0, "/home/u/work")
		if diff := cmp.Diff([]string{"s1", "s2"}, candidates(t, s, PruneOptions{AnyAge: true, CwdPrefix: "/home/u/scratch"})); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
		if n := prune(t, s, PruneOptions{AnyAge: true, EndReason: "done", CwdPrefix: "/home/u/scratch"}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "s2", "s3")
	})

	// upstream: TestPruneSessionFilters::test_prune_excludes_archived_when_requested
	t.Run("PruneExcludesArchivedWhenRequested", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mk(t, s, "arch", time.Minute)
		mk(t, s, "plain", time.Minute)
		if _, err := s.SetSessionArchived(t.Context(), "arch", true); err != nil {
			t.Fatal(err)
		}
		if n := prune(t, s, PruneOptions{AnyAge: true, After: time.Unix(0, 0), Archived: new(false)}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "arch")
		// Without the filter an archived session is pruned too (§5 trap 16).
		if n := prune(t, s, PruneOptions{AnyAge: true}); n != 1 {
			t.Errorf("pruned %d without the archived filter, want 1", n)
		}
		wantLeft(t, s)
	})

	// upstream: TestPruneSessionFilters::test_archive_sessions_bulk
	t.Run("ArchiveSessionsBulk", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mk(t, s, "a1", hour)
		mk(t, s, "a2", 2*hour)
		mk(t, s, "keep", 10*hour)
		mustCreate(t, s, NewSession{ID: "live", Source: "cli"})
		archive := func() int {
			n, err := s.ArchiveSessions(t.Context(), PruneOptions{After: upNow.Add(-5 * hour)})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := archive(); n != 2 {
			t.Errorf("archived %d, want 2", n)
		}
		got := dbtest.Values[string](t, s.r, "SELECT id || '=' || archived FROM sessions ORDER BY id")
		if diff := cmp.Diff([]string{"a1=1", "a2=1", "keep=0", "live=0"}, got); diff != "" {
			t.Errorf("archived flags (-want +got):\n%s", diff)
		}
		if n := archive(); n != 0 {
			t.Errorf("a second ArchiveSessions archived %d, want 0", n)
		}
	})

	// upstream: TestPruneSessionFilters::test_list_prune_candidates_matches_prune
	t.Run("ListPruneCandidatesMatchesPrune", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mkEnded(t, s, "c1", "cli", hour, "", "done", 0, "")
		mkEnded(t, s, "c2", "telegram", hour, "", "done", 0, "")
		opts := PruneOptions{AnyAge: true, After: time.Unix(0, 0), Source: "cli"}
		if diff := cmp.Diff([]string{"c1"}, candidates(t, s, opts)); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
		if n := prune(t, s, opts); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
	})

	// upstream: TestPruneSessionFilters::test_default_signature_unchanged
	t.Run("DefaultSignatureUnchanged", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mk(t, s, "ancient", 200*24*hour)
		mk(t, s, "fresh", time.Minute)
		if n := prune(t, s, PruneOptions{OlderThan: 90 * 24 * hour}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "fresh")
		if n := prune(t, s, PruneOptions{}); n != 0 { // zero OlderThan: 90 days
			t.Errorf("pruned %d with the default age, want 0", n)
		}
	})

	// upstream: TestPruneSessionFilters::test_model_like_filter
	t.Run("ModelLikeFilter", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mkRich(t, s, "m1", "model = ?", "anthropic/claude-sonnet-4.6")
		mkRich(t, s, "m2", "model = ?", "openai/gpt-5.4")
		mkRich(t, s, "m3", "model = NULL")
		if diff := cmp.Diff([]string{"m1"}, candidates(t, s, PruneOptions{AnyAge: true, ModelLike: "Sonnet"})); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
		if n := prune(t, s, PruneOptions{AnyAge: true, ModelLike: "gpt-5"}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "m1", "m3")
	})

	// upstream: TestPruneSessionFilters::test_provider_filter
	t.Run("ProviderFilter", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mkRich(t, s, "p1", "billing_provider = ?", "openrouter")
		mkRich(t, s, "p2", "billing_provider = ?", "Anthropic")
		mkRich(t, s, "p3", "billing_provider = NULL")
		if n := prune(t, s, PruneOptions{AnyAge: true, Provider: "anthropic"}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "p1", "p3")
	})

	// upstream: TestPruneSessionFilters::test_user_chat_filters
	t.Run("UserChatFilters", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mkRich(t, s, "u1", "user_id = ?, chat_id = ?, chat_type = ?", "alice", "c-1", "dm")
		mkRich(t, s, "u2", "user_id = ?, chat_id = ?, chat_type = ?", "bob", "c-2", "group")
		if n := prune(t, s, PruneOptions{AnyAge: true, UserID: "alice"}); n != 1 {
			t.Errorf("pruned %d by user, want 1", n)
		}
		wantLeft(t, s, "u2")
		if n := prune(t, s, PruneOptions{AnyAge: true, ChatID: "c-2", ChatType: "group"}); n != 1 {
			t.Errorf("pruned %d by chat, want 1", n)
		}
		wantLeft(t, s)
	})

	// upstream: TestPruneSessionFilters::test_branch_like_filter
	t.Run("BranchLikeFilter", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mkRich(t, s, "b1", "git_branch = ?", "feature/old-experiment")
		mkRich(t, s, "b2", "git_branch = ?", "main")
		if n := prune(t, s, PruneOptions{AnyAge: true, BranchLike: "experiment"}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "b2")
	})

	// upstream: TestPruneSessionFilters::test_token_cost_toolcall_bounds
	t.Run("TokenCostToolcallBounds", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		set := "input_tokens = ?, output_tokens = ?, actual_cost_usd = ?, estimated_cost_usd = ?, tool_call_count = ?"
		mkRich(t, s, "cheap", set, 100, 50, 0.001, nil, 0)
		mkRich(t, s, "mid", set, 5000, 2000, nil, 0.5, 12)
		mkRich(t, s, "big", set, 90000, 30000, 4.2, nil, 80)
		for _, c := range []struct {
			name string
			opts PruneOptions
			want []string
		}{
			{"MaxTokens", PruneOptions{MaxTokens: new(int64(200))}, []string{"cheap"}},
			{"TokenRange", PruneOptions{MinTokens: new(int64(7000)), MaxTokens: new(int64(10000))}, []string{"mid"}},
			{"CostFallsBackToEstimate", PruneOptions{MinCost: new(0.4), MaxCost: new(1.0)}, []string{"mid"}},
			{"MinToolCalls", PruneOptions{MinToolCalls: new(int64(50))}, []string{"big"}},
		} {
			c.opts.AnyAge = true
			if diff := cmp.Diff(c.want, candidates(t, s, c.opts)); diff != "" {
				t.Errorf("%s: candidates (-want +got):\n%s", c.name, diff)
			}
		}
		if n := prune(t, s, PruneOptions{AnyAge: true, MaxToolCalls: new(int64(0))}); n != 1 {
			t.Errorf("pruned %d, want 1", n)
		}
		wantLeft(t, s, "big", "mid")
	})

	// upstream: TestPruneSessionFilters::test_unknown_filter_rejected. An
	// unknown field of PruneOptions does not compile; what the store
	// refuses at run time is a filter SQLite cannot run or text that is
	// not UTF-8, with a typed error and nothing written.
	t.Run("BadFilterRejected", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		mk(t, s, "x", time.Minute)
		for _, c := range []struct {
			opts PruneOptions
			want error
			msg  string
		}{
			{PruneOptions{AnyAge: true, TitleLike: strings.Repeat("x", maxLikePattern)}, ErrInvalidFilter,
				"store: prune sessions: title filter: invalid filter: longer than 50000 bytes as a LIKE pattern"},
			{PruneOptions{AnyAge: true, CwdPrefix: strings.Repeat("/x", maxLikePattern/2)}, ErrInvalidFilter,
				"store: prune sessions: cwd prefix: invalid filter: longer than 50000 bytes as a LIKE pattern"},
			{PruneOptions{AnyAge: true, ModelLike: "\xff"}, ErrInvalidText,
				"store: prune sessions: model filter: text is not valid UTF-8"},
		} {
			_, err := s.PruneSessions(t.Context(), c.opts)
			if !errors.Is(err, c.want) || err.Error() != c.msg {
				t.Errorf("PruneSessions = %v; want %s", err, c.msg)
			}
		}
		wantLeft(t, s, "x")
	})
}

// TestPruneFilterText: the text filters behave as upstream's (each answer
// checked by running c2a3b9ce5 on the same rows): % and _ are wildcards,
// non-ASCII letters match only in the case Python's lower() gives the
// needle (SQLite lowers ASCII only), a cwd prefix loses its trailing
// separators and matches Windows paths.
func TestPruneFilterText(t *testing.T) {
	t.Parallel()
	s := openPruneStore(t)
	for _, r := range []struct{ id, title, cwd string }{
		{"pct", "100% done", `C:\work\x`},
		{"under", "a_b", "/srv"},
		{"plain", "ab", "/srv/x"},
		{"accent", "Émile", "/srvx"},
		{"lower", "émile", ""},
	} {
		mkEnded(t, s, r.id, "cli", time.Minute, r.title, "done", 0, r.cwd)
	}
	for _, c := range []struct {
		name string
		opts PruneOptions
		want []string
	}{
		{"PercentIsWildcard", PruneOptions{TitleLike: "0%d"}, []string{"pct"}},
		{"UnderscoreIsWildcard", PruneOptions{TitleLike: "a_b"}, []string{"under"}},
		{"NonASCIILowered", PruneOptions{TitleLike: "ÉMILE"}, []string{"lower"}},
		{"CwdTrailingSlash", PruneOptions{CwdPrefix: "/srv//"}, []string{"plain", "under"}},
		{"CwdWindows", PruneOptions{CwdPrefix: `c:\WORK`}, []string{"pct"}},
	} {
		c.opts.AnyAge = true
		if diff := cmp.Diff(c.want, candidates(t, s, c.opts)); diff != "" {
			t.Errorf("%s: candidates (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestPyLower checks pytext.Lower, which the prune filters use, against Python's str.lower() on the cases
// where full case mapping differs from Go's per-rune lowering.
func TestPyLower(t *testing.T) {
	t.Parallel()
	in := []string{"ÉMILE", "İstanbul", "ΟΔΟΣ", "ΟΔΟΣ.", "ΣΑ", "Σ", "AΣ'B", "ΑΣ\u0301", "a Σ b", "ΣΣ", "ǅ", "ẞ", "Ω", "K", "ABC_%"}
	var want []string
	dbtest.Python(t, "import json,sys; print(json.dumps([s.lower() for s in json.load(sys.stdin)]))", in, &want)
	var got []string
	for _, s := range in {
		got = append(got, pytext.Lower(s))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pytext.Lower vs Python's str.lower() (-python +go):\n%s", diff)
	}
}

func TestUpSessionArchive(t *testing.T) {
	t.Parallel()

	seed := func(t *testing.T, s *Store, id string, archived bool) {
		t.Helper()
		mustCreate(t, s, NewSession{ID: id, Source: "cli"})
		mustAppend(t, s, id, NewMessage{Role: "user", Content: new("hello from " + id)})
		if archived {
			if ok, err := s.SetSessionArchived(t.Context(), id, true); err != nil || !ok {
				t.Fatalf("SetSessionArchived(%s) = %v, %v", id, ok, err)
			}
		}
	}
	archived := func(t *testing.T, s *Store, id string) int64 {
		t.Helper()
		return mustSession(t, s, id).Archived
	}
	count := func(t *testing.T, s *Store, opts CountOptions) int64 {
		t.Helper()
		n, err := s.CountSessions(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// upstream: TestSessionArchive::test_set_session_archived_roundtrip
	t.Run("SetSessionArchivedRoundtrip", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		seed(t, s, "s1", false)
		for _, flag := range []bool{true, false} {
			if ok, err := s.SetSessionArchived(t.Context(), "s1", flag); err != nil || !ok {
				t.Errorf("SetSessionArchived(s1, %v) = %v, %v; want true", flag, ok, err)
			}
			if got, want := archived(t, s, "s1"), boolInt(flag); got != want {
				t.Errorf("archived = %d, want %d", got, want)
			}
		}
		// A row that holds the flag already counts as updated (rowcount 1).
		if ok, err := s.SetSessionArchived(t.Context(), "s1", false); err != nil || !ok {
			t.Errorf("SetSessionArchived(s1, false) again = %v, %v; want true", ok, err)
		}
	})

	// upstream: TestSessionArchive::test_set_session_archived_missing_row
	t.Run("SetSessionArchivedMissingRow", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if ok, err := s.SetSessionArchived(t.Context(), "nope", true); err != nil || ok {
			t.Errorf("SetSessionArchived(nope) = %v, %v; want false, nil", ok, err)
		}
	})

	// upstream: TestSessionArchive::test_archived_excluded_by_default
	// (session_count; its list_sessions_rich half is the listings' port)
	t.Run("ArchivedExcludedByDefault", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		seed(t, s, "live", false)
		seed(t, s, "hidden", true)
		if n, err := s.SessionCount(t.Context(), ""); err != nil || n != 1 {
			t.Errorf("SessionCount = %d, %v; want 1", n, err)
		}
	})

	// upstream: TestSessionArchive::test_archived_only_and_include
	// (session_count; its list_sessions_rich half is the listings' port)
	t.Run("ArchivedOnlyAndInclude", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		seed(t, s, "live", false)
		seed(t, s, "hidden", true)
		if n := count(t, s, CountOptions{ArchivedOnly: true}); n != 1 {
			t.Errorf("archived only: %d, want 1", n)
		}
		if n := count(t, s, CountOptions{IncludeArchived: true}); n != 2 {
			t.Errorf("archived included: %d, want 2", n)
		}
	})
}

// compressionPair is test_session_archiving.py's _compression_pair: root
// ended by compression 100 s ago, tip its continuation.
func compressionPair(t testing.TB, s *Store) {
	t.Helper()
	base := float64(TimestampOf(upNow)) - 100
	mustCreate(t, s, NewSession{ID: "root", Source: "cli"})
	mustCreate(t, s, NewSession{ID: "tip", Source: "cli", ParentSessionID: "root"})
	execSQL(t, s, "UPDATE sessions SET started_at = ?, ended_at = ?, end_reason = 'compression', message_count = 1 WHERE id = 'root'", base, base+10)
	execSQL(t, s, "UPDATE sessions SET started_at = ?, message_count = 1 WHERE id = 'tip'", base+20)
}

// TestUpSessionArchiving ports tests/hermes_state/test_session_archiving.py
// (the flags of both rows; the list_sessions_rich projections are the
// listings' port) and checks the lineage walk both ways and through a
// cycle.
func TestUpSessionArchiving(t *testing.T) {
	t.Parallel()
	flags := func(t *testing.T, s *Store) []string {
		t.Helper()
		return dbtest.Values[string](t, s.r, "SELECT id || '=' || archived FROM sessions ORDER BY id")
	}

	// upstream: test_session_archiving.py::test_archiving_compression_tip_archives_projected_root
	// upstream: test_session_archiving.py::test_unarchiving_compression_tip_unarchives_projected_root
	t.Run("TipArchivesRootAndBack", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		compressionPair(t, s)
		if ok, err := s.SetSessionArchived(t.Context(), "tip", true); err != nil || !ok {
			t.Fatalf("SetSessionArchived(tip) = %v, %v", ok, err)
		}
		if diff := cmp.Diff([]string{"root=1", "tip=1"}, flags(t, s)); diff != "" {
			t.Errorf("after archiving the tip (-want +got):\n%s", diff)
		}
		if ok, err := s.SetSessionArchived(t.Context(), "tip", false); err != nil || !ok {
			t.Fatalf("SetSessionArchived(tip, false) = %v, %v", ok, err)
		}
		if diff := cmp.Diff([]string{"root=0", "tip=0"}, flags(t, s)); diff != "" {
			t.Errorf("after unarchiving the tip (-want +got):\n%s", diff)
		}
	})

	// The lineage is the compression chain only: from b in a→b→c (a and b
	// ended 'compression') it takes a, b, c and b's other child br, never
	// the unrelated x→y; a hand-made cycle ends. (c2a3b9ce5 on the same
	// rows gives the same flags at both steps.)
	t.Run("LineageOnly", func(t *testing.T) {
		t.Parallel()
		s := openPruneStore(t)
		for _, r := range [][3]string{{"a", "", "compression"}, {"b", "a", "compression"}, {"c", "b", ""},
			{"br", "b", ""}, {"x", "", "user_exit"}, {"y", "x", ""}} {
			mustCreate(t, s, NewSession{ID: r[0], Source: "cli", ParentSessionID: r[1]})
			if r[2] != "" {
				mustEnd(t, s, r[0], r[2])
			}
		}
		if ok, err := s.SetSessionArchived(t.Context(), "b", true); err != nil || !ok {
			t.Fatalf("SetSessionArchived(b) = %v, %v", ok, err)
		}
		if diff := cmp.Diff([]string{"a=1", "b=1", "br=1", "c=1", "x=0", "y=0"}, flags(t, s)); diff != "" {
			t.Errorf("archived flags (-want +got):\n%s", diff)
		}
		execSQL(t, s, "UPDATE sessions SET parent_session_id = 'b' WHERE id = 'a'")
		if ok, err := s.SetSessionArchived(t.Context(), "c", false); err != nil || !ok {
			t.Fatalf("SetSessionArchived(c, false) through a cycle = %v, %v", ok, err)
		}
		// From c the walk goes up through b and a (and the cycle back to b)
		// but never down into b's other child: br stays archived, as
		// upstream leaves it.
		if diff := cmp.Diff([]string{"a=0", "b=0", "br=1", "c=0", "x=0", "y=0"}, flags(t, s)); diff != "" {
			t.Errorf("archived flags after the cycle (-want +got):\n%s", diff)
		}
	})
}

// TestUpSessionMdExport ports tests/hermes_state/test_session_md_export.py's
// candidate selection (its lineage and lineage-export tests belong to the
// lineage and export ports).
func TestUpSessionMdExport(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	// The upstream tests pin time.time() at 2,000,000.
	now := time.Unix(2_000_000, 0)
	open := func(t *testing.T) *Store {
		s, _ := openStore(t, &Options{Now: func() time.Time { return now }})
		return s
	}

	// upstream: test_session_md_export.py::test_export_candidates_via_prune_filters_ended_old_sessions
	t.Run("EndedOldSessions", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		for _, r := range []struct {
			id           string
			start, ended float64
		}{{"old_cli", 1_000_000, 1_000_010}, {"new_cli", 1_990_000, 1_990_010}, {"old_active", 1_000_000, 0}} {
			mustCreate(t, s, NewSession{ID: r.id, Source: "cli"})
			if r.ended != 0 {
				mustEnd(t, s, r.id, "done")
				execSQL(t, s, "UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = ?", r.start, r.ended, r.id)
			} else {
				execSQL(t, s, "UPDATE sessions SET started_at = ? WHERE id = ?", r.start, r.id)
			}
		}
		got := candidates(t, s, PruneOptions{Before: now.Add(-5 * day)})
		if diff := cmp.Diff([]string{"old_cli"}, got); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
	})

	// upstream: test_session_md_export.py::test_export_candidates_via_prune_ands_source_filter
	t.Run("AndsSourceFilter", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		for _, r := range [][2]string{{"old_cli", "cli"}, {"old_telegram", "telegram"}} {
			mustCreate(t, s, NewSession{ID: r[0], Source: r[1]})
			mustEnd(t, s, r[0], "done")
			execSQL(t, s, "UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = ?", 1_000_000.0, 1_000_010.0, r[0])
		}
		got := candidates(t, s, PruneOptions{Before: now.Add(-5 * day), Source: "telegram"})
		if diff := cmp.Diff([]string{"old_telegram"}, got); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
	})
}

// TestPruneDoesNotCascadeDelegates: prune_sessions orphans a tagged
// delegate child instead of deleting it with its parent (§5 trap 14), and
// ArchiveSessions deletes nothing; a dry run of either changes nothing.
func TestPruneDoesNotCascadeDelegates(t *testing.T) {
	t.Parallel()
	s := openPruneStore(t)
	mk(t, s, "p", 100*24*time.Hour)
	mustUpsert(t, s, NewSession{ID: "d", Source: "cli", ParentSessionID: "p", ModelConfig: []byte(`{"_delegate_from": "p"}`)})
	mk(t, s, "q", 100*24*time.Hour)
	before := dumpTables(t, s)
	if n, err := s.ArchiveSessions(t.Context(), PruneOptions{DryRun: true}); err != nil || n != 2 {
		t.Errorf("ArchiveSessions dry run = %d, %v; want 2", n, err)
	}
	if n := prune(t, s, PruneOptions{DryRun: true}); n != 2 {
		t.Errorf("PruneSessions dry run = %d, want 2", n)
	}
	if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
		t.Errorf("the dry runs changed the database (-before +after):\n%s", diff)
	}
	if n := prune(t, s, PruneOptions{IDs: []string{"p"}}); n != 1 {
		t.Errorf("pruned %d, want 1", n)
	}
	if diff := cmp.Diff([]string{"d<", "q<"}, sessionsLeft(t, s)); diff != "" {
		t.Errorf("sessions left (-want +got):\n%s", diff)
	}
}

// TestPruneEmptyGhostSessions: only TUI sessions that ended untitled with
// no message row at all (a rewound one counts), started over 24 hours ago,
// are deleted (with their transcripts), as c2a3b9ce5 deletes them on the
// same rows. A ghost's child becomes a root; upstream's prune fails on it
// with the foreign key ("FOREIGN KEY constraint failed").
func TestPruneEmptyGhostSessions(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, &Options{Now: func() time.Time { return upNow }})
	dir := filepath.Dir(path)
	old := upNow.Add(-25 * time.Hour)
	for _, r := range []struct {
		id, source, title string
		start             time.Time
		ended, message    bool
	}{
		{"ghost", "tui", "", old, true, false},
		{"young", "tui", "", upNow.Add(-23 * time.Hour), true, false},
		{"titled", "tui", "t", old, true, false},
		{"live", "tui", "", old, false, false},
		{"cli", "cli", "", old, true, false},
		{"rewound", "tui", "", old, true, true},
	} {
		mustCreate(t, s, NewSession{ID: r.id, Source: r.source})
		if r.title != "" {
			execSQL(t, s, "UPDATE sessions SET title = ? WHERE id = ?", r.title, r.id)
		}
		if r.message {
			mustAppend(t, s, r.id, NewMessage{Role: "user", Content: new("x")})
			execSQL(t, s, "UPDATE messages SET active = 0 WHERE session_id = ?", r.id)
		}
		if r.ended {
			mustEnd(t, s, r.id, "done")
		}
		backdate(t, s, r.id, float64(TimestampOf(r.start)))
	}
	mustCreate(t, s, NewSession{ID: "child", Source: "tui", ParentSessionID: "ghost"})
	writeTranscripts(t, dir, "ghost.json", "young.json")
	n, err := s.PruneEmptyGhostSessions(t.Context(), dir)
	if err != nil || n != 1 {
		t.Errorf("PruneEmptyGhostSessions = %d, %v; want 1", n, err)
	}
	if diff := cmp.Diff([]string{"child<", "cli<", "live<", "rewound<", "titled<", "young<"}, sessionsLeft(t, s)); diff != "" {
		t.Errorf("sessions left (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"young.json"}, present(t, dir, "ghost.json", "young.json")); diff != "" {
		t.Errorf("transcripts left (-want +got):\n%s", diff)
	}
}

// TestFinalizeOrphanedCompressionSessions: a continuation of a
// compression-ended parent, with messages, no counted call, open and older
// than 7 days, is ended now as 'orphaned_compression'; each other case is
// left alone (c2a3b9ce5 on the same rows: the same one).
func TestFinalizeOrphanedCompressionSessions(t *testing.T) {
	t.Parallel()
	s := openPruneStore(t)
	old := float64(TimestampOf(upNow.Add(-8 * 24 * time.Hour)))
	young := float64(TimestampOf(upNow.Add(-6 * 24 * time.Hour)))
	mustCreate(t, s, NewSession{ID: "parent", Source: "cli"})
	mustEnd(t, s, "parent", "compression")
	mustCreate(t, s, NewSession{ID: "other_parent", Source: "cli"})
	mustEnd(t, s, "other_parent", "user_exit")
	for _, r := range []struct {
		id, parent string
		start      float64
		calls      int64
		messages   bool
	}{
		{"orphan", "parent", old, 0, true},
		{"young", "parent", young, 0, true},
		{"called", "parent", old, 1, true},
		{"empty", "parent", old, 0, false},
		{"not_compression", "other_parent", old, 0, true},
	} {
		mustCreate(t, s, NewSession{ID: r.id, Source: "cli", ParentSessionID: r.parent})
		if r.messages {
			mustAppend(t, s, r.id, NewMessage{Role: "user", Content: new("x")})
		}
		execSQL(t, s, "UPDATE sessions SET started_at = ?, api_call_count = ? WHERE id = ?", r.start, r.calls, r.id)
	}
	n, err := s.FinalizeOrphanedCompressionSessions(t.Context())
	if err != nil || n != 1 {
		t.Errorf("FinalizeOrphanedCompressionSessions = %d, %v; want 1", n, err)
	}
	got := dbtest.Rows(t, s.r, "SELECT id, ended_at, end_reason FROM sessions WHERE parent_session_id IS NOT NULL ORDER BY id")
	want := [][]any{
		{"called", nil, nil}, {"empty", nil, nil}, {"not_compression", nil, nil},
		{"orphan", float64(TimestampOf(upNow)), "orphaned_compression"}, {"young", nil, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("continuations (-want +got):\n%s", diff)
	}
	if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages WHERE session_id = 'orphan'"); n != 1 {
		t.Errorf("orphan has %d messages, want 1 (kept)", n)
	}
}
