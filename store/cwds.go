package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// CwdUsage is one working directory sessions ran in.
type CwdUsage struct {
	Cwd string `json:"cwd"`
	// Sessions is how many sessions ran there, children and branches
	// included.
	Sessions int64 `json:"sessions"`
	// LastActive is the newest end, else start, among them.
	LastActive Timestamp `json:"last_active"`
}

// DistinctSessionCwds returns every working directory recorded on a
// session, in byte order, with its use, as upstream's
// distinct_session_cwds: NULL cwds and those of nothing but spaces are left
// out, and so are archived sessions unless includeArchived.
//
// It returns ErrClosed.
func (s *Store) DistinctSessionCwds(ctx context.Context, includeArchived bool) (_ []CwdUsage, err error) {
	defer wrap(&err, "list session working directories")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]CwdUsage, error) {
		rows, err := s.q.SessionDistinctCwds(ctx, q, boolInt(includeArchived))
		return convertRows(rows, err, func(r db.SessionDistinctCwdsRow) CwdUsage {
			return CwdUsage{Cwd: r.Cwd, Sessions: r.Sessions, LastActive: Timestamp(finite(r.LastActive))}
		})
	})
}
