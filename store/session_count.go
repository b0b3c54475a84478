package store

import (
	"context"
	"strings"
)

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

// cwdPatterns are the three parameters of a cwd prefix filter; all nil
// when there is none.
type cwdPatterns struct {
	exact, slash, backslash *string
}

// cwdPrefixPatterns builds upstream's _cwd_prefix_clause parameters: the
// prefix without trailing separators (unless that leaves nothing), and it
// followed by /% and by \%, unescaped. A pattern past SQLite's LIKE limit
// is ErrInvalidFilter: SQLite would fail the statement.
func cwdPrefixPatterns(prefix string) (cwdPatterns, error) {
	if prefix == "" {
		return cwdPatterns{}, nil
	}
	p := strings.TrimRight(prefix, `/\`)
	if p == "" {
		p = prefix
	}
	if len(p)+2 > maxLikePattern {
		return cwdPatterns{}, errLikeTooLong("cwd prefix")
	}
	return cwdPatterns{exact: &p, slash: new(p + "/%"), backslash: new(p + `\%`)}, nil
}
