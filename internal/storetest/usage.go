package storetest

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"usage/tokens", testTokenCounts},
		group{"usage/by-model", testUsageByModel},
	)
}

func testTokenCounts(t *testing.T, h Harness) {
	ctx := t.Context()
	s, c := openClocked(t, h)
	update := func(id string, u store.TokenUpdate) {
		t.Helper()
		ok(t, s.UpdateTokenCounts(ctx, id, u))
	}
	usage := func(id string) []store.ModelUsage {
		t.Helper()
		got, err := s.ModelUsage(ctx, id)
		ok(t, err)
		return got
	}

	// The first update creates the session and, as the first accounted
	// call, records its route.
	update("s1", store.TokenUpdate{
		InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2, CacheWriteTokens: 1, ReasoningTokens: 3, APICallCount: 1,
		EstimatedCostUSD: ptr(0.5), CostStatus: "estimated", CostSource: "table", PricingVersion: "v1",
		BillingProvider: "anthropic", BillingBaseURL: "https://a.example", BillingMode: "api", Model: "claude",
	})
	want := row("s1", "unknown", at(0))
	want.Model = ptr("claude")
	want.InputTokens, want.OutputTokens, want.CacheReadTokens, want.CacheWriteTokens, want.ReasoningTokens = 10, 5, 2, 1, 3
	want.APICallCount = 1
	want.EstimatedCostUSD = ptr(0.5)
	want.CostStatus, want.CostSource, want.PricingVersion = ptr("estimated"), ptr("table"), ptr("v1")
	want.BillingProvider, want.BillingBaseURL, want.BillingMode = ptr("anthropic"), ptr("https://a.example"), ptr("api")
	equal(t, "after the first update", get(t, s, "s1"), want)
	first := store.ModelUsage{
		SessionID: "s1", Model: "claude", BillingProvider: "anthropic", BillingBaseURL: "https://a.example", BillingMode: "api",
		APICallCount: 1, InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2, CacheWriteTokens: 1, ReasoningTokens: 3,
		EstimatedCostUSD: 0.5, CostStatus: ptr("estimated"), CostSource: ptr("table"),
		FirstSeen: ptr(at(0)), LastSeen: ptr(at(0)),
	}
	equal(t, "usage after the first update", usage("s1"), []store.ModelUsage{first})

	// Billing keeps its first values; the usage row's route takes the
	// call's provider and the session's other parts.
	c.Advance(time.Second)
	update("s1", store.TokenUpdate{InputTokens: 1, ActualCostUSD: ptr(0.25), CostStatus: "final", BillingProvider: "openrouter"})
	want.InputTokens = 11
	want.ActualCostUSD = ptr(0.25)
	want.CostStatus = ptr("final")
	equal(t, "after the second update", get(t, s, "s1"), want)
	second := store.ModelUsage{
		SessionID: "s1", Model: "claude", BillingProvider: "openrouter", BillingBaseURL: "https://a.example", BillingMode: "api",
		InputTokens: 1, ActualCostUSD: 0.25, CostStatus: ptr("final"), FirstSeen: ptr(at(time.Second)), LastSeen: ptr(at(time.Second)),
	}
	equal(t, "usage after the second update", usage("s1"), []store.ModelUsage{first, second})

	c.Advance(time.Second)
	update("s1", store.TokenUpdate{OutputTokens: 7, Model: "claude", BillingProvider: "anthropic"})
	want.OutputTokens = 12
	equal(t, "after the third update", get(t, s, "s1"), want)
	first.OutputTokens, first.LastSeen = 12, ptr(at(2*time.Second))
	equal(t, "usage after the third update", usage("s1"), []store.ModelUsage{first, second})

	// Absolute: counters set (omitted ones 0), the estimate nil means 0.0,
	// the actual cost kept; no usage row.
	update("s1", store.TokenUpdate{Absolute: true, InputTokens: 100})
	want.InputTokens, want.OutputTokens, want.CacheReadTokens, want.CacheWriteTokens, want.ReasoningTokens = 100, 0, 0, 0, 0
	want.APICallCount = 0
	want.EstimatedCostUSD = ptr(0.0)
	equal(t, "after an absolute update", get(t, s, "s1"), want)
	equal(t, "usage after an absolute update", usage("s1"), []store.ModelUsage{first, second})

	t.Run("Defaults", func(t *testing.T) {
		update("s2", store.TokenUpdate{InputTokens: 1})
		want := row("s2", "unknown", at(2*time.Second))
		want.InputTokens, want.EstimatedCostUSD = 1, ptr(0.0)
		equal(t, "row", get(t, s, "s2"), want)
		equal(t, "usage", usage("s2"), []store.ModelUsage{{
			SessionID: "s2", Model: "unknown", InputTokens: 1, FirstSeen: ptr(at(2 * time.Second)), LastSeen: ptr(at(2 * time.Second)),
		}})
		// Nothing accounted: the model is backfilled, the route is not, no
		// usage row.
		update("s3", store.TokenUpdate{Model: "m", BillingProvider: "p", ActualCostUSD: ptr(0.0)})
		want = row("s3", "unknown", at(2*time.Second))
		want.Model, want.EstimatedCostUSD, want.ActualCostUSD = ptr("m"), ptr(0.0), ptr(0.0)
		equal(t, "unaccounted", get(t, s, "s3"), want)
		equal(t, "unaccounted usage", usage("s3"), []store.ModelUsage{})
		equal(t, "unknown session's usage", usage("nope"), []store.ModelUsage{})
	})
	t.Run("InfiniteCost", func(t *testing.T) {
		// Costs are REALs: a sum past the float64 range is +Inf, read as the
		// largest float64 with the stored value in Stored, and exported as
		// 1e999 (Python's float('inf') literal).
		for range 2 {
			update("inf", store.TokenUpdate{EstimatedCostUSD: ptr(math.MaxFloat64)})
		}
		got := get(t, s, "inf")
		equal(t, "estimate", *got.EstimatedCostUSD, math.MaxFloat64)
		equal(t, "stored", got.Stored, map[string]any{"estimated_cost_usd": math.Inf(1)})
		equal(t, "usage estimate", usage("inf")[0].EstimatedCostUSD, math.MaxFloat64)
		e, err := s.ExportSession(ctx, "inf")
		ok(t, err)
		if line := asJSON(t, e); !strings.Contains(line, `"estimated_cost_usd":1e999,`) {
			t.Errorf("export %s lacks the infinite estimate", line)
		}
	})
	t.Run("FirstAccountedRoute", func(t *testing.T) {
		create(t, s, store.NewSession{ID: "r", Source: "cli", Model: "requested"})
		ok(t, s.UpdateSessionBillingRoute(ctx, "r", store.BillingRoute{Provider: "req-provider", BaseURL: "https://req", Mode: "api"}))
		update("r", store.TokenUpdate{InputTokens: 1, APICallCount: 1, Model: "fallback", BillingProvider: "fb-provider"})
		got := get(t, s, "r")
		equal(t, "route replaced", [4]*string{got.Model, got.BillingProvider, got.BillingBaseURL, got.BillingMode},
			[4]*string{ptr("fallback"), ptr("fb-provider"), nil, nil})
		update("r", store.TokenUpdate{InputTokens: 1, APICallCount: 1, Model: "third", BillingProvider: "third-provider"})
		got = get(t, s, "r")
		equal(t, "route kept after a call", [2]*string{got.Model, got.BillingProvider}, [2]*string{ptr("fallback"), ptr("fb-provider")})
	})
	t.Run("Errors", func(t *testing.T) {
		update("big", store.TokenUpdate{Absolute: true, OutputTokens: math.MaxInt64})
		update("use", store.TokenUpdate{ReasoningTokens: math.MaxInt64})
		update("use", store.TokenUpdate{Absolute: true})
		before := state(t, s)
		for _, e := range []struct {
			name    string
			id      string
			u       store.TokenUpdate
			targets []error
		}{
			{"NaN estimate", "s1", store.TokenUpdate{InputTokens: 1, EstimatedCostUSD: ptr(math.NaN())}, []error{store.ErrInvalidCost}},
			{"NaN actual", "new", store.TokenUpdate{ActualCostUSD: ptr(math.NaN())}, []error{store.ErrInvalidCost}},
			{"session overflow", "big", store.TokenUpdate{OutputTokens: 1}, []error{store.ErrCounterOverflow}},
			{"usage overflow", "use", store.TokenUpdate{ReasoningTokens: 1}, []error{store.ErrCounterOverflow}},
			{"bad text", "new", store.TokenUpdate{CostSource: "\xff"}, []error{store.ErrInvalidText}},
			{"bad id", "n\xff", store.TokenUpdate{InputTokens: 1}, []error{store.ErrInvalidText}},
		} {
			isErr(t, e.name, s.UpdateTokenCounts(ctx, e.id, e.u), e.targets...)
		}
		unchanged(t, "refused token updates", s, before)
		update("big", store.TokenUpdate{OutputTokens: -1}) // a negative delta is no overflow
		equal(t, "after -1", get(t, s, "big").OutputTokens, int64(math.MaxInt64-1))
	})
}

func testUsageByModel(t *testing.T, h Harness) {
	ctx := t.Context()
	s, c := openClocked(t, h)
	create(t, s, store.NewSession{ID: "a", Source: "cli"})
	ok(t, s.UpdateTokenCounts(ctx, "a", store.TokenUpdate{Model: "m1", InputTokens: 10, APICallCount: 1, EstimatedCostUSD: ptr(1.0)}))
	ok(t, s.UpdateTokenCounts(ctx, "a", store.TokenUpdate{Model: "m2", InputTokens: 5, EstimatedCostUSD: ptr(2.0), ActualCostUSD: ptr(1.75)}))
	c.Advance(10 * time.Second)
	create(t, s, store.NewSession{ID: "b", Source: "telegram"})
	ok(t, s.UpdateTokenCounts(ctx, "b", store.TokenUpdate{Model: "m1", InputTokens: 3, ReasoningTokens: 4, APICallCount: 1, EstimatedCostUSD: ptr(0.5)}))
	c.Advance(10 * time.Second)
	create(t, s, store.NewSession{ID: "c", Source: "cli", Model: "m3"})
	ok(t, s.UpdateTokenCounts(ctx, "c", store.TokenUpdate{Absolute: true, InputTokens: 7, OutputTokens: 2}))

	byModel := func(opts store.UsageOptions) []store.ModelUsageTotal {
		t.Helper()
		got, err := s.UsageByModel(ctx, opts)
		ok(t, err)
		return got
	}
	m2 := store.ModelUsageTotal{Model: "m2", Sessions: 1, InputTokens: 5, EstimatedCostUSD: 2.0, ActualCostUSD: 1.75}
	m3 := store.ModelUsageTotal{Model: "m3", Sessions: 1, InputTokens: 7, OutputTokens: 2}
	equal(t, "all", byModel(store.UsageOptions{}), []store.ModelUsageTotal{
		m2, {Model: "m1", Sessions: 2, APICallCount: 2, InputTokens: 13, ReasoningTokens: 4, EstimatedCostUSD: 1.5}, m3,
	})
	equal(t, "cli", byModel(store.UsageOptions{Source: "cli"}), []store.ModelUsageTotal{
		m2, {Model: "m1", Sessions: 1, APICallCount: 1, InputTokens: 10, EstimatedCostUSD: 1.0}, m3,
	})
	equal(t, "since", byModel(store.UsageOptions{Since: epoch.Add(10 * time.Second)}), []store.ModelUsageTotal{
		{Model: "m1", Sessions: 1, APICallCount: 1, InputTokens: 3, ReasoningTokens: 4, EstimatedCostUSD: 0.5}, m3,
	})
	equal(t, "no source", byModel(store.UsageOptions{Source: "nope"}), []store.ModelUsageTotal{})
	_, err := s.UsageByModel(ctx, store.UsageOptions{Source: "\xff"})
	isErr(t, "bad source", err, store.ErrInvalidText)
}
