package pgsearch

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/fts"
	"github.com/hermesstate/hermesstate/internal/sqlitesearch"
)

// Options are a search's filters and page: the SQLite builder's, with the
// same meanings, so that the store hands both engines the same value.
type Options = sqlitesearch.Options

// Order is a search's order (sqlitesearch's).
type Order = sqlitesearch.Order

// Statement is one PostgreSQL search statement and its arguments, for
// pgx's Query(ctx, SQL, Args...). Its rows are the columns SQLite's
// statements return, in their order: id, session_id, role, snippet (text,
// NULL on the full-text routes), long_hit (bool: true on the full-text
// routes, see the package documentation), timestamp, tool_name, source,
// model, started_at.
type Statement struct {
	// Route is the plan's route.
	Route fts.Route
	// SQL is the statement's text: constants and $n placeholders only.
	SQL string
	// Args are its arguments, $1 first.
	Args []any
}

// ErrUnknownRoute is returned by [Build] for a plan of a route it does not
// know.
var ErrUnknownRoute = errors.New("pgsearch: unknown route")

// searchExpr is the text both engines index for a message, exactly as the
// pg_trgm index of migrations/postgres names it (so that the index serves
// the route's ILIKE).
const searchExpr = `(COALESCE(m.content, '') || ' ' || COALESCE(m.tool_name, '') || ' ' || COALESCE(m.tool_calls, ''))`

// hitTail is a hit's columns after the snippet and long_hit.
const hitTail = `m.timestamp, m.tool_name, s.source, s.model, s.started_at`

// Build returns the statement that runs plan with opts. ok is false, with
// the zero Statement, when there is nothing to run: a RouteNone plan, or
// one whose every phrase is without tokens (FTS5 finds nothing for it
// either). The error is [ErrUnknownRoute], or fts's [fts.ErrUnsupportedMatch]
// for a MATCH expression Parse never produces.
func Build(plan fts.Plan, opts Options) (st Statement, ok bool, err error) {
	order := opts.Order
	if order < sqlitesearch.OrderRank || order > sqlitesearch.OrderOldest {
		order = sqlitesearch.OrderRank // as upstream reads an unknown sort
	}
	b := &builder{}
	switch plan.Route {
	case fts.RouteNone:
		return Statement{}, false, nil
	case fts.RouteUnicode61:
		q, ok, err := fts.TSQuery(plan)
		if err != nil || !ok {
			return Statement{}, false, err
		}
		b.sql = b.unicode61(q, opts, order)
	case fts.RouteTrigram:
		e, err := fts.ParseMatch(plan.Match)
		if err != nil {
			return Statement{}, false, err
		}
		// FTS5's trigram tokenizer makes no token of fewer than 3
		// characters.
		e, ok := e.Resolve(func(p fts.Expr) bool { return utf8.RuneCountInString(p.Text) < 3 })
		if !ok {
			return Statement{}, false, nil
		}
		b.sql = b.scan(b.trigramCond(e), nil, opts, order)
	case fts.RouteLike:
		if len(plan.Groups) == 0 {
			return Statement{}, false, nil
		}
		anchor := b.arg(plan.Anchor)
		b.sql = b.scan(b.likeCond(plan.Groups), &anchor, opts, order)
	default:
		return Statement{}, false, ErrUnknownRoute
	}
	return Statement{Route: plan.Route, SQL: b.sql, Args: b.args}, true, nil
}

// builder collects a statement's arguments, numbering their placeholders.
type builder struct {
	args []any
	sql  string
}

// arg binds v and returns its placeholder.
func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

// filters are the SQLite statements' filters (sqlitesearch's
// searchFilters), with text[] parameters for json_each's arrays: live and
// compaction-archived rows unless include_inactive; sources kept (NULL:
// all, {}: none), sources left out and roles kept (NULL: no filter).
func (b *builder) filters(o Options) string {
	inactive := int64(0)
	if o.IncludeInactive {
		inactive = 1
	}
	return `
      AND (` + b.arg(inactive) + `::bigint <> 0 OR m.active = 1 OR m.compacted = 1)
      AND (` + b.list(o.Sources, true) + `::text[] IS NULL OR s.source = ANY(` + b.last() + `::text[]))
      AND (` + b.list(o.ExcludeSources, false) + `::text[] IS NULL OR s.source <> ALL(` + b.last() + `::text[]))
      AND (` + b.list(o.Roles, false) + `::text[] IS NULL OR m.role = ANY(` + b.last() + `::text[]))`
}

// last is the placeholder of the argument bound last.
func (b *builder) last() string { return "$" + strconv.Itoa(len(b.args)) }

// list binds a filter list, or NULL when the filter is off: a nil slice
// is off; an empty one is off too unless emptyMeansNone (sqlitesearch's
// jsonList).
func (b *builder) list(items []string, emptyMeansNone bool) string {
	if items == nil || (len(items) == 0 && !emptyMeansNone) {
		return b.arg(nil)
	}
	return b.arg(append([]string{}, items...))
}

// page is the page: a negative limit is no limit (SQLite's LIMIT -1,
// which PostgreSQL refuses), a negative offset none.
func (b *builder) page(o Options) string {
	l := b.arg(int64(o.Limit))
	off := b.arg(int64(o.Offset))
	return `
LIMIT CASE WHEN ` + l + `::bigint < 0 THEN NULL ELSE ` + l + `::bigint END OFFSET GREATEST(` + off + `::bigint, 0)`
}

// unicode61 is the tsvector route, ranked as SQLite ranks it as nearly
// as PostgreSQL can: ts_rank_cd with normalization 2 (divided by the
// document's length, as bm25 weighs a match in a short message higher),
// best first, ties by id ascending (FTS5's rank order leaves equal scores
// in rowid order). A sort puts the timestamp in front and breaks ties by
// id in its direction, as SQLite's sorted statements do. No snippet: every
// hit is long (see the package documentation).
func (b *builder) unicode61(q string, o Options, order Order) string {
	query := b.arg(q)
	rank := `ts_rank_cd(ms.tokens, CAST(` + query + ` AS tsquery), 2) DESC`
	by := rank + `, m.id ASC`
	switch order {
	case sqlitesearch.OrderNewest:
		by = `m.timestamp DESC, ` + rank + `, m.id DESC`
	case sqlitesearch.OrderOldest:
		by = `m.timestamp ASC, ` + rank + `, m.id ASC`
	}
	return `
SELECT m.id, m.session_id, m.role, CAST(NULL AS text), true AS long_hit, ` + hitTail + `
FROM messages_search ms
JOIN messages m ON m.id = ms.id
JOIN sessions s ON s.id = m.session_id
WHERE ms.tokens @@ CAST(` + query + ` AS tsquery)` + b.filters(o) + `
ORDER BY ` + by + b.page(o)
}

// scan is the trigram and LIKE routes: cond on the message, the page
// found first and its columns then. The LIKE route (anchor not nil) reads
// newest first (oldest under OrderOldest), with the original's snippet:
// 120 characters of content from 40 before the anchor's first
// (case-sensitive) occurrence (SQLite's instr and max are strpos and
// GREATEST). The trigram route (anchor nil) has no snippet (long_hit) and,
// by rank, stands in for bm25 with the indexed text's length, shortest
// first (a match weighs more in a shorter text), ties by id ascending;
// sorted, it reads as the LIKE route does.
func (b *builder) scan(cond string, anchor *string, o Options, order Order) string {
	inner, outer := `m.timestamp DESC, m.id DESC`, `hits.k DESC, hits.id DESC`
	key := `m.timestamp`
	switch {
	case order == sqlitesearch.OrderOldest:
		inner, outer = `m.timestamp ASC, m.id ASC`, `hits.k ASC, hits.id ASC`
	case order == sqlitesearch.OrderRank && anchor == nil:
		key = `length` + searchExpr
		inner, outer = key+` ASC, m.id ASC`, `hits.k ASC, hits.id ASC`
	}
	snippet, long := `CAST(NULL AS text)`, `true`
	if anchor != nil {
		snippet = `substr(m.content, GREATEST(1, strpos(m.content, ` + *anchor + `) - 40), 120)`
		long = `false`
	}
	return `
WITH hits AS (
    SELECT m.id, ` + key + ` AS k
    FROM messages m
    JOIN sessions s ON s.id = m.session_id
    WHERE ` + cond + b.filters(o) + `
    ORDER BY ` + inner + b.page(o) + `
)
SELECT m.id, m.session_id, m.role, ` + snippet + `, ` + long + ` AS long_hit, ` + hitTail + `
FROM hits
JOIN messages m ON m.id = hits.id
JOIN sessions s ON s.id = m.session_id
ORDER BY ` + outer
}

// trigramCond is e as a condition on the indexed expression: a phrase is
// a case-insensitive substring (FTS5's trigram tokenizer folds case and
// keeps diacritics, as ILIKE does), AND, OR and NOT as in e.
func (b *builder) trigramCond(e fts.Expr) string {
	switch e.Kind {
	case fts.ExprPhrase:
		return searchExpr + ` ILIKE ` + b.arg("%"+fts.EscapeLike(e.Text)+"%") + ` ESCAPE '\'`
	case fts.ExprNot:
		return `(` + b.trigramCond(e.Children[0]) + ` AND NOT ` + b.trigramCond(e.Children[1]) + `)`
	}
	op := ` AND `
	if e.Kind == fts.ExprOr {
		op = ` OR `
	}
	parts := make([]string, len(e.Children))
	for i, c := range e.Children {
		parts[i] = b.trigramCond(c)
	}
	return `(` + strings.Join(parts, op) + `)`
}

// likeCond is the LIKE groups as a condition: some group whose every All
// term is in the message and no None term is.
func (b *builder) likeCond(groups []fts.LikeGroup) string {
	var alts []string
	for _, g := range groups {
		var parts []string
		for _, t := range g.All {
			parts = append(parts, b.likeTerm(t))
		}
		for _, t := range g.None {
			parts = append(parts, `NOT `+b.likeTerm(t))
		}
		alts = append(alts, `(`+strings.Join(parts, ` AND `)+`)`)
	}
	return `(` + strings.Join(alts, ` OR `) + `)`
}

// asciiLower folds the ASCII letters only, as SQLite's LIKE compares.
const asciiLower = `'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'`

// likeTerm is SQLite's "content LIKE p OR tool_name LIKE p OR tool_calls
// LIKE p" for one term: each column with its ASCII letters folded (translate)
// LIKE the pattern so folded (in Go). The ILIKE on the indexed expression
// in front is implied by it (a column's match is one of the expression's,
// and ASCII folding is part of lower()'s): it changes no result and lets
// pg_trgm's index narrow the rows. NULL columns read as the empty text so
// that NOT (...) is never unknown.
func (b *builder) likeTerm(t fts.LikeTerm) string {
	p := b.arg(t.Pattern)
	folded := b.arg(strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 32
		}
		return r
	}, t.Pattern))
	col := func(c string) string {
		return `translate(COALESCE(m.` + c + `, ''), ` + asciiLower + `) LIKE ` + folded + ` ESCAPE '\'`
	}
	return `(` + searchExpr + ` ILIKE ` + p + ` ESCAPE '\' AND (` + col("content") + ` OR ` + col("tool_name") + ` OR ` + col("tool_calls") + `))`
}
