package store

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hermesstate/hermesstate/db"
)

// CountOptions select the sessions CountSessions counts: upstream's
// session_count keyword arguments. The zero value counts every session
// that is not archived.
type CountOptions struct {
	// Source counts only the sessions of one source; "" counts every
	// source.
	Source string
	// ExcludeSources leaves out the sessions of these sources.
	ExcludeSources []string
	// CwdPrefix counts only sessions whose cwd is this directory or under
	// it ("/repo" counts "/repo" and "/repo/sub", not "/repo-wt"; a
	// trailing / or \ is ignored). As upstream's, the prefix is a LIKE
	// pattern: % and _ in it are wildcards, and ASCII letters match either
	// case. "" counts any cwd.
	CwdPrefix string
	// MinMessageCount, when positive, counts only sessions with at least
	// that many messages.
	MinMessageCount int64
	// IncludeArchived counts archived sessions too; ArchivedOnly counts
	// only them (and wins over IncludeArchived).
	IncludeArchived, ArchivedOnly bool
	// ExcludeChildren counts only what ListSessionsRich lists by default:
	// roots and /branch children, no subagent run, compression
	// continuation or tagged delegate.
	ExcludeChildren bool
}

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

// CountSessions is upstream's session_count with every filter: it counts
// the sessions opts selects, in one snapshot.
//
// It returns ErrInvalidText for a filter that is not UTF-8, ErrInvalidFilter
// for a CwdPrefix too long for a LIKE pattern, or ErrClosed.
func (s *Store) CountSessions(ctx context.Context, opts CountOptions) (_ int64, err error) {
	defer wrap(&err, "count sessions")
	return s.countSessions(ctx, opts)
}

// sessionCount counts every session of source, archived ones included: the
// number of sessions an export of source writes.
func (s *Store) sessionCount(ctx context.Context, source string) (int64, error) {
	return s.countSessions(ctx, CountOptions{Source: source, IncludeArchived: true})
}

// countSessions is CountSessions.
func (s *Store) countSessions(ctx context.Context, opts CountOptions) (int64, error) {
	if err := checkTexts("source", opts.Source, "cwd prefix", opts.CwdPrefix); err != nil {
		return 0, err
	}
	for _, src := range opts.ExcludeSources {
		if err := checkText("excluded source", src); err != nil {
			return 0, err
		}
	}
	cwd, err := cwdPrefixPatterns(opts.CwdPrefix)
	if err != nil {
		return 0, err
	}
	p := db.SessionCountFilteredParams{
		ExcludeChildren: boolInt(opts.ExcludeChildren),
		Source:          nullable(opts.Source),
		CwdExact:        cwd.exact,
		CwdSlash:        cwd.slash,
		CwdBackslash:    cwd.backslash,
		MinMessageCount: opts.MinMessageCount,
		ArchivedOnly:    boolInt(opts.ArchivedOnly),
		IncludeArchived: boolInt(opts.IncludeArchived),
	}
	if len(opts.ExcludeSources) > 0 {
		b, err := json.Marshal(opts.ExcludeSources) // valid UTF-8, checked above: marshalled unchanged
		if err != nil {
			return 0, err
		}
		p.ExcludeSources = new(string(b))
	}
	return read(s, ctx, func(ctx context.Context, q db.DBTX) (int64, error) {
		return s.q.SessionCountFiltered(ctx, q, p)
	})
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

// boolInt is b as SQLite's 0 or 1.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
