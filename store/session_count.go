package store

import "context"

// SessionCount is upstream's session_count(source): the sessions of one
// source, or of all when source is "", archived ones left out (schema v21
// counts as its listings list; before it every row was counted). See
// CountSessions for the other filters.
//
// It returns ErrClosed.
func (s *Store) SessionCount(ctx context.Context, source string) (_ int64, err error) {
	defer wrap(&err, "count sessions")
	return s.countSessions(ctx, CountOptions{Source: source})
}

// sessionCount counts every session of source, archived ones included: the
// number of sessions an export of source writes.
func (s *Store) sessionCount(ctx context.Context, source string) (int64, error) {
	return s.countSessions(ctx, CountOptions{Source: source, IncludeArchived: true})
}
