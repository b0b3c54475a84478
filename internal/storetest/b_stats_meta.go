package storetest

import (
	"math"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"TokenStats", bTokenStats},
		group{"TokenStatsOverflow", bTokenStatsOverflow},
		group{"StateMeta", bStateMeta},
		group{"Workspace", bWorkspace},
		group{"DistinctSessionCwds", bDistinctCwds},
		group{"ListCronJobRuns", bCronJobRuns},
	)
}

// bTokenStats checks TokenStatsByModel, TokenStatsBySource and
// TopSessionsByTokens: totals, costliest first then by key (byte order),
// ties by id.
func bTokenStats(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	empty, err := s.TokenStatsByModel(ctx)
	bErr(t, "TokenStatsByModel of an empty store", err, nil)
	bEq(t, "TokenStatsByModel of an empty store", empty, []store.TokenStats{})
	bImport(t, s,
		`{"id": "s1", "source": "cli", "model": "m-a", "title": "one", "started_at": 1, "input_tokens": 100, "output_tokens": 10, "estimated_cost_usd": 1.5}`,
		`{"id": "s2", "source": "telegram", "model": "m-a", "started_at": 2, "input_tokens": 50, "output_tokens": 5}`,
		`{"id": "s3", "source": "cli", "model": "m-b", "started_at": 3, "input_tokens": 1, "output_tokens": 1, "estimated_cost_usd": 1.5}`,
		`{"id": "s4", "source": "cli", "model": "M-c", "started_at": 4}`,
		`{"id": "s5", "source": "discord", "started_at": 5, "input_tokens": 1000, "output_tokens": 1, "estimated_cost_usd": 9.25}`,
		`{"id": "s6", "source": "cli", "started_at": 6, "input_tokens": 2}`,
	)
	byModel, err := s.TokenStatsByModel(ctx)
	bErr(t, "TokenStatsByModel", err, nil)
	bEq(t, "TokenStatsByModel", byModel, []store.TokenStats{
		{Key: "m-a", Sessions: 2, InputTokens: 150, OutputTokens: 15, CostUSD: 1.5},
		{Key: "m-b", Sessions: 1, InputTokens: 1, OutputTokens: 1, CostUSD: 1.5},
		{Key: "M-c", Sessions: 1},
	})
	bySource, err := s.TokenStatsBySource(ctx)
	bErr(t, "TokenStatsBySource", err, nil)
	bEq(t, "TokenStatsBySource", bySource, []store.TokenStats{
		{Key: "discord", Sessions: 1, InputTokens: 1000, OutputTokens: 1, CostUSD: 9.25},
		{Key: "cli", Sessions: 4, InputTokens: 103, OutputTokens: 11, CostUSD: 3},
		{Key: "telegram", Sessions: 1, InputTokens: 50, OutputTokens: 5},
	})
	str := func(v string) *string { return &v }
	f := func(v float64) *float64 { return &v }
	all := []store.TopSession{
		{ID: "s5", Tokens: 1001, CostUSD: f(9.25)},
		{ID: "s1", Title: str("one"), Model: str("m-a"), Tokens: 110, CostUSD: f(1.5)},
		{ID: "s2", Model: str("m-a"), Tokens: 55},
		{ID: "s3", Model: str("m-b"), Tokens: 2, CostUSD: f(1.5)},
		{ID: "s6", Tokens: 2},
		{ID: "s4", Model: str("M-c")},
	}
	for _, tc := range []struct {
		n    int
		want []store.TopSession
	}{{3, all[:3]}, {10, all}, {0, []store.TopSession{}}, {-1, []store.TopSession{}}} {
		got, err := s.TopSessionsByTokens(ctx, tc.n)
		bErr(t, "TopSessionsByTokens", err, nil)
		bEq(t, "TopSessionsByTokens", got, tc.want)
	}
}

// bTokenStatsOverflow checks the totals past their type's range: a token
// sum past int64 is the largest int64, a cost sum past float64 the largest
// float64 (SQLite's TOTAL() and CAST; an engine whose SUM raises on
// overflow must clamp instead).
func bTokenStatsOverflow(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bImport(t, s,
		`{"id": "o1", "source": "cli", "model": "big", "started_at": 1, "input_tokens": 9223372036854775807, "output_tokens": 1, "estimated_cost_usd": 1.7e308}`,
		`{"id": "o2", "source": "cli", "model": "big", "started_at": 2, "input_tokens": 9223372036854775807, "output_tokens": 9223372036854775807, "estimated_cost_usd": 1.7e308}`,
	)
	want := []store.TokenStats{{Key: "big", Sessions: 2, InputTokens: math.MaxInt64, OutputTokens: math.MaxInt64, CostUSD: math.MaxFloat64}}
	byModel, err := s.TokenStatsByModel(ctx)
	bErr(t, "TokenStatsByModel", err, nil)
	bEq(t, "TokenStatsByModel", byModel, want)
	want[0].Key = "cli"
	bySource, err := s.TokenStatsBySource(ctx)
	bErr(t, "TokenStatsBySource", err, nil)
	bEq(t, "TokenStatsBySource", bySource, want)
	top, err := s.TopSessionsByTokens(ctx, 5)
	bErr(t, "TopSessionsByTokens", err, nil)
	big, cost := "big", 1.7e308
	bEq(t, "TopSessionsByTokens", top, []store.TopSession{
		{ID: "o1", Model: &big, Tokens: math.MaxInt64, CostUSD: &cost},
		{ID: "o2", Model: &big, Tokens: math.MaxInt64, CostUSD: &cost},
	})
}

// bStateMeta checks GetMeta and SetMeta.
func bStateMeta(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	get := func(key string) (string, bool) {
		t.Helper()
		v, ok, err := s.GetMeta(ctx, key)
		bErr(t, "GetMeta", err, nil)
		return v, ok
	}
	v, ok := get("nope")
	bEq(t, "unknown key", []any{v, ok}, []any{"", false})
	for _, tc := range []struct{ key, value string }{{"k", "v1"}, {"k", "v2"}, {"empty", ""}, {"ünï", "☃ 😀"}, {"", "empty key"}} {
		bErr(t, "SetMeta", s.SetMeta(ctx, tc.key, tc.value), nil)
		v, ok := get(tc.key)
		bEq(t, "GetMeta("+tc.key+")", []any{v, ok}, []any{tc.value, true})
	}
	bErr(t, "bad value", s.SetMeta(ctx, "k", bBadUTF8), store.ErrInvalidText)
	bErr(t, "bad key", s.SetMeta(ctx, bBadUTF8, "v"), store.ErrInvalidText)
	v, ok = get("k")
	bEq(t, "after the refusals", []any{v, ok}, []any{"v2", true})
	err := s.SetMeta(ctx, "nul", bNUL)
	bErr(t, "NUL value", err, bNULWant(h))
	v, ok = get("nul")
	if err == nil {
		bEq(t, "NUL value", []any{v, ok}, []any{bNUL, true})
	} else {
		bEq(t, "refused NUL value", []any{v, ok}, []any{"", false})
	}
}

// bWorkspace checks UpdateSessionCwd (stripped branch and root, empty
// ones kept, empty id or cwd a no-op) and BackfillRepoRoots.
func bWorkspace(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "w", "cli")
	type ws struct{ Cwd, Branch, Root *string }
	of := func(id string) ws {
		sess := bGet(t, s, id)
		return ws{sess.Cwd, sess.GitBranch, sess.GitRepoRoot}
	}
	str := func(v string) *string { return &v }
	for _, st := range []struct {
		name string
		w    store.Workspace
		want ws
	}{
		{"Full", store.Workspace{Cwd: "/p", GitBranch: " main\n", GitRepoRoot: "\t/p "}, ws{str("/p"), str("main"), str("/p")}},
		{"EmptyProbeKeeps", store.Workspace{Cwd: "/p/sub", GitBranch: "  ", GitRepoRoot: ""}, ws{str("/p/sub"), str("main"), str("/p")}},
		{"NewBranch", store.Workspace{Cwd: "/p/sub", GitBranch: "dev"}, ws{str("/p/sub"), str("dev"), str("/p")}},
		{"CwdNotStripped", store.Workspace{Cwd: " /q "}, ws{str(" /q "), str("dev"), str("/p")}},
		{"EmptyCwdNoOp", store.Workspace{GitBranch: "x"}, ws{str(" /q "), str("dev"), str("/p")}},
	} {
		bErr(t, st.name, s.UpdateSessionCwd(ctx, "w", st.w), nil)
		bEq(t, st.name, of("w"), st.want)
	}
	bErr(t, "empty id", s.UpdateSessionCwd(ctx, "", store.Workspace{Cwd: "/x"}), nil)
	bErr(t, "unknown", s.UpdateSessionCwd(ctx, "nope", store.Workspace{Cwd: "/x"}), store.ErrSessionNotFound)
	bErr(t, "bad text", s.UpdateSessionCwd(ctx, "w", store.Workspace{Cwd: "/x", GitBranch: bBadUTF8}), store.ErrInvalidText)
	bEq(t, "after the refusals", of("w"), ws{str(" /q "), str("dev"), str("/p")})

	bImport(t, s,
		`{"id": "b1", "source": "cli", "started_at": 1, "cwd": "/r1"}`,
		`{"id": "b2", "source": "cli", "started_at": 2, "cwd": "/r1", "git_repo_root": ""}`,
		`{"id": "b3", "source": "cli", "started_at": 3, "cwd": "/r1", "git_repo_root": "/kept"}`,
		`{"id": "b4", "source": "cli", "started_at": 4, "cwd": "/r2"}`,
		`{"id": "b5", "source": "cli", "started_at": 5, "cwd": "/r3"}`,
	)
	for _, tc := range []struct {
		name string
		m    map[string]string
		n    int64
	}{
		{"Nothing", nil, 0},
		{"EmptyPairsSkipped", map[string]string{"/r3": "", "": "/root"}, 0},
		{"Backfill", map[string]string{"/r1": "/root1", "/r2": "/root2", "/none": "/x"}, 3},
		{"Again", map[string]string{"/r1": "/other"}, 0},
	} {
		n, err := s.BackfillRepoRoots(ctx, tc.m)
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name, n, tc.n)
	}
	roots := []string{}
	for _, id := range []string{"b1", "b2", "b3", "b4", "b5"} {
		if r := bGet(t, s, id).GitRepoRoot; r != nil {
			roots = append(roots, *r)
		} else {
			roots = append(roots, "NULL")
		}
	}
	bEq(t, "roots", roots, []string{"/root1", "/root1", "/kept", "/root2", "NULL"})
	_, err := s.BackfillRepoRoots(ctx, map[string]string{"/r3": bBadUTF8})
	bErr(t, "bad root", err, store.ErrInvalidText)
	bEq(t, "b5 after the refusal", bGet(t, s, "b5").GitRepoRoot, (*string)(nil))
}

// bDistinctCwds checks DistinctSessionCwds: byte order, counts, the last
// activity (newest end, else start), blank cwds and archived sessions.
func bDistinctCwds(t *testing.T, h Harness) {
	s := h.Open(t)
	bImport(t, s,
		`{"id": "c1", "source": "cli", "started_at": 10, "cwd": "/a"}`,
		`{"id": "c2", "source": "cli", "started_at": 20, "ended_at": 50, "cwd": "/a"}`,
		`{"id": "c3", "source": "cli", "started_at": 30, "cwd": "/B"}`,
		`{"id": "c4", "source": "cli", "started_at": 40, "cwd": "/é"}`,
		`{"id": "c5", "source": "cli", "started_at": 45, "cwd": "/z", "archived": 1}`,
		`{"id": "c6", "source": "cli", "started_at": 46, "cwd": "/a", "archived": 1, "ended_at": 99}`,
		`{"id": "c7", "source": "cli", "started_at": 47, "cwd": "   "}`,
		`{"id": "c8", "source": "cli", "started_at": 48}`,
		`{"id": "c9", "source": "cli", "started_at": 49, "cwd": "/a", "parent_session_id": "c1"}`,
	)
	for _, tc := range []struct {
		archived bool
		want     []store.CwdUsage
	}{
		{false, []store.CwdUsage{{Cwd: "/B", Sessions: 1, LastActive: 30}, {Cwd: "/a", Sessions: 3, LastActive: 50}, {Cwd: "/é", Sessions: 1, LastActive: 40}}},
		{true, []store.CwdUsage{{Cwd: "/B", Sessions: 1, LastActive: 30}, {Cwd: "/a", Sessions: 4, LastActive: 99}, {Cwd: "/z", Sessions: 1, LastActive: 45}, {Cwd: "/é", Sessions: 1, LastActive: 40}}},
	} {
		got, err := s.DistinctSessionCwds(t.Context(), tc.archived)
		bErr(t, "DistinctSessionCwds", err, nil)
		bEq(t, "DistinctSessionCwds", got, tc.want)
	}
}

// bCronJobRuns checks ListCronJobRuns: the runs of exactly one job, newest
// first, the preview and last activity, limit and offset, archived runs.
func bCronJobRuns(t *testing.T, h Harness) {
	s := h.Open(t)
	long := strings.Repeat("ä", 70)
	bImport(t, s,
		`{"id": "cron_job1_a", "source": "cron", "started_at": 100, "messages": [{"role": "assistant", "content": "skip", "timestamp": 101}, {"role": "user", "content": " run\nnow ", "timestamp": 102}]}`,
		`{"id": "cron_job1_b", "source": "cron", "started_at": 300, "archived": 1}`,
		`{"id": "cron_job1_c", "source": "cron", "started_at": 200, "messages": [{"role": "user", "content": "`+long+`", "timestamp": 250}]}`,
		`{"id": "cron_job1_d", "source": "cron", "started_at": 300}`,
		`{"id": "cron_job12_a", "source": "cron", "started_at": 400}`,
		`{"id": "cron_xjob1_a", "source": "cron", "started_at": 400}`,
		`{"id": "cron_job1_e", "source": "cli", "started_at": 400}`,
		`{"id": "cron_job1", "source": "cron", "started_at": 400}`,
		`{"id": "cron_a_%_1", "source": "cron", "started_at": 400}`,
		`{"id": "cron_aXbb_1", "source": "cron", "started_at": 400}`,
	)
	for _, tc := range []struct {
		name          string
		job           string
		limit, offset int
		want          []string
	}{
		{"All", "job1", 0, 0, []string{"cron_job1_d", "cron_job1_b", "cron_job1_c", "cron_job1_a"}},
		{"Limit", "job1", 2, 0, []string{"cron_job1_d", "cron_job1_b"}},
		{"Offset", "job1", 2, 3, []string{"cron_job1_a"}},
		{"NegativeLimit", "job1", -1, 1, []string{"cron_job1_b", "cron_job1_c", "cron_job1_a"}},
		{"NegativeOffsetIsNone", "job1", -1, -2, []string{"cron_job1_d", "cron_job1_b", "cron_job1_c", "cron_job1_a"}},
		{"OtherJob", "job12", 0, 0, []string{"cron_job12_a"}},
		{"Unknown", "job", 0, 0, []string{}},
		{"NoWildcards", "a_%", 0, 0, []string{"cron_a_%_1"}},
		{"NoWildcardsUnderscore", "a_b", 0, 0, []string{}},
	} {
		got, err := s.ListCronJobRuns(t.Context(), tc.job, tc.limit, tc.offset)
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name, bRichIDs(got), tc.want)
	}
	got, err := s.ListCronJobRuns(t.Context(), "job1", 0, 0)
	bErr(t, "ListCronJobRuns", err, nil)
	type row struct {
		Preview    string
		LastActive store.Timestamp
	}
	rows := []row{}
	for _, r := range got {
		rows = append(rows, row{r.Preview, r.LastActive})
	}
	bEq(t, "previews", rows, []row{{"", 300}, {"", 300}, {strings.Repeat("ä", 60) + "...", 250}, {"run now", 102}})
	bEq(t, "a run is the whole row", got[3].Session, *bGet(t, s, "cron_job1_a"))

	// Many runs: the default limit is 20.
	var recs []string
	for i := range 25 {
		recs = append(recs, `{"id": "cron_many_`+strings.Repeat("x", i+1)+`", "source": "cron", "started_at": 1}`)
	}
	bImport(t, s, recs...)
	got, err = s.ListCronJobRuns(t.Context(), "many", 0, 0)
	bErr(t, "ListCronJobRuns(many)", err, nil)
	bEq(t, "default limit", len(got), 20)
}
