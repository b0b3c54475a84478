package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

func ptr[T any](v T) *T { return &v }

// TestLineageQueries runs the recursive ancestor and descendant queries on a
// chain root → mid → leaf with a second child of root, and a cycle written
// by hand (the 100-hop bound ends it).
func TestLineageQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t, nil)
	addSession(t, s, "root", nil, 100)
	addSession(t, s, "mid", ptr("root"), 200)
	addSession(t, s, "leaf", ptr("mid"), 300)
	addSession(t, s, "side", ptr("root"), 250)

	anc, err := s.q.SessionAncestors(ctx, backend.SQLiteTx(s.r), "leaf")
	if err != nil {
		t.Fatal(err)
	}
	want := []db.SessionAncestorsRow{
		{ID: "leaf", StartedAt: sqlnum.RealOf(300), ParentSessionID: ptr("mid"), Depth: 0},
		{ID: "mid", StartedAt: sqlnum.RealOf(200), ParentSessionID: ptr("root"), Depth: 1},
		{ID: "root", StartedAt: sqlnum.RealOf(100), Depth: 2},
	}
	if diff := cmp.Diff(want, anc); diff != "" {
		t.Errorf("SessionAncestors(leaf) (-want +got):\n%s", diff)
	}

	desc, err := s.q.SessionDescendants(ctx, backend.SQLiteTx(s.r), "root")
	if err != nil {
		t.Fatal(err)
	}
	wantDesc := []db.SessionDescendantsRow{
		{ID: "root", StartedAt: sqlnum.RealOf(100), Depth: 0},
		{ID: "mid", StartedAt: sqlnum.RealOf(200), ParentSessionID: ptr("root"), Depth: 1},
		{ID: "side", StartedAt: sqlnum.RealOf(250), ParentSessionID: ptr("root"), Depth: 1},
		{ID: "leaf", StartedAt: sqlnum.RealOf(300), ParentSessionID: ptr("mid"), Depth: 2},
	}
	if diff := cmp.Diff(wantDesc, desc); diff != "" {
		t.Errorf("SessionDescendants(root) (-want +got):\n%s", diff)
	}

	if got, err := s.q.SessionAncestors(ctx, backend.SQLiteTx(s.r), "nobody"); err != nil || len(got) != 0 {
		t.Errorf("SessionAncestors(nobody) = %v, %v; want none", got, err)
	}

	// root's parent set to leaf by hand makes a cycle: both walks stop at
	// the bound instead of running forever.
	dbtest.Exec(t, s.w, "PRAGMA foreign_keys = OFF", "UPDATE sessions SET parent_session_id = 'leaf' WHERE id = 'root'", "PRAGMA foreign_keys = ON")
	anc, err = s.q.SessionAncestors(ctx, backend.SQLiteTx(s.r), "leaf")
	if err != nil || len(anc) != 101 {
		t.Errorf("SessionAncestors on a cycle: %d rows, %v; want 101 (depth 0…100)", len(anc), err)
	}
}

// TestStatisticsQueries runs the seed document's token and cost statistics
// and the recent-sessions-with-preview query on the original's v9 file.
func TestStatisticsQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openAt(t, dbtest.CopyFixture(t, "state-v9.db"), nil)

	byModel, err := s.q.SessionTokenStatsByModel(ctx, backend.SQLiteTx(s.r))
	if err != nil {
		t.Fatal(err)
	}
	wantModel := []db.SessionTokenStatsByModelRow{
		{Model: "anthropic/claude-sonnet-4.6", SessionCount: 1, TotalInput: 200, TotalOutput: 100, TotalCost: 0.01},
	}
	if diff := cmp.Diff(wantModel, byModel); diff != "" {
		t.Errorf("SessionTokenStatsByModel (-want +got):\n%s", diff)
	}

	bySource, err := s.q.SessionTokenStatsBySource(ctx, backend.SQLiteTx(s.r))
	if err != nil {
		t.Fatal(err)
	}
	wantSource := []db.SessionTokenStatsBySourceRow{
		{Source: "cli", SessionCount: 2, TotalInput: 200, TotalOutput: 100, TotalCost: 0.01},
		{Source: "cron", SessionCount: 1},
		{Source: "telegram", SessionCount: 1},
	}
	if diff := cmp.Diff(wantSource, bySource); diff != "" {
		t.Errorf("SessionTokenStatsBySource (-want +got):\n%s", diff)
	}

	top, err := s.q.SessionTopByTokens(ctx, backend.SQLiteTx(s.r), 2)
	if err != nil {
		t.Fatal(err)
	}
	wantTop := []db.SessionTopByTokensRow{
		{ID: "root", Title: ptr("my project"), Model: ptr("anthropic/claude-sonnet-4.6"), TotalTokens: 300, EstimatedCostUSD: sqlnum.RealOf(0.01)},
		{ID: "child", Title: ptr("my project #2")},
	}
	if diff := cmp.Diff(wantTop, top); diff != "" {
		t.Errorf("SessionTopByTokens (-want +got):\n%s", diff)
	}

	recent, err := s.ListSessionsRich(ctx, ListOptions{IncludeChildren: true, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID, Preview string
		LastActive  float64
	}
	var got []row
	for _, r := range recent {
		got = append(got, row{r.ID, r.Preview, float64(r.LastActive - r.StartedAt)})
	}
	// Newest first; preview = first 60 characters (code points) of the first
	// user message; last_active = last message time (here: offsets from the
	// start, so the expectation does not depend on the file's clock).
	if len(got) != 4 || got[0].ID != "child" || got[3].ID != "old" {
		t.Fatalf("ListSessionsRich order = %v", got)
	}
	if got[2].Preview != "How do I deploy with Docker? chat-send P2.2 sp_new" {
		t.Errorf("root preview = %q", got[2].Preview)
	}
	if got[1].Preview != "昨天和其他Agent的聊天记录，记忆断裂问题复现了" || got[3].Preview != "" || got[3].LastActive != 0 {
		t.Errorf("tg/old rows = %+v, %+v", got[1], got[3])
	}
}
