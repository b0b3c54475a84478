package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// ModelUsage is one row of session_model_usage (schema v20): what one
// session spent on one route, a (model, billing provider, base URL, billing
// mode), over the incremental token updates made on it. A route's missing
// parts are "" (the model "unknown"). Counters that hold something other
// than an integer read as SQLite's CAST gives them.
type ModelUsage struct {
	SessionID        string  `json:"session_id"`
	Model            string  `json:"model"`
	BillingProvider  string  `json:"billing_provider"`
	BillingBaseURL   string  `json:"billing_base_url"`
	BillingMode      string  `json:"billing_mode"`
	APICallCount     int64   `json:"api_call_count"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	EstimatedCostUSD float64 `json:"estimated_cost_usd"`
	ActualCostUSD    float64 `json:"actual_cost_usd"`
	CostStatus       *string `json:"cost_status"`
	CostSource       *string `json:"cost_source"`
	// FirstSeen and LastSeen are the times of the route's first and latest
	// update (nil when NULL, as a hand-written row may have).
	FirstSeen *Timestamp `json:"first_seen"`
	LastSeen  *Timestamp `json:"last_seen"`
}

// ModelUsage returns session id's per-route usage rows, in the order their
// routes were first used. A session without rows (no incremental update
// counted anything, or an unknown id) has none.
//
// It returns ErrClosed.
func (s *Store) ModelUsage(ctx context.Context, id string) (_ []ModelUsage, err error) {
	defer wrapOn(&err, "model usage of", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]ModelUsage, error) {
		rows, err := s.q.UsageOfSession(ctx, q, id)
		return convertRows(rows, err, func(r db.SessionModelUsage) ModelUsage {
			return ModelUsage{
				SessionID: r.SessionID, Model: r.Model, BillingProvider: r.BillingProvider,
				BillingBaseURL: r.BillingBaseURL, BillingMode: r.BillingMode,
				APICallCount: r.APICallCount.Int64, InputTokens: r.InputTokens.Int64,
				OutputTokens: r.OutputTokens.Int64, CacheReadTokens: r.CacheReadTokens.Int64,
				CacheWriteTokens: r.CacheWriteTokens.Int64, ReasoningTokens: r.ReasoningTokens.Int64,
				EstimatedCostUSD: finite(r.EstimatedCostUSD.Float64), ActualCostUSD: finite(r.ActualCostUSD.Float64),
				CostStatus: r.CostStatus, CostSource: r.CostSource,
				FirstSeen: (*Timestamp)(optionalFloat(r.FirstSeen)), LastSeen: (*Timestamp)(optionalFloat(r.LastSeen)),
			}
		})
	})
}

// UsageOptions select the sessions UsageByModel totals.
type UsageOptions struct {
	// Since, when not zero, counts only sessions started at or after it.
	Since time.Time
	// Source counts only the sessions of one source; "" counts all.
	Source string
}

// ModelUsageTotal is what every selected session spent on one model.
type ModelUsageTotal struct {
	Model string `json:"model"`
	// Sessions is the number of sessions that used the model.
	Sessions         int64   `json:"sessions"`
	APICallCount     int64   `json:"api_call_count"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	EstimatedCostUSD float64 `json:"estimated_cost_usd"`
	ActualCostUSD    float64 `json:"actual_cost_usd"`
}

// UsageByModel totals usage per model the way upstream's insights
// attributes it: the session_model_usage rows of the selected sessions
// (so a session that switched models counts under each), plus, per
// session, what its own counters hold beyond its rows (absolute-mode
// updates, a file whose rows were never seeded) under the session's model.
// Such a remainder is never negative and has no reasoning tokens; an empty
// model counts as "unknown". Costs are the stored ones, and model names are
// kept whole (insights prices from its own table and shortens "a/b" to
// "b"). Costliest first, then by model. Sums past 2^53 are approximate,
// as TokenStatsByModel's.
//
// It returns ErrInvalidText for a source that is not UTF-8, or ErrClosed.
func (s *Store) UsageByModel(ctx context.Context, opts UsageOptions) (_ []ModelUsageTotal, err error) {
	defer wrap(&err, "usage by model")
	if err := checkText("source", opts.Source); err != nil {
		return nil, err
	}
	p := db.UsageByModelParams{Source: nullable(opts.Source)}
	if !opts.Since.IsZero() {
		p.Since = new(float64(TimestampOf(opts.Since)))
	}
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]ModelUsageTotal, error) {
		rows, err := s.q.UsageByModel(ctx, q, p)
		return convertRows(rows, err, func(r db.UsageByModelRow) ModelUsageTotal {
			return ModelUsageTotal{
				Model: r.Model, Sessions: r.SessionCount, APICallCount: r.APICallCount,
				InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
				CacheReadTokens: r.CacheReadTokens, CacheWriteTokens: r.CacheWriteTokens,
				ReasoningTokens:  r.ReasoningTokens,
				EstimatedCostUSD: finite(r.EstimatedCostUSD), ActualCostUSD: finite(r.ActualCostUSD),
			}
		})
	})
}

// recordModelUsage is upstream's _record_model_usage, run in
// UpdateTokenCounts' transaction after the session row is updated: u's
// delta is added to the usage row of its route, each part of which falls
// back to the session's (which may hold an earlier route's value: upstream
// inherits it, §4.3) and then to "unknown" or "".
func (s *Store) recordModelUsage(ctx context.Context, tx backend.Tx, id string, u TokenUpdate, now float64) error {
	r, err := s.q.SessionRoute(ctx, tx, id)
	if err != nil {
		return err
	}
	key := db.UsageCountersParams{
		SessionID:       id,
		Model:           firstNonEmpty(u.Model, deref(r.Model), "unknown"),
		BillingProvider: firstNonEmpty(u.BillingProvider, deref(r.BillingProvider)),
		BillingBaseURL:  firstNonEmpty(u.BillingBaseURL, deref(r.BillingBaseURL)),
		BillingMode:     firstNonEmpty(u.BillingMode, deref(r.BillingMode)),
	}
	counters, err := s.q.UsageCounters(ctx, tx, key)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	default:
		if err := checkAdds(usageAdds(u, counters)); err != nil {
			return err
		}
	}
	return s.q.UsageRecord(ctx, tx, db.UsageRecordParams{
		SessionID:        key.SessionID,
		Model:            key.Model,
		BillingProvider:  key.BillingProvider,
		BillingBaseURL:   key.BillingBaseURL,
		BillingMode:      key.BillingMode,
		APICallCount:     sqlnum.IntOf(u.APICallCount),
		InputTokens:      sqlnum.IntOf(u.InputTokens),
		OutputTokens:     sqlnum.IntOf(u.OutputTokens),
		CacheReadTokens:  sqlnum.IntOf(u.CacheReadTokens),
		CacheWriteTokens: sqlnum.IntOf(u.CacheWriteTokens),
		ReasoningTokens:  sqlnum.IntOf(u.ReasoningTokens),
		EstimatedCostUSD: sqlnum.RealOf(deref(u.EstimatedCostUSD)),
		ActualCostUSD:    sqlnum.RealOf(deref(u.ActualCostUSD)),
		CostStatus:       nullable(u.CostStatus),
		CostSource:       nullable(u.CostSource),
		Now:              sqlnum.RealOf(now),
	})
}

// firstNonEmpty is Python's `a or b or …` over strings: the first that is
// not "", else "".
func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
