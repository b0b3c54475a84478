package store

import (
	"context"
	"fmt"
	"math"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// TokenUpdate is one update_token_counts call: the usage and billing of one
// or more API calls. Zero token counts and empty strings mean "not given";
// nil costs mean "not given", which differs from 0 (see the fields).
type TokenUpdate struct {
	InputTokens, OutputTokens                          int64
	CacheReadTokens, CacheWriteTokens, ReasoningTokens int64
	// APICallCount is added (or, Absolute, set: omitting it resets the
	// count to 0, as in the original).
	APICallCount int64

	// EstimatedCostUSD is added to the estimate; the estimate becomes 0.0
	// from NULL on the first update even when nil. Absolute: set, nil
	// meaning 0.0.
	EstimatedCostUSD *float64
	// ActualCostUSD is added (Absolute: set); nil leaves it untouched.
	ActualCostUSD *float64

	// CostStatus, CostSource and PricingVersion overwrite when non-empty.
	CostStatus, CostSource, PricingVersion string
	// BillingProvider, BillingBaseURL and BillingMode are the route of the
	// call. On the session row the first non-empty value sticks (see
	// UpdateTokenCounts for the first accounted call), and only a call
	// that accounts usage records them.
	BillingProvider, BillingBaseURL, BillingMode string
	// Model is the model of the call. On the session row it is recorded
	// only while the session has none (a backfill; it never overwrites,
	// except for the first accounted call).
	Model string

	// Absolute sets the counters instead of adding to them. Counters left
	// zero are set to 0. An absolute update records no per-model usage.
	Absolute bool
}

// accountsUsage is upstream's has_accounted_usage: the update counts
// something (a token, a call or a cost). Only then does it record its
// model and route on the session row.
func (u TokenUpdate) accountsUsage() bool {
	return u.InputTokens != 0 || u.OutputTokens != 0 || u.CacheReadTokens != 0 ||
		u.CacheWriteTokens != 0 || u.ReasoningTokens != 0 || u.APICallCount != 0 ||
		nonZero(u.EstimatedCostUSD) || nonZero(u.ActualCostUSD)
}

// recordsUsage is upstream's record_model_usage: an incremental update
// with a token, a call or an estimated cost (an actual cost alone records
// nothing) adds a per-model usage row.
func (u TokenUpdate) recordsUsage() bool {
	return !u.Absolute && (u.InputTokens != 0 || u.OutputTokens != 0 || u.CacheReadTokens != 0 ||
		u.CacheWriteTokens != 0 || u.ReasoningTokens != 0 || u.APICallCount != 0 ||
		nonZero(u.EstimatedCostUSD))
}

// nonZero is Python's truthiness of an optional float.
func nonZero(f *float64) bool { return f != nil && *f != 0 }

// UpdateTokenCounts applies u to session id exactly as upstream's
// update_token_counts (v21), in one write transaction:
//
//  1. The session is created when it does not exist (source "unknown",
//     u.Model, started now), as UpsertSession would; an existing session
//     gets u.Model only when it has no model.
//  2. The first accounted route: when the session has counted no API call
//     yet, u accounts usage (see below), and u's model and billing
//     provider are both given and differ from the session's, the session's
//     model, billing provider, base URL and mode are replaced by u's
//     (empty ones becoming NULL): the requested route failed and a
//     fallback answered.
//  3. The counters, costs and cost metadata are added (or set, Absolute)
//     column by column as in the original (spec §6.5). The billing route
//     and the model fill only NULL columns, and only when u accounts
//     usage: a token, a call or a cost that is not zero.
//  4. Incremental updates with a token, a call or an estimated cost add
//     them to the session_model_usage row of their route: u's model,
//     provider, base URL and mode, each falling back to the session's
//     (after the steps above) and then to "unknown" (model) or ""; costs
//     count as 0 when nil. Absolute updates record none.
//
// An addition that would take a session or usage counter past the int64
// range is refused before anything is written (SQLite would turn the sum
// into a REAL).
//
// It returns ErrCounterOverflow, ErrInvalidCost for a NaN cost,
// ErrInvalidText, ErrBusy or ErrClosed. (Before schema v21 support a
// missing session was ErrSessionNotFound; upstream now creates it.)
func (s *Store) UpdateTokenCounts(ctx context.Context, id string, u TokenUpdate) (err error) {
	defer wrapOn(&err, "update token counts of", id)
	if err := checkTexts("id", id, "cost status", u.CostStatus, "cost source", u.CostSource,
		"pricing version", u.PricingVersion, "billing provider", u.BillingProvider,
		"billing base url", u.BillingBaseURL, "billing mode", u.BillingMode, "model", u.Model); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		v    *float64
	}{{"estimated cost", u.EstimatedCostUSD}, {"actual cost", u.ActualCostUSD}} {
		if c.v != nil && math.IsNaN(*c.v) {
			return fmt.Errorf("%s: %w", c.name, ErrInvalidCost)
		}
	}
	accounted := u.accountsUsage()
	// The two statements bind the same values; the generated param structs
	// are distinct types with the same fields, so one converts to the other.
	p := db.SessionAddTokensParams{
		InputTokens:      u.InputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens,
		EstimatedCostUSD: u.EstimatedCostUSD,
		ActualCostUSD:    u.ActualCostUSD,
		CostStatus:       nullable(u.CostStatus),
		CostSource:       nullable(u.CostSource),
		PricingVersion:   nullable(u.PricingVersion),
		APICallCount:     u.APICallCount,
		ID:               id,
	}
	if accounted {
		p.BillingProvider = nullable(u.BillingProvider)
		p.BillingBaseURL = nullable(u.BillingBaseURL)
		p.BillingMode = nullable(u.BillingMode)
		p.Model = nullable(u.Model)
	}
	now := s.now()
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if _, err := s.upsertSession(ctx, tx, db.SessionUpsertParams{
			ID: id, Source: "unknown", Model: nullable(u.Model), StartedAt: sqlnum.RealOf(now),
		}); err != nil {
			return err
		}
		if !u.Absolute {
			if err := s.checkCounters(ctx, tx, id, tokenAdds(u)); err != nil {
				return err
			}
		}
		route, err := s.q.SessionRoute(ctx, tx, id)
		if err != nil {
			return err
		}
		if accounted && firstAccountedRoute(route, u) {
			if _, err := s.q.SessionSetRoute(ctx, tx, db.SessionSetRouteParams{
				Model: nullable(u.Model), BillingProvider: nullable(u.BillingProvider),
				BillingBaseURL: nullable(u.BillingBaseURL), BillingMode: nullable(u.BillingMode), ID: id,
			}); err != nil {
				return err
			}
		}
		if u.Absolute {
			_, err = s.q.SessionSetTokens(ctx, tx, db.SessionSetTokensParams(p))
		} else {
			_, err = s.q.SessionAddTokens(ctx, tx, p)
		}
		if err != nil || !u.recordsUsage() {
			return err
		}
		return s.recordModelUsage(ctx, tx, id, u, now)
	})
}

// firstAccountedRoute is upstream's first_accounted_route test (for an
// update that accounts usage): no API call counted on the session yet, and
// u names a model and a provider of which at least one differs from the
// session's.
func firstAccountedRoute(r db.SessionRouteRow, u TokenUpdate) bool {
	return r.APICallCount.Int64 == 0 && u.Model != "" && u.BillingProvider != "" &&
		(r.Model == nil || *r.Model != u.Model || r.BillingProvider == nil || *r.BillingProvider != u.BillingProvider)
}
