package store

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Ports of the reference's listing tests (reference-tests.md A.16, A.17,
// the four list_sessions_rich tests of A.18) and the ⚠ cases of spec §7.8,
// §7.9 and §7.10. Expected values were checked against hermes_state.py at
// the reference commit.

// listRich runs ListSessionsRich and fails the test on error.
func listRich(t *testing.T, s *Store, opts ListOptions) []RichSession {
	t.Helper()
	rows, err := s.ListSessionsRich(context.Background(), opts)
	if err != nil {
		t.Fatalf("ListSessionsRich(%+v): %v", opts, err)
	}
	return rows
}

// richIDs returns the ids of rows, in order.
func richIDs(rows []RichSession) []string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// richRow returns the row with id, failing the test when there is none.
func richRow(t *testing.T, rows []RichSession, id string) RichSession {
	t.Helper()
	for _, r := range rows {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no row %q in %v", id, richIDs(rows))
	return RichSession{}
}

// appendText appends a message with text content.
func appendText(t *testing.T, s *Store, id, role, content string) {
	t.Helper()
	if _, err := s.AppendMessage(context.Background(), id, NewMessage{Role: role, Content: &content}); err != nil {
		t.Fatalf("AppendMessage(%q, %s): %v", id, role, err)
	}
}

// createChild creates a cli session with a parent.
func createChild(t *testing.T, s *Store, id, parent string) {
	t.Helper()
	if _, err := s.CreateSession(context.Background(), NewSession{ID: id, Source: "cli", ParentSessionID: parent}); err != nil {
		t.Fatalf("CreateSession(%q, parent %q): %v", id, parent, err)
	}
}

// nowSeconds is time.time().
func nowSeconds() float64 { return float64(TimestampOf(time.Now())) }

func wantIDsIn(t *testing.T, ids []string, in, out []string) {
	t.Helper()
	for _, id := range in {
		if !slices.Contains(ids, id) {
			t.Errorf("%q not listed; ids = %v", id, ids)
		}
	}
	for _, id := range out {
		if slices.Contains(ids, id) {
			t.Errorf("%q listed; ids = %v", id, ids)
		}
	}
}

// TestListSessionsRich is A.16 TestListSessionsRich.
//
// upstream: TestListSessionsRich, its 11 tests of v11 (one subtest each,
// named after them); of its 8 new ones 5 are TestListSessionsRichV21, the
// rest docs/upstream-tests/listing.md says where.
func TestListSessionsRich(t *testing.T) {
	t.Parallel()

	t.Run("PreviewFromFirstUserMessage", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		appendText(t, s, "s1", "system", "You are a helpful assistant.")
		appendText(t, s, "s1", "user", "Help me refactor the auth module please")
		appendText(t, s, "s1", "assistant", "Sure, let me look at it.")
		rows := listRich(t, s, ListOptions{})
		if len(rows) != 1 {
			t.Fatalf("%d rows, want 1", len(rows))
		}
		if !strings.Contains(rows[0].Preview, "Help me refactor the auth module") {
			t.Errorf("preview = %q", rows[0].Preview)
		}
	})

	t.Run("PreviewTruncatedAt60", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		appendText(t, s, "s1", "user", strings.Repeat("A", 100))
		p := listRich(t, s, ListOptions{})[0].Preview
		if len(p) != 63 || !strings.HasSuffix(p, "...") {
			t.Errorf("preview = %q (len %d), want 60 chars + \"...\"", p, len(p))
		}
	})

	t.Run("PreviewEmptyWhenNoUserMessages", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		appendText(t, s, "s1", "system", "System prompt")
		if p := listRich(t, s, ListOptions{})[0].Preview; p != "" {
			t.Errorf("preview = %q, want \"\"", p)
		}
	})

	t.Run("LastActiveFromLatestMessage", func(t *testing.T) {
		t.Parallel()
		// The reference sleeps 10 ms between the two messages.
		s, _ := openStore(t, &Options{Now: steppingClock(refEpoch, 10*time.Millisecond)})
		createSessions(t, s, "s1")
		appendText(t, s, "s1", "user", "Hello")
		appendText(t, s, "s1", "assistant", "Hi there!")
		r := listRich(t, s, ListOptions{})[0]
		if !(r.LastActive > r.StartedAt) {
			t.Errorf("last_active %v not > started_at %v", r.LastActive, r.StartedAt)
		}
	})

	t.Run("LastActiveFallbackToStartedAt", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		r := listRich(t, s, ListOptions{})[0]
		if r.LastActive != r.StartedAt {
			t.Errorf("last_active %v != started_at %v", r.LastActive, r.StartedAt)
		}
	})

	t.Run("RichListIncludesTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		setTitle(t, s, "s1", "refactoring auth")
		if diff := cmp.Diff(new("refactoring auth"), listRich(t, s, ListOptions{})[0].Title); diff != "" {
			t.Errorf("title (-want +got):\n%s", diff)
		}
	})

	t.Run("RichListSourceFilter", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		if _, err := s.CreateSession(context.Background(), NewSession{ID: "s2", Source: "telegram"}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"s1"}, richIDs(listRich(t, s, ListOptions{Source: "cli"}))); diff != "" {
			t.Errorf("ids (-want +got):\n%s", diff)
		}
	})

	t.Run("PreviewNewlinesCollapsed", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "s1")
		appendText(t, s, "s1", "user", "Line one\nLine two\nLine three")
		p := listRich(t, s, ListOptions{})[0].Preview
		if strings.Contains(p, "\n") || !strings.Contains(p, "Line one Line two") {
			t.Errorf("preview = %q", p)
		}
	})

	t.Run("BranchSessionVisibleInList", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "parent")
		if err := s.EndSession(context.Background(), "parent", "branched"); err != nil {
			t.Fatal(err)
		}
		createChild(t, s, "branch", "parent")
		appendText(t, s, "branch", "user", "Exploring the alternative approach")
		wantIDsIn(t, richIDs(listRich(t, s, ListOptions{})), []string{"branch"}, nil)
	})

	t.Run("SubagentSessionStillHidden", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "root")
		createChild(t, s, "delegate", "root")
		wantIDsIn(t, richIDs(listRich(t, s, ListOptions{})), []string{"root"}, []string{"delegate"})
	})

	t.Run("CompressionChildStillHidden", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		t0 := nowSeconds()
		createSessions(t, s, "root")
		execSQL(t, s, "UPDATE sessions SET started_at=? WHERE id=?", t0, "root")
		execSQL(t, s, "UPDATE sessions SET ended_at=?, end_reason='compression' WHERE id=?", t0+1800, "root")
		createChild(t, s, "continuation", "root")
		execSQL(t, s, "UPDATE sessions SET started_at=? WHERE id=?", t0+1801, "continuation")
		ids := richIDs(listRich(t, s, ListOptions{RawCompressionRoots: true}))
		wantIDsIn(t, ids, nil, []string{"continuation"})
	})
}

// buildCompressionChain is the reference's _build_compression_chain:
// root1 → (delegate1, a subagent started while root1 was live) → mid1 → tip1,
// root1 and mid1 ended by compression. Timestamps are set with raw SQL;
// messages get the store clock's timestamps.
func buildCompressionChain(t *testing.T, s *Store, t0 float64) {
	t.Helper()
	createSessions(t, s, "root1")
	execSQL(t, s, "UPDATE sessions SET started_at=? WHERE id=?", t0, "root1")
	appendText(t, s, "root1", "user", "help me refactor auth")

	createChild(t, s, "delegate1", "root1")
	execSQL(t, s, "UPDATE sessions SET started_at=?, ended_at=? WHERE id=?", t0+600, t0+650, "delegate1")
	appendText(t, s, "delegate1", "user", "delegate task")

	tCompressRoot := t0 + 1800
	execSQL(t, s, "UPDATE sessions SET ended_at=?, end_reason=? WHERE id=?", tCompressRoot, "compression", "root1")

	createChild(t, s, "mid1", "root1")
	execSQL(t, s, "UPDATE sessions SET started_at=? WHERE id=?", tCompressRoot+1, "mid1")
	appendText(t, s, "mid1", "user", "continuing")

	tCompressMid := tCompressRoot + 1800
	execSQL(t, s, "UPDATE sessions SET ended_at=?, end_reason=? WHERE id=?", tCompressMid, "compression", "mid1")

	createChild(t, s, "tip1", "mid1")
	execSQL(t, s, "UPDATE sessions SET started_at=? WHERE id=?", tCompressMid+1, "tip1")
	appendText(t, s, "tip1", "user", "latest message")
}

func compressionTip(t *testing.T, s *Store, id string) string {
	t.Helper()
	tip, err := s.CompressionTip(context.Background(), id)
	if err != nil {
		t.Fatalf("CompressionTip(%q): %v", id, err)
	}
	return tip
}

// TestCompressionChainProjection is A.17 TestCompressionChainProjection.
//
// upstream: TestCompressionChainProjection, its 7 tests of v11 (one subtest
// each); test_list_projection_uses_tip_cwd is TestCompressionChainProjectionV21.
func TestCompressionChainProjection(t *testing.T) {
	t.Parallel()

	t.Run("GetCompressionTipWalksFullChain", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		buildCompressionChain(t, s, nowSeconds()-3600)
		for _, id := range []string{"root1", "mid1", "tip1"} {
			if got := compressionTip(t, s, id); got != "tip1" {
				t.Errorf("CompressionTip(%q) = %q, want tip1", id, got)
			}
		}
	})

	t.Run("GetCompressionTipReturnsSelfForUncompressed", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		createSessions(t, s, "solo")
		if got := compressionTip(t, s, "solo"); got != "solo" {
			t.Errorf("CompressionTip(solo) = %q, want solo", got)
		}
	})

	t.Run("GetCompressionTipSkipsDelegateChildren", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		buildCompressionChain(t, s, nowSeconds()-3600)
		if got := compressionTip(t, s, "root1"); got != "tip1" {
			t.Errorf("CompressionTip(root1) = %q, want tip1", got)
		}
	})

	t.Run("ListSurfacesTipForCompressedRoot", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		buildCompressionChain(t, s, nowSeconds()-3600)
		createSessions(t, s, "solo")
		appendText(t, s, "solo", "user", "standalone")

		rows := listRich(t, s, ListOptions{Source: "cli", Limit: 20})
		wantIDsIn(t, richIDs(rows), []string{"tip1", "solo"}, []string{"root1", "mid1", "delegate1"})
		tip := richRow(t, rows, "tip1")
		if tip.LineageRootID != "root1" {
			t.Errorf("_lineage_root_id = %q, want root1", tip.LineageRootID)
		}
		if !strings.HasPrefix(tip.Preview, "latest message") {
			t.Errorf("preview = %q, want prefix \"latest message\"", tip.Preview)
		}
		if tip.EndedAt != nil || tip.EndReason != nil {
			t.Errorf("ended_at, end_reason = %v, %v; want NULL, NULL", tip.EndedAt, tip.EndReason)
		}
	})

	t.Run("ListWithoutProjectionReturnsRawRoot", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		buildCompressionChain(t, s, nowSeconds()-3600)
		rows := listRich(t, s, ListOptions{Source: "cli", Limit: 20, RawCompressionRoots: true})
		wantIDsIn(t, richIDs(rows), []string{"root1"}, []string{"tip1"})
		root := richRow(t, rows, "root1")
		if diff := cmp.Diff(new("compression"), root.EndReason); diff != "" {
			t.Errorf("end_reason (-want +got):\n%s", diff)
		}
		if root.LineageRootID != "" {
			t.Errorf("_lineage_root_id = %q, want absent", root.LineageRootID)
		}
	})

	t.Run("ListPreservesSortByStartedAt", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		t0 := nowSeconds() - 3600
		buildCompressionChain(t, s, t0)
		createSessions(t, s, "newer")
		execSQL(t, s, "UPDATE sessions SET started_at=? WHERE id=?", t0+120, "newer")
		appendText(t, s, "newer", "user", "newer session started after root1")
		ids := richIDs(listRich(t, s, ListOptions{Source: "cli", Limit: 20}))
		iNewer, iTip := slices.Index(ids, "newer"), slices.Index(ids, "tip1")
		if iNewer < 0 || iTip < 0 || iNewer >= iTip {
			t.Errorf("ids = %v, want newer before tip1", ids)
		}
	})

	t.Run("ListHandlesBrokenChainGracefully", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		t0 := nowSeconds() - 100
		createSessions(t, s, "orphan")
		execSQL(t, s, "UPDATE sessions SET started_at=? WHERE id=?", t0, "orphan")
		execSQL(t, s, "UPDATE sessions SET ended_at=?, end_reason=? WHERE id=?", t0+10, "compression", "orphan")
		rows := listRich(t, s, ListOptions{Source: "cli", Limit: 10})
		row := richRow(t, rows, "orphan")
		if row.LineageRootID != "" {
			t.Errorf("_lineage_root_id = %q, want absent", row.LineageRootID)
		}
		if diff := cmp.Diff(new("compression"), row.EndReason); diff != "" {
			t.Errorf("end_reason (-want +got):\n%s", diff)
		}
	})
}

// TestCompressionProjectionFields checks the projection field by field
// (spec §7.8, upstream-v21.md §3.9): the tip's id, end, counts, title, last
// activity, preview, model, system prompt and, since v21, cwd, git branch
// and repository root (even NULL ones) replace the root's, and so do the
// stored values of its end and counts; the root's start, source, parent
// and token counters stay.
func TestCompressionProjectionFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t, &Options{Now: steppingClock(refEpoch, time.Second)})
	if _, err := s.CreateSession(ctx, NewSession{ID: "root1", Source: "cli", Model: "m-root", SystemPrompt: "sp-root"}); err != nil {
		t.Fatal(err)
	}
	setTitle(t, s, "root1", "root title")
	if err := s.UpdateTokenCounts(ctx, "root1", TokenUpdate{InputTokens: 100}); err != nil {
		t.Fatal(err)
	}
	appendText(t, s, "root1", "user", "root question")
	appendText(t, s, "root1", "assistant", "root answer")
	execSQL(t, s, "UPDATE sessions SET started_at=1000, ended_at=2000, end_reason='compression' WHERE id='root1'")

	if _, err := s.CreateSession(ctx, NewSession{ID: "tip1", Source: "cli", Model: "m-tip", ParentSessionID: "root1"}); err != nil {
		t.Fatal(err)
	}
	setTitle(t, s, "tip1", "tip title")
	if err := s.UpdateTokenCounts(ctx, "tip1", TokenUpdate{InputTokens: 7}); err != nil {
		t.Fatal(err)
	}
	appendText(t, s, "tip1", "user", "  tip question\n")
	execSQL(t, s, "UPDATE sessions SET started_at=2001 WHERE id='tip1'")
	execSQL(t, s, "UPDATE sessions SET cwd='/root', git_branch='main', git_repo_root='/root', tool_call_count=X'33' WHERE id='root1'")
	execSQL(t, s, "UPDATE sessions SET cwd='/tip', tool_call_count=2.5 WHERE id='tip1'")
	tipMessages, err := s.GetMessages(ctx, "tip1")
	if err != nil || len(tipMessages) != 1 {
		t.Fatalf("GetMessages(tip1) = %v, %v", tipMessages, err)
	}

	rows := listRich(t, s, ListOptions{})
	if len(rows) != 1 {
		t.Fatalf("ids = %v, want [tip1]", richIDs(rows))
	}
	type view struct {
		ID, Source, Preview, LineageRootID string
		ParentSessionID, Title, Model      *string
		SystemPrompt, EndReason            *string
		StartedAt, LastActive              Timestamp
		EndedAt                            *Timestamp
		MessageCount, InputTokens          int64
		Cwd, GitBranch, GitRepoRoot        *string
		ToolCallCount                      int64
		Stored                             map[string]any
	}
	r := rows[0]
	got := view{r.ID, r.Source, r.Preview, r.LineageRootID, r.ParentSessionID, r.Title, r.Model,
		r.SystemPrompt, r.EndReason, r.StartedAt, r.LastActive, r.EndedAt, r.MessageCount, r.InputTokens,
		r.Cwd, r.GitBranch, r.GitRepoRoot, r.ToolCallCount, r.Stored}
	want := view{
		ID: "tip1", Source: "cli", Preview: "tip question", LineageRootID: "root1",
		ParentSessionID: nil, Title: new("tip title"), Model: new("m-tip"),
		SystemPrompt: nil, EndReason: nil,
		StartedAt: 1000, LastActive: tipMessages[0].Timestamp, EndedAt: nil,
		MessageCount: 1, InputTokens: 100,
		Cwd: new("/tip"), GitBranch: nil, GitRepoRoot: nil,
		// the root's BLOB count is gone with it; the tip's REAL stays
		ToolCallCount: 2, Stored: map[string]any{"tool_call_count": 2.5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("projected row (-want +got):\n%s", diff)
	}
}

// upstream: TestExcludeSources::test_list_sessions_rich_excludes_tool_source,
// test_list_sessions_rich_no_exclusion_returns_all, test_list_sessions_rich_source_and_exclude_combined,
// test_list_sessions_rich_exclude_multiple_sources.
//
// TestExcludeSources is the list_sessions_rich half of A.18
// TestExcludeSources (the search_messages half is ported elsewhere).
func TestExcludeSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	create := func(t *testing.T, s *Store, idSource ...string) {
		t.Helper()
		for i := 0; i < len(idSource); i += 2 {
			if _, err := s.CreateSession(ctx, NewSession{ID: idSource[i], Source: idSource[i+1]}); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("ListSessionsRichExcludesToolSource", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		create(t, s, "s1", "cli", "s2", "tool", "s3", "telegram")
		ids := richIDs(listRich(t, s, ListOptions{ExcludeSources: []string{"tool"}}))
		wantIDsIn(t, ids, []string{"s1", "s3"}, []string{"s2"})
	})

	t.Run("ListSessionsRichNoExclusionReturnsAll", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		create(t, s, "s1", "cli", "s2", "tool")
		wantIDsIn(t, richIDs(listRich(t, s, ListOptions{})), []string{"s1", "s2"}, nil)
	})

	t.Run("ListSessionsRichSourceAndExcludeCombined", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		create(t, s, "s1", "cli", "s2", "tool", "s3", "telegram")
		if diff := cmp.Diff([]string{"s2"}, richIDs(listRich(t, s, ListOptions{Source: "tool"}))); diff != "" {
			t.Errorf("ids (-want +got):\n%s", diff)
		}
	})

	t.Run("ListSessionsRichExcludeMultipleSources", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		create(t, s, "s1", "cli", "s2", "tool", "s3", "cron", "s4", "telegram")
		ids := richIDs(listRich(t, s, ListOptions{ExcludeSources: []string{"tool", "cron"}}))
		wantIDsIn(t, ids, []string{"s1", "s4"}, []string{"s2", "s3"})
	})
}

// TestPreviewShaping covers spec §7.8 ⚠: the preview is the first user
// message (by timestamp, then id) whose content is not NULL, newlines and
// carriage returns as spaces, cut by SQL to 63 characters, stripped with
// Python's whitespace set, then cut to 60 code points with "..." when
// longer.
func TestPreviewShaping(t *testing.T) {
	t.Parallel()
	type msg struct {
		role    string
		content *string
	}
	user := func(s string) msg { return msg{"user", &s} }
	for _, tc := range []struct {
		name string
		msgs []msg
		want string
	}{
		{"SixtyOneChars", []msg{user(strings.Repeat("B", 61))}, strings.Repeat("B", 60) + "..."},
		{"SixtyChars", []msg{user(strings.Repeat("b", 60))}, strings.Repeat("b", 60)},
		{"ThreeSpacesThenSixtyOneNoEllipsis", []msg{user("   " + strings.Repeat("C", 61))}, strings.Repeat("C", 60)},
		{"TabsAndTrailingSpaces", []msg{user("\t\t\t" + strings.Repeat("F", 59) + "  ")}, strings.Repeat("F", 59)},
		{"EmptyFirstUserMessageWins", []msg{user(""), user("later")}, ""},
		{"NullContentSkipped", []msg{{"user", nil}, user("later")}, "later"},
		{"AssistantBeforeUserIgnored", []msg{{"assistant", new("first")}, user("  hi  ")}, "hi"},
		{"CJKCountedInCodePoints", []msg{user(strings.Repeat("我", 61))}, strings.Repeat("我", 60) + "..."},
		{"AccentsSixtyNoEllipsis", []msg{user(strings.Repeat("é", 60))}, strings.Repeat("é", 60)},
		{"CRLFToSpaces", []msg{user("a\r\nb\rc\nd")}, "a  b c d"},
		{"WhitespaceOnlyAroundText", []msg{user("  \n  x  \t ")}, "x"},
		{"NELStrippedAsPythonWhitespace", []msg{user("\u0085" + strings.Repeat("D", 62))}, strings.Repeat("D", 60) + "..."},
		{"IdeographicSpaceStripped", []msg{user("\u3000\u3000" + strings.Repeat("E", 70))}, strings.Repeat("E", 60) + "..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, &Options{Now: steppingClock(refEpoch, time.Millisecond)})
			createSessions(t, s, "s")
			for _, m := range tc.msgs {
				if _, err := s.AppendMessage(context.Background(), "s", NewMessage{Role: m.role, Content: m.content}); err != nil {
					t.Fatal(err)
				}
			}
			if got := listRich(t, s, ListOptions{})[0].Preview; got != tc.want {
				t.Errorf("preview = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLineageWalks covers Lineage (spec §7.10), Ancestors, Descendants and
// ResolveResumeSessionID (§7.9), including a parent cycle written by hand,
// which every walk must survive. (TestLineageQueries in queries_test.go
// tests the raw queries.)
func TestLineageWalks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("Tree", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		addSession(t, s, "root", nil, 100)
		addSession(t, s, "mid", new("root"), 200)
		addSession(t, s, "side", new("root"), 250)
		addSession(t, s, "leaf", new("mid"), 300)
		setTitle(t, s, "mid", "middle")

		for id, want := range map[string][]string{
			"leaf":    {"root", "mid", "leaf"},
			"mid":     {"root", "mid"},
			"root":    {"root"},
			"unknown": {"unknown"},
			"":        {""},
		} {
			got, err := s.Lineage(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Lineage(%q) (-want +got):\n%s", id, diff)
			}
		}

		anc, err := s.Ancestors(ctx, "leaf")
		if err != nil {
			t.Fatal(err)
		}
		wantAnc := []LineageNode{
			{ID: "leaf", StartedAt: 300, ParentSessionID: new("mid"), Depth: 0},
			{ID: "mid", Title: new("middle"), StartedAt: 200, ParentSessionID: new("root"), Depth: 1},
			{ID: "root", StartedAt: 100, Depth: 2},
		}
		if diff := cmp.Diff(wantAnc, anc); diff != "" {
			t.Errorf("Ancestors(leaf) (-want +got):\n%s", diff)
		}

		desc, err := s.Descendants(ctx, "root")
		if err != nil {
			t.Fatal(err)
		}
		wantDesc := []LineageNode{
			{ID: "root", StartedAt: 100, Depth: 0},
			{ID: "mid", Title: new("middle"), StartedAt: 200, ParentSessionID: new("root"), Depth: 1},
			{ID: "side", StartedAt: 250, ParentSessionID: new("root"), Depth: 1},
			{ID: "leaf", StartedAt: 300, ParentSessionID: new("mid"), Depth: 2},
		}
		if diff := cmp.Diff(wantDesc, desc); diff != "" {
			t.Errorf("Descendants(root) (-want +got):\n%s", diff)
		}

		for _, id := range []string{"unknown", ""} {
			if a, err := s.Ancestors(ctx, id); err != nil || len(a) != 0 {
				t.Errorf("Ancestors(%q) = %v, %v; want none", id, a, err)
			}
			if d, err := s.Descendants(ctx, id); err != nil || len(d) != 0 {
				t.Errorf("Descendants(%q) = %v, %v; want none", id, d, err)
			}
		}
	})

	t.Run("Cycle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		addSession(t, s, "a", nil, 100)
		addSession(t, s, "b", new("a"), 200)
		addSession(t, s, "c", new("b"), 300)
		execSQL(t, s, "PRAGMA foreign_keys=OFF")
		execSQL(t, s, "UPDATE sessions SET parent_session_id='c' WHERE id='a'")
		execSQL(t, s, "PRAGMA foreign_keys=ON")

		// Each call runs under a deadline: a walk that loops fails the test
		// instead of hanging it.
		within := func(name string, fn func(context.Context) error) {
			t.Helper()
			cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- fn(cctx) }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s did not return on a parent cycle", name)
			}
		}
		resume := func(id, want string) {
			t.Helper()
			within("ResolveResumeSessionID("+id+")", func(ctx context.Context) error {
				got, err := s.ResolveResumeSessionID(ctx, id)
				if err == nil && got != want {
					t.Errorf("ResolveResumeSessionID(%q) = %q, want %q", id, got, want)
				}
				return err
			})
		}

		// No messages anywhere: the walk a → b → c → a meets a again and
		// answers the input.
		resume("a", "a")
		resume("b", "b")
		within("Lineage", func(ctx context.Context) error {
			for id, want := range map[string][]string{"c": {"a", "b", "c"}, "a": {"b", "c", "a"}} {
				got, err := s.Lineage(ctx, id)
				if err != nil {
					return err
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Lineage(%q) on a cycle (-want +got):\n%s", id, diff)
				}
			}
			return nil
		})
		within("Ancestors", func(ctx context.Context) error {
			got, err := s.Ancestors(ctx, "c")
			if err != nil {
				return err
			}
			want := []LineageNode{
				{ID: "c", StartedAt: 300, ParentSessionID: new("b"), Depth: 0},
				{ID: "b", StartedAt: 200, ParentSessionID: new("a"), Depth: 1},
				{ID: "a", StartedAt: 100, ParentSessionID: new("c"), Depth: 2},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Ancestors(c) on a cycle (-want +got):\n%s", diff)
			}
			return nil
		})
		within("Descendants", func(ctx context.Context) error {
			got, err := s.Descendants(ctx, "a")
			if err != nil {
				return err
			}
			if len(got) == 0 || len(got) > 101 {
				t.Errorf("Descendants(a) on a cycle: %d rows, want 1…101", len(got))
			}
			return nil
		})

		appendText(t, s, "c", "user", "in c")
		appendText(t, s, "a", "user", "in a")
		// v21: the deepest session with messages before the walk meets a
		// session again (b → c → a, a → b → c).
		resume("b", "a")
		resume("a", "c")
		within("Conversation", func(ctx context.Context) error {
			got, err := s.Conversation(ctx, "c", true)
			if err != nil {
				return err
			}
			want := []ConversationMessage{{Role: "user", Content: new("in c")}, {Role: "user", Content: new("in a")}}
			if diff := cmp.Diff(want, untimed(t, got)); diff != "" {
				t.Errorf("Conversation(c, ancestors) on a cycle (-want +got):\n%s", diff)
			}
			return nil
		})
	})
}
