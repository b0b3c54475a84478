package store

// Tests of TokenStatsByModel, TokenStatsBySource and TopSessionsByTokens.

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// statsFixture opens a store with six sessions whose models, tokens and
// estimated costs are set by hand: costs NULL, 0 and set, one session
// without a model, and a tie in tokens between "a" and "c".
func statsFixture(t *testing.T) *Store {
	t.Helper()
	s, _ := openStore(t, quick(nil))
	for _, r := range []struct {
		id, source string
		model      any // nil: NULL
		in, out    int64
		cost       any // nil: NULL
	}{
		{"a", "cli", "m-big", 100, 50, 0.5},
		{"b", "telegram", "m-big", 10, 5, nil},
		{"c", "cli", "m-small", 70, 80, 0.25},
		{"d", "cli", nil, 1000, 0, 1.0},
		{"e", "acp", "m-zero", 0, 0, nil},
		{"f", "acp", "m-free", 5, 5, 0.0},
	} {
		mustCreate(t, s, NewSession{ID: r.id, Source: r.source})
		execSQL(t, s, "UPDATE sessions SET model = ?, input_tokens = ?, output_tokens = ?, estimated_cost_usd = ? WHERE id = ?",
			r.model, r.in, r.out, r.cost, r.id)
	}
	if err := s.SetSessionTitle(t.Context(), "a", "Alpha"); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTokenStats checks the per-model totals (sessions without a model
// left out) and the per-source totals (every session counted): costliest
// first, then by name; NULL costs add nothing.
func TestTokenStats(t *testing.T) {
	t.Parallel()
	s := statsFixture(t)
	for _, tc := range []struct {
		name string
		call func(context.Context) ([]TokenStats, error)
		want []TokenStats
	}{
		{"ByModel", s.TokenStatsByModel, []TokenStats{
			{Key: "m-big", Sessions: 2, InputTokens: 110, OutputTokens: 55, CostUSD: 0.5},
			{Key: "m-small", Sessions: 1, InputTokens: 70, OutputTokens: 80, CostUSD: 0.25},
			{Key: "m-free", Sessions: 1, InputTokens: 5, OutputTokens: 5, CostUSD: 0},
			{Key: "m-zero", Sessions: 1, InputTokens: 0, OutputTokens: 0, CostUSD: 0},
		}},
		{"BySource", s.TokenStatsBySource, []TokenStats{
			{Key: "cli", Sessions: 3, InputTokens: 1170, OutputTokens: 130, CostUSD: 1.75},
			{Key: "acp", Sessions: 2, InputTokens: 5, OutputTokens: 5, CostUSD: 0},
			{Key: "telegram", Sessions: 1, InputTokens: 10, OutputTokens: 5, CostUSD: 0},
		}},
	} {
		got, err := tc.call(t.Context())
		if err != nil {
			t.Fatalf("TokenStats%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("TokenStats%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestTopSessionsByTokens checks the ranking by input+output tokens, ties
// by id, for several n.
func TestTopSessionsByTokens(t *testing.T) {
	t.Parallel()
	s := statsFixture(t)
	all := []TopSession{
		{ID: "d", Tokens: 1000, CostUSD: new(1.0)},
		{ID: "a", Title: new("Alpha"), Model: new("m-big"), Tokens: 150, CostUSD: new(0.5)},
		{ID: "c", Model: new("m-small"), Tokens: 150, CostUSD: new(0.25)},
		{ID: "b", Model: new("m-big"), Tokens: 15},
		{ID: "f", Model: new("m-free"), Tokens: 10, CostUSD: new(0.0)},
		{ID: "e", Model: new("m-zero"), Tokens: 0},
	}
	for _, tc := range []struct {
		n    int
		want []TopSession
	}{
		{-1, []TopSession{}},
		{0, []TopSession{}},
		{1, all[:1]},
		{3, all[:3]},
		{6, all},
		{100, all},
	} {
		got, err := s.TopSessionsByTokens(t.Context(), tc.n)
		if err != nil {
			t.Fatalf("TopSessionsByTokens(%d): %v", tc.n, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("TopSessionsByTokens(%d) (-want +got):\n%s", tc.n, diff)
		}
	}
}

// TestTokenStatsEmpty checks the three calls on an empty store: empty
// lists, not nil.
func TestTokenStatsEmpty(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	byModel, err1 := s.TokenStatsByModel(t.Context())
	bySource, err2 := s.TokenStatsBySource(t.Context())
	top, err3 := s.TopSessionsByTokens(t.Context(), 5)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	if byModel == nil || len(byModel) != 0 || bySource == nil || len(bySource) != 0 || top == nil || len(top) != 0 {
		t.Errorf("on an empty store: %#v, %#v, %#v; want three empty, non-nil lists", byModel, bySource, top)
	}
}
