package store

// Tests of the v21 token accounting (UpdateTokenCounts and the per-model
// usage rows) beyond the upstream ports, their values printed by
// c2a3b9ce5 running the same calls, and of ModelUsage and UsageByModel.

import (
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestTokenAccountingMatchesUpstream replays a sequence of
// update_token_counts calls (metadata only, the first accounted route, a
// route inheriting the session's base URL and mode, an actual cost alone,
// an estimate alone, cache and reasoning tokens, an absolute update of a
// missing session) and compares every session and usage column written
// with what c2a3b9ce5 wrote for the same calls. The inheritance is
// upstream's suspected defect 6 (§8.6): followed, so that the rows are
// the ones Hermes reads.
func TestTokenAccountingMatchesUpstream(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, nil)
	mustUpsert(t, s, NewSession{ID: "s", Source: "cli", Model: "req"})
	metered := BillingRoute{Provider: "prov-a", BaseURL: "https://a", Mode: "metered"}
	if err := s.UpdateSessionBillingRoute(ctx, "s", metered); err != nil {
		t.Fatal(err)
	}
	mustTokens(t, s, "s", TokenUpdate{Model: "alpha-1", BillingProvider: "prov-a"})
	mustTokens(t, s, "s", TokenUpdate{InputTokens: 100, OutputTokens: 40, Model: "alpha-1", BillingProvider: "prov-a",
		BillingBaseURL: "https://a", APICallCount: 1, EstimatedCostUSD: new(0.25), CostStatus: "estimated", CostSource: "table"})
	if err := s.UpdateSessionBillingRoute(ctx, "s", metered); err != nil {
		t.Fatal(err)
	}
	mustTokens(t, s, "s", TokenUpdate{InputTokens: 10, Model: "beta-2", BillingProvider: "prov-b", APICallCount: 1, ActualCostUSD: new(0.5)})
	mustTokens(t, s, "s", TokenUpdate{ActualCostUSD: new(1.0)})
	mustTokens(t, s, "s", TokenUpdate{EstimatedCostUSD: new(0.125), CostStatus: "final"})
	mustTokens(t, s, "s", TokenUpdate{CacheReadTokens: 7, CacheWriteTokens: 3, ReasoningTokens: 2, Model: "beta-2", BillingProvider: "prov-b"})
	mustTokens(t, s, "abs", TokenUpdate{InputTokens: 500, OutputTokens: 200, Model: "gpt-4o", BillingProvider: "openai", APICallCount: 4, Absolute: true})

	sessions := dbtest.Rows(t, s.r, `SELECT id, source, model, billing_provider, billing_base_url, billing_mode,
		input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
		estimated_cost_usd, actual_cost_usd, cost_status, cost_source, api_call_count FROM sessions ORDER BY id`)
	wantSessions := [][]any{
		{"abs", "unknown", "gpt-4o", "openai", nil, nil, int64(500), int64(200), int64(0), int64(0), int64(0), 0.0, nil, nil, nil, int64(4)},
		{"s", "cli", "alpha-1", "prov-a", "https://a", "metered", int64(110), int64(40), int64(7), int64(3), int64(2), 0.375, 1.5, "final", "table", int64(2)},
	}
	if diff := cmp.Diff(wantSessions, sessions); diff != "" {
		t.Errorf("sessions (-c2a3b9ce5 +ours):\n%s", diff)
	}
	usage := dbtest.Rows(t, s.r, `SELECT session_id, model, billing_provider, billing_base_url, billing_mode,
		api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
		estimated_cost_usd, actual_cost_usd, cost_status, cost_source FROM session_model_usage ORDER BY rowid`)
	wantUsage := [][]any{
		{"s", "alpha-1", "prov-a", "https://a", "", int64(1), int64(100), int64(40), int64(0), int64(0), int64(0), 0.25, 0.0, "estimated", "table"},
		{"s", "beta-2", "prov-b", "https://a", "metered", int64(1), int64(10), int64(0), int64(7), int64(3), int64(2), 0.0, 0.5, nil, nil},
		{"s", "alpha-1", "prov-a", "https://a", "metered", int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), 0.125, 0.0, "final", nil},
	}
	if diff := cmp.Diff(wantUsage, usage); diff != "" {
		t.Errorf("session_model_usage (-c2a3b9ce5 +ours):\n%s", diff)
	}
}

// TestUsageTimesAndReader: first_seen is the route's first update and
// last_seen its latest; ModelUsage returns the rows in first-use order
// with every column.
func TestUsageTimesAndReader(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_800_000_000, 0), time.Second)})
	mustTokens(t, s, "s", TokenUpdate{InputTokens: 1, Model: "a", APICallCount: 1}) // now: t0
	mustTokens(t, s, "s", TokenUpdate{InputTokens: 2, Model: "b"})
	mustTokens(t, s, "s", TokenUpdate{OutputTokens: 3, Model: "a", CostSource: "x", ActualCostUSD: new(0.5), EstimatedCostUSD: new(0.1)})
	got := mustUsage(t, s, "s")
	ts := func(f float64) *Timestamp { return new(Timestamp(f)) }
	want := []ModelUsage{
		{SessionID: "s", Model: "a", APICallCount: 1, InputTokens: 1, OutputTokens: 3, EstimatedCostUSD: 0.1, ActualCostUSD: 0.5,
			CostSource: new("x"), FirstSeen: ts(1_800_000_000), LastSeen: ts(1_800_000_002)},
		{SessionID: "s", Model: "b", InputTokens: 2, FirstSeen: ts(1_800_000_001), LastSeen: ts(1_800_000_001)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ModelUsage (-want +got):\n%s", diff)
	}
	if rows := mustUsage(t, s, "nope"); len(rows) != 0 {
		t.Errorf("ModelUsage(nope) = %+v, want none", rows)
	}
}

// TestTokenUpdateRefusals: a NaN cost, and an addition past the int64
// range of a usage row's counter (the session's own counter in range), are
// refused with their errors and write nothing, a new session included.
func TestTokenUpdateRefusals(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, nil)
	mustTokens(t, s, "s", TokenUpdate{InputTokens: 1, Model: "m", APICallCount: 1})
	execSQL(t, s, "UPDATE session_model_usage SET output_tokens = 9223372036854775807")
	for _, c := range []struct {
		name string
		id   string
		u    TokenUpdate
		want error
		msg  string
	}{
		{"NaNEstimate", "s", TokenUpdate{EstimatedCostUSD: new(math.NaN())}, ErrInvalidCost,
			`store: update token counts of "s": estimated cost: cost is NaN`},
		{"NaNActualAbsolute", "new", TokenUpdate{ActualCostUSD: new(math.NaN()), Absolute: true}, ErrInvalidCost,
			`store: update token counts of "new": actual cost: cost is NaN`},
		{"UsageOverflow", "s", TokenUpdate{OutputTokens: 1, Model: "m"}, ErrCounterOverflow,
			`store: update token counts of "s": counter would overflow int64: session_model_usage.output_tokens is 9223372036854775807, adding 1`},
		{"InvalidText", "new", TokenUpdate{InputTokens: 1, Model: "\xff"}, ErrInvalidText,
			`store: update token counts of "new": model: text is not valid UTF-8`},
	} {
		before := dumpTables(t, s)
		err := s.UpdateTokenCounts(ctx, c.id, c.u)
		if !errors.Is(err, c.want) || err.Error() != c.msg {
			t.Errorf("%s: error = %v; want %s", c.name, err, c.msg)
		}
		if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
			t.Errorf("%s: the refused update changed the database (-before +after):\n%s", c.name, diff)
		}
	}
	// An infinite cost is a value: it is stored.
	mustTokens(t, s, "s", TokenUpdate{EstimatedCostUSD: new(math.Inf(1))})
	if got := dbtest.Value[float64](t, s.r, "SELECT estimated_cost_usd FROM sessions WHERE id = 's'"); !math.IsInf(got, 1) {
		t.Errorf("estimated_cost_usd = %v, want +Inf", got)
	}
}

// TestSeededUsageRowSplits: on the fixture upstream migrated from v16, the
// v20 backfill seeded fx16-main's row with an empty base URL and mode; an
// update on the same model and provider through a base URL lands in a
// second row, as upstream's does (suspected defect 6, followed).
func TestSeededUsageRowSplits(t *testing.T) {
	t.Parallel()
	s := openAt(t, dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v21-from-v16.db"), filepath.Join(t.TempDir(), "state.db")), nil)
	before := mustUsage(t, s, "fx16-main")
	if len(before) != 1 || before[0].BillingBaseURL != "" || before[0].BillingMode != "" {
		t.Fatalf("seeded usage rows of fx16-main = %+v, want one with an empty base URL and mode", before)
	}
	seed := before[0]
	mustTokens(t, s, "fx16-main", TokenUpdate{InputTokens: 5, Model: seed.Model, BillingProvider: seed.BillingProvider,
		BillingBaseURL: "https://api.example/v1", APICallCount: 1})
	after := mustUsage(t, s, "fx16-main")
	var keys []string
	for _, u := range after {
		keys = append(keys, u.Model+"|"+u.BillingProvider+"|"+u.BillingBaseURL+"|"+u.BillingMode)
	}
	want := []string{seed.Model + "|" + seed.BillingProvider + "||", seed.Model + "|" + seed.BillingProvider + "|https://api.example/v1|"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("usage routes (-want +got):\n%s", diff)
	}
	if after[0].InputTokens != seed.InputTokens || after[1].InputTokens != 5 {
		t.Errorf("input tokens = %d, %d; want %d (seeded, untouched), 5", after[0].InputTokens, after[1].InputTokens, seed.InputTokens)
	}
}

// TestUsageByModel: per-model totals from the usage rows, plus each
// session's counters beyond its rows under its model (an absolute-only
// session, a session with rows short of its counters), never negative, an
// empty model as unknown; filtered by start and source.
func TestUsageByModel(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_800_000_000, 0), time.Second)})
	// switch: 2 routes of its own, nothing beyond them.
	mustUpsert(t, s, NewSession{ID: "switch", Source: "cli", Model: "alpha"})
	mustTokens(t, s, "switch", TokenUpdate{InputTokens: 100, OutputTokens: 10, Model: "alpha", BillingProvider: "pa", APICallCount: 1, EstimatedCostUSD: new(1.0)})
	mustTokens(t, s, "switch", TokenUpdate{InputTokens: 50, ReasoningTokens: 4, Model: "beta", BillingProvider: "pb", APICallCount: 2, EstimatedCostUSD: new(0.5)})
	// gateway: absolute only, no rows; all of it is a remainder on beta.
	mustUpsert(t, s, NewSession{ID: "gateway", Source: "telegram", Model: "beta"})
	mustTokens(t, s, "gateway", TokenUpdate{InputTokens: 30, OutputTokens: 3, CacheReadTokens: 9, ReasoningTokens: 7, APICallCount: 3, Absolute: true, EstimatedCostUSD: new(0.25), ActualCostUSD: new(0.2)})
	// legacy: counters beyond its one row, on a model-less session; and a
	// row that holds more than the counters (no negative remainder).
	mustTokens(t, s, "legacy", TokenUpdate{InputTokens: 5, APICallCount: 1})
	execSQL(t, s, "UPDATE sessions SET input_tokens = 25, output_tokens = 0, model = '' WHERE id = 'legacy'")
	execSQL(t, s, "UPDATE session_model_usage SET output_tokens = 8 WHERE session_id = 'legacy'")
	got, err := s.UsageByModel(ctx, UsageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ModelUsageTotal{
		{Model: "alpha", Sessions: 1, APICallCount: 1, InputTokens: 100, OutputTokens: 10, EstimatedCostUSD: 1},
		{Model: "beta", Sessions: 2, APICallCount: 5, InputTokens: 80, OutputTokens: 3, CacheReadTokens: 9, ReasoningTokens: 4, EstimatedCostUSD: 0.75, ActualCostUSD: 0.2},
		{Model: "unknown", Sessions: 1, APICallCount: 1, InputTokens: 25, OutputTokens: 8},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UsageByModel (-want +got):\n%s", diff)
	}
	// switch started at t0, gateway at t0+3 s, legacy later.
	got, err = s.UsageByModel(ctx, UsageOptions{Since: time.Unix(1_800_000_003, 0), Source: "telegram"})
	if err != nil {
		t.Fatal(err)
	}
	want = []ModelUsageTotal{{Model: "beta", Sessions: 1, APICallCount: 3, InputTokens: 30, OutputTokens: 3, CacheReadTokens: 9, EstimatedCostUSD: 0.25, ActualCostUSD: 0.2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UsageByModel(since gateway, telegram) (-want +got):\n%s", diff)
	}
}

// TestUpstreamFixtureReads: on the file c2a3b9ce5 wrote (state-v21.db) the
// usage rows, prune candidates, empty sessions and cwds read as upstream
// reads them (its answers printed by running it on a copy).
func TestUpstreamFixtureReads(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := openAt(t, dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v21.db"), filepath.Join(t.TempDir(), "state.db")), &Options{ReadOnly: true})
	ts := func(f float64) *Timestamp { return new(Timestamp(f)) }
	want := []ModelUsage{
		{SessionID: "fx21-model-switch", Model: "alpha-1", BillingProvider: "prov-a", BillingBaseURL: "https://a.example/v1", BillingMode: "metered",
			APICallCount: 1, InputTokens: 120, OutputTokens: 40, EstimatedCostUSD: 0.0012, CostStatus: new("estimated"), CostSource: new("table"),
			FirstSeen: ts(1796283998.4164324), LastSeen: ts(1796283998.4164324)},
		{SessionID: "fx21-model-switch", Model: "beta-2", BillingProvider: "prov-b", BillingBaseURL: "https://b.example/v1", BillingMode: "metered",
			APICallCount: 2, InputTokens: 210, OutputTokens: 95, CacheReadTokens: 50, ReasoningTokens: 7, EstimatedCostUSD: 0.003, ActualCostUSD: 0.0025,
			FirstSeen: ts(1796283998.4337592), LastSeen: ts(1796283998.4410725)},
	}
	if diff := cmp.Diff(want, mustUsage(t, s, "fx21-model-switch")); diff != "" {
		t.Errorf("ModelUsage (-c2a3b9ce5 +ours):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"fx21-arch-root", "fx21-parent"}, candidates(t, s, PruneOptions{AnyAge: true})); diff != "" {
		t.Errorf("PruneCandidates (-c2a3b9ce5 +ours):\n%s", diff)
	}
	if n, err := s.CountEmptySessions(ctx); err != nil || n != 0 {
		t.Errorf("CountEmptySessions = %d, %v; want 0", n, err)
	}
	cwds, err := s.DistinctSessionCwds(ctx, true)
	if err != nil || !cmp.Equal(cwds, []CwdUsage{{"/projects/demo", 1, 1796283998.4013095}}) {
		t.Errorf("DistinctSessionCwds = %+v, %v", cwds, err)
	}
}
