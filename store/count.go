package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// CountOptions select the sessions CountSessions counts: upstream's
// session_count keyword arguments, each zero value being upstream's
// default. The filters mean what ListOptions' fields of the same names
// mean, so a count with the options of a listing counts what the listing
// pages through (given ExcludeChildren unless the listing includes them).
type CountOptions struct {
	Source          string
	ExcludeSources  []string
	CwdPrefix       string
	MinMessageCount int
	// IncludeArchived counts archived sessions too; ArchivedOnly counts only
	// them. By default archived sessions are not counted.
	IncludeArchived bool
	ArchivedOnly    bool
	// ExcludeChildren counts only what ListSessionsRich lists by default:
	// roots and /branch children, no tagged delegate. By default every
	// session counts, children included, as upstream.
	ExcludeChildren bool
}

// CountSessions counts the sessions opts selects, as upstream's
// session_count: by default every session that is not archived.
//
// It returns ErrClosed.
func (s *Store) CountSessions(ctx context.Context, opts CountOptions) (_ int64, err error) {
	defer wrap(&err, "count sessions")
	return s.countSessions(ctx, opts)
}

// countSessions is CountSessions without the wrap, for the methods that
// count with other defaults.
func (s *Store) countSessions(ctx context.Context, opts CountOptions) (int64, error) {
	f := newListFilter(opts.ExcludeChildren, opts.Source, opts.ExcludeSources, opts.CwdPrefix,
		opts.MinMessageCount, opts.IncludeArchived, opts.ArchivedOnly)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (int64, error) {
		return s.q.SessionCountListed(ctx, q, db.SessionCountListedParams{
			IncludeChildren: f.includeChildren, Source: f.source, ExcludeSources: f.excludeSources,
			CwdPrefix: f.cwdPrefix, CwdLikeSlash: f.cwdLikeSlash, CwdLikeBackslash: f.cwdLikeBackslash,
			MinMessageCount: f.minMessageCount, Archived: f.archived,
		})
	})
}
