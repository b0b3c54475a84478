package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// TokenStats is the token and cost total of one model or one source: the
// design document's statistics queries.
type TokenStats struct {
	// Key is the model name (TokenStatsByModel) or the source
	// (TokenStatsBySource).
	Key          string  `json:"key"`
	Sessions     int64   `json:"sessions"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"estimated_cost_usd"` // sum of the known estimates; 0 when none is known, the largest float past it
}

// TopSession is one of the sessions with the most tokens.
type TopSession struct {
	ID      string   `json:"id"`
	Title   *string  `json:"title"`
	Model   *string  `json:"model"`
	Tokens  int64    `json:"total_tokens"` // input + output
	CostUSD *float64 `json:"estimated_cost_usd"`
}

// TokenStatsByModel returns the token and estimated-cost totals of every
// model that has sessions, costliest first (then by name). Sessions with no
// model are not counted. It returns ErrClosed.
func (s *Store) TokenStatsByModel(ctx context.Context) (_ []TokenStats, err error) {
	defer wrap(&err, "token stats by model")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]TokenStats, error) {
		rows, err := s.q.SessionTokenStatsByModel(ctx, q)
		return convertRows(rows, err, func(r db.SessionTokenStatsByModelRow) TokenStats {
			return TokenStats{r.Model, r.SessionCount, r.TotalInput, r.TotalOutput, finite(r.TotalCost)}
		})
	})
}

// TokenStatsBySource is TokenStatsByModel per source (platform): every
// session counts. It returns ErrClosed.
func (s *Store) TokenStatsBySource(ctx context.Context) (_ []TokenStats, err error) {
	defer wrap(&err, "token stats by source")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]TokenStats, error) {
		rows, err := s.q.SessionTokenStatsBySource(ctx, q)
		return convertRows(rows, err, func(r db.SessionTokenStatsBySourceRow) TokenStats {
			return TokenStats{r.Source, r.SessionCount, r.TotalInput, r.TotalOutput, finite(r.TotalCost)}
		})
	})
}

// TopSessionsByTokens returns the n sessions with the most input+output
// tokens, most first, ties by id. n ≤ 0 returns none. It returns ErrClosed.
func (s *Store) TopSessionsByTokens(ctx context.Context, n int) (_ []TopSession, err error) {
	defer wrap(&err, "top sessions by tokens")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]TopSession, error) {
		if n <= 0 {
			return []TopSession{}, nil
		}
		rows, err := s.q.SessionTopByTokens(ctx, q, int64(n))
		return convertRows(rows, err, func(r db.SessionTopByTokensRow) TopSession {
			return TopSession{r.ID, r.Title, r.Model, r.TotalTokens, optionalFloat(r.EstimatedCostUSD)}
		})
	})
}
