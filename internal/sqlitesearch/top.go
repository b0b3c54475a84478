package sqlitesearch

import (
	"database/sql"
	"math"
)

// The top form of a search by rank. The original's statement ends in
// ORDER BY rank, which FTS5 takes over: it runs its own inner statement
// (SELECT rowid, rank … ORDER BY bm25(…), fts5CursorFirstSorted) that
// scores every match, copies each one's position lists into a record and
// sorts all the records, so that the join above it pulls them best first.
// For a common word, sorting every match costs a quarter of the search
// (18,000 matches: 8.7 ms, against 6.3 ms for the top form).
//
// The top form asks FTS5 for the rank as a column instead (ORDER BY +rank:
// the unary + keeps the ORDER BY from being handed to FTS5) and lets
// SQLite keep the best n matches as it goes (a sort with a LIMIT keeps
// only that many rows): the candidates, in a materialised CTE. Only then
// are the candidates joined to messages and sessions and filtered; the
// statement returns the page's ids and ranks, and [Statement.PageSQL]
// reads their rows, snippets included, in one walk of the MATCH over the
// page's rowids (as for a split search). The rank is the same value from
// the same function (the table's rank function, bm25 unless a file
// configured another), and equal ranks keep the original's order,
// ascending rowid (see KeysRank), here written out.
//
// The page statement's walk costs what the sort saves when the matches
// are few and the words common, so the store runs the top form only for a
// search it knows has many matches (the ranges of a split search, and the
// whole search after the probe counted many), and the original statement
// otherwise.
//
// The answer is the original's whenever the filters left a whole page
// among the n candidates, or there were fewer than n matches in all (every
// match was a candidate). Otherwise the store runs the original statement
// (see [Statement.CandidatesSQL]). n is the page's end plus topMargin, so
// that a few rewound rows (the one filter a plain search applies, which
// only messages can tell) or index rows without a message cost nothing
// more. Searches filtered by source or role keep the original statement:
// those filters can leave out most candidates.

const (
	// topMaxHits is the largest page end (offset + limit) the top form
	// serves; a deeper page, or no limit, runs the original statement.
	topMaxHits = 1000
	// topMargin is how many candidates the top form ranks beyond the
	// page's end.
	topMargin = 16
)

// topTexts are each full-text kind's top statement: the ids and ranks of
// a page of hits over a range of rowids (the whole search's: every rowid).
// The page's rows are read by [Statement.PageSQL], as for a split search:
// one walk of the MATCH over the page's rowids, without ranking, instead
// of one MATCH for each hit (each of which reads its terms' doclists up to
// the hit again).
var topTexts = [...]string{
	noStatement: "",
	unicode61:   topSQL("messages_fts"),
	trigram:     topSQL("messages_fts_trigram"),
	like:        "",
	likeGroups:  "",
}

// candidatesTexts count each full-text kind's matches over a range of
// rowids, at most @n of them (see [Statement.CandidatesSQL]).
var candidatesTexts = [...]string{
	noStatement: "",
	unicode61:   candidatesSQL("messages_fts"),
	trigram:     candidatesSQL("messages_fts_trigram"),
	like:        "",
	likeGroups:  "",
}

// topSQL is the top form over table (see the comment at the top of the
// file): top holds the n best matches over the rowids @lo..@hi; hits, the
// result, the page of those that join and pass the filters, ids and ranks
// in the original's order.
func topSQL(table string) string {
	return `
WITH top AS MATERIALIZED (
    SELECT rowid AS id, rank AS r
    FROM ` + table + `
    WHERE ` + table + ` MATCH @match AND rowid BETWEEN @lo AND @hi
    ORDER BY +rank, rowid
    LIMIT @n
), hits AS (
    SELECT top.id, top.r
    FROM top
    JOIN messages m ON m.id = top.id
    JOIN sessions s ON s.id = m.session_id
    WHERE true` + searchFilters + `
    ORDER BY top.r, top.id
    LIMIT @limit OFFSET @offset
)
SELECT hits.id, hits.r FROM hits
ORDER BY hits.r, hits.id`
}

// candidatesSQL counts table's matches of @match over the rowids @lo..@hi,
// stopping at @n, without ranking (as the probe does).
func candidatesSQL(table string) string {
	return `SELECT count(*) FROM (SELECT 1 FROM ` + table + ` WHERE ` + table + ` MATCH @match AND rowid BETWEEN @lo AND @hi LIMIT @n)`
}

// Top reports whether the statement runs in its top form: a full-text
// search by rank without source or role filters, whose page ends (offset
// + limit, a negative offset read as 0) at most topMaxHits hits in, with a
// limit of 0 or more.
func (s Statement) Top() bool {
	a := s.Args
	if (s.kind != unicode61 && s.kind != trigram) || s.order != OrderRank {
		return false
	}
	if a.Sources != nil || a.ExcludeSources != nil || a.Roles != nil || a.Limit < 0 {
		return false
	}
	return int64(max(a.Offset, 0))+int64(a.Limit) <= topMaxHits
}

// TopSQL returns the top form's statement, the ids and ranks of a page
// in the original's order, with the arguments of [Statement.TopNamed] for
// the whole search and of [Statement.RangeNamed] for a range of a split
// one (it is then the [Statement.RangeSQL]); "" when the statement has no
// top form (see [Statement.Top]). [Statement.PageSQL] reads the hits.
func (s Statement) TopSQL() string {
	if !s.Top() {
		return ""
	}
	return topTexts[s.kind]
}

// TopNamed returns the arguments of [Statement.TopSQL] for the whole
// search: the statement's own and its page, every rowid, and the
// candidates for its page.
func (s Statement) TopNamed() []any {
	offset := int64(max(s.Args.Offset, 0))
	return s.topNamed(math.MinInt64, math.MaxInt64, int64(s.Args.Limit), offset)
}

// topNamed are a top statement's arguments over lo..hi for a page of
// limit hits after offset.
func (s Statement) topNamed(lo, hi, limit, offset int64) []any {
	return append(s.filterArgs(), sql.Named("lo", lo), sql.Named("hi", hi),
		sql.Named("n", Candidates(offset+limit)), sql.Named("limit", limit), sql.Named("offset", offset))
}

// Candidates returns how many matches the top form ranks for a page that
// ends end hits in.
func Candidates(end int64) int64 { return end + topMargin }

// CandidatesSQL returns the statement that tells whether a top form's
// answer is the original's when it came back short: it counts the
// matches over @lo..@hi up to the candidates' number @n
// ([Statement.CandidatesNamed]). Fewer than @n means every match was a
// candidate, so the answer stands; @n means the filters left out too many
// candidates, and the original statement must run. "" without a top form.
func (s Statement) CandidatesSQL() string {
	if !s.Top() {
		return ""
	}
	return candidatesTexts[s.kind]
}

// CandidatesNamed returns the arguments of [Statement.CandidatesSQL] for
// the rowids lo..hi and a page that ends end hits in.
func (s Statement) CandidatesNamed(lo, hi, end int64) []any {
	return []any{sql.Named("match", s.Args.Match), sql.Named("lo", lo), sql.Named("hi", hi), sql.Named("n", Candidates(end))}
}
