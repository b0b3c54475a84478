package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
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
	// BillingProvider, BillingBaseURL and BillingMode are recorded once: the
	// first non-empty value sticks forever.
	BillingProvider, BillingBaseURL, BillingMode string
	// Model is recorded only while the session has none (a backfill; it
	// never overwrites).
	Model string

	// Absolute sets the counters instead of adding to them. Counters left
	// zero are set to 0.
	Absolute bool
}

// UpdateTokenCounts applies u to session id, column by column exactly as
// the original's update_token_counts (spec §6.5). An addition that would
// take a counter past the int64 range is refused before anything is
// written (SQLite would turn the sum into a REAL).
//
// It returns ErrSessionNotFound (the original silently updates nothing),
// ErrCounterOverflow, ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) UpdateTokenCounts(ctx context.Context, id string, u TokenUpdate) (err error) {
	defer wrapOn(&err, "update token counts of", id)
	if err := checkTexts("cost status", u.CostStatus, "cost source", u.CostSource,
		"pricing version", u.PricingVersion, "billing provider", u.BillingProvider,
		"billing base url", u.BillingBaseURL, "billing mode", u.BillingMode, "model", u.Model); err != nil {
		return err
	}
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
		BillingProvider:  nullable(u.BillingProvider),
		BillingBaseURL:   nullable(u.BillingBaseURL),
		BillingMode:      nullable(u.BillingMode),
		Model:            nullable(u.Model),
		APICallCount:     u.APICallCount,
		ID:               id,
	}
	return s.update(ctx, id, func(ctx context.Context, tx db.DBTX) (int64, error) {
		if u.Absolute {
			return s.q.SessionSetTokens(ctx, tx, db.SessionSetTokensParams(p))
		}
		if err := s.checkCounters(ctx, tx, id, tokenAdds(u)); err != nil {
			return 0, err
		}
		return s.q.SessionAddTokens(ctx, tx, p)
	})
}
