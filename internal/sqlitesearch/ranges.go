package sqlitesearch

import (
	"database/sql"
	"encoding/json"
	"slices"
)

// A search split by rowid ranges (the store runs one range per pooled
// connection, all in one snapshot) uses three statements besides the one
// Build gives for the whole search:
//
//   - the range statement ([Statement.RangeSQL]): the same MATCH (or LIKE
//     condition) and the same filters, restricted to @lo <= rowid <= @hi,
//     returning only each hit's id and sort keys, in the whole statement's
//     order, the range's first @limit (the whole page's offset + limit: a
//     hit of the page is among its range's first offset + limit);
//   - the page statement ([Statement.PageSQL]): the result columns of the
//     whole statement (snippet, long_hit, …), computed only for the ids of
//     the page (the store reads each range's share of the page in that
//     range's transaction);
//   - the probe ([Statement.ProbeSQL]): how many rows the index matches, up
//     to a cap, which tells whether splitting pays.
//
// bm25's statistics (row count, average length, each phrase's document
// count) come from the whole index whatever rowids the cursor visits (FTS5's
// xQueryPhrase opens its own cursor over every rowid), so a range gives each
// hit exactly the rank the whole statement gives it; the rowid constraint is
// consumed by FTS5 itself (its xBestIndex takes rowid >= and <= with MATCH,
// also for ORDER BY rank), so a range reads only its share of the doclists
// and ranks only its own matches.
//
// A search with a top form ([Statement.Top], top.go) has its top
// statement as its range statement, and no rows range statement.
//
// The store merges the ranges' hits in the whole statement's order, ties
// included (see [Statement.RangeKeys]).

// rangeTexts are each kind's range statement for each order.
var rangeTexts = [...][3]string{
	noStatement: {},
	unicode61:   {rankedRangeSQL("messages_fts"), sortedRangeSQL("messages_fts", "DESC"), sortedRangeSQL("messages_fts", "ASC")},
	trigram:     {rankedRangeSQL("messages_fts_trigram"), sortedRangeSQL("messages_fts_trigram", "DESC"), sortedRangeSQL("messages_fts_trigram", "ASC")},
	like:        {likeRangeSQL(likeOneTerm, "DESC"), likeRangeSQL(likeOneTerm, "DESC"), likeRangeSQL(likeOneTerm, "ASC")},
	likeGroups:  {likeRangeSQL(likeGroupsCondition, "DESC"), likeRangeSQL(likeGroupsCondition, "DESC"), likeRangeSQL(likeGroupsCondition, "ASC")},
}

// rowsRangeTexts are each kind's rows range statement, by rank only.
var rowsRangeTexts = [...]string{
	noStatement: "",
	unicode61:   rankedRowsRangeSQL("messages_fts"),
	trigram:     rankedRowsRangeSQL("messages_fts_trigram"),
	like:        "",
	likeGroups:  "",
}

// pageTexts are each kind's page statement; the page comes in its order,
// so one text serves every order.
var pageTexts = [...]string{
	noStatement: "",
	unicode61:   ftsPageSQL("messages_fts"),
	trigram:     ftsPageSQL("messages_fts_trigram"),
	like:        likePageSQL,
	likeGroups:  likePageSQL,
}

// probeTexts are each kind's probe; the LIKE scans have none (their cost is
// the rows they scan, whatever matches).
var probeTexts = [...]string{
	noStatement: "",
	unicode61:   probeSQL("messages_fts"),
	trigram:     probeSQL("messages_fts_trigram"),
	like:        "",
	likeGroups:  "",
}

// rankedRangeSQL is rankedSearchSQL's range: id and rank, best first.
// ORDER BY rank is still FTS5's own (no sort in the plan): FTS5 runs the
// MATCH over the range's rowids in ascending order and sorts the matches
// by rank with SQLite's sorter, as for the whole statement.
func rankedRangeSQL(table string) string {
	return `
SELECT m.id, ` + table + `.rank
FROM ` + table + `
JOIN messages m ON m.id = ` + table + `.rowid
JOIN sessions s ON s.id = m.session_id
WHERE ` + table + ` MATCH @match AND ` + table + `.rowid BETWEEN @lo AND @hi` + searchFilters + `
ORDER BY rank
LIMIT @limit`
}

// rankedRowsRangeSQL is rankedSearchSQL itself restricted to the range,
// with the rank after its columns and no offset: by rank, FTS5 hands the
// join its matches best first and LIMIT stops it, so snippet() runs only
// for the range's first @limit hits, on the same cursor as in the whole
// statement. For a small page this costs less than reading the page
// afterwards (which walks the MATCH again).
func rankedRowsRangeSQL(table string) string {
	return `
` + hitColumns(table) + `, ` + table + `.rank
FROM ` + table + `
JOIN messages m ON m.id = ` + table + `.rowid
JOIN sessions s ON s.id = m.session_id
WHERE ` + table + ` MATCH @match AND ` + table + `.rowid BETWEEN @lo AND @hi` + searchFilters + `
ORDER BY rank
LIMIT @limit`
}

// sortedRangeSQL is sortedSearchSQL's range: id, timestamp and rank, in
// its order (timestamp dir, rank, id dir).
func sortedRangeSQL(table, dir string) string {
	return `
SELECT m.id, m.timestamp, ` + table + `.rank
FROM ` + table + `
JOIN messages m ON m.id = ` + table + `.rowid
JOIN sessions s ON s.id = m.session_id
WHERE ` + table + ` MATCH @match AND ` + table + `.rowid BETWEEN @lo AND @hi` + searchFilters + `
ORDER BY m.timestamp ` + dir + `, ` + table + `.rank, m.id ` + dir + `
LIMIT @limit`
}

// likeRangeSQL is likeSearchSQL's range: id and timestamp, in its order
// (timestamp dir, id dir), the scan restricted to the range's rowids
// (SEARCH m USING INTEGER PRIMARY KEY).
func likeRangeSQL(match, dir string) string {
	return `
SELECT m.id, m.timestamp
FROM messages m
JOIN sessions s ON s.id = m.session_id
WHERE m.id BETWEEN @lo AND @hi AND ` + match + searchFilters + `
ORDER BY m.timestamp ` + dir + `, m.id ` + dir + `
LIMIT @limit`
}

// ftsPageSQL is the whole FTS statement's result columns for the hits of
// @ids (a JSON array of ids, all between @lo and @hi), in no particular
// order. It walks the MATCH over the rowids @lo..@hi, without ranking,
// and keeps the page's ids: the unary + keeps FTS5 from taking the IN as
// a rowid = constraint, which would run the MATCH once per id (each run
// re-reads the terms' doclists up to the id: 20 ids of a two-word query
// cost more than the whole ranked statement). The snippet is computed for
// the rows kept alone, from the same expression over the same document as
// in the whole statement, so it is the same snippet.
func ftsPageSQL(table string) string {
	return `
` + hitColumns(table) + `
FROM ` + table + `
JOIN messages m ON m.id = ` + table + `.rowid
JOIN sessions s ON s.id = m.session_id
WHERE ` + table + ` MATCH @match AND ` + table + `.rowid BETWEEN @lo AND @hi
  AND +` + table + `.rowid IN (SELECT value FROM json_each(@ids))`
}

// likePageSQL is the LIKE statements' result columns for the hits of
// @ids, in no particular order, each read by its id (their snippet needs
// only @anchor).
const likePageSQL = `
SELECT m.id, m.session_id, m.role,
    substr(m.content, max(1, instr(m.content, @anchor) - 40), 120), 0 AS long_hit, ` + searchColumns + `
FROM messages m
JOIN sessions s ON s.id = m.session_id
WHERE m.id IN (SELECT value FROM json_each(@ids))`

// probeSQL counts table's matches of @match, at most @cap of them: FTS5
// walks the doclists in rowid order and computes no rank, and LIMIT stops
// it at the cap, so a common word costs the cap's rows, not its matches.
func probeSQL(table string) string {
	return `SELECT count(*) FROM (SELECT 1 FROM ` + table + ` WHERE ` + table + ` MATCH @match LIMIT @cap)`
}

// RangeKey is which sort keys a range statement returns after the id.
type RangeKey int

const (
	// KeysRank: id, rank. Order: rank ascending, then id ascending, the
	// order FTS5's ORDER BY rank gives equal ranks (it sorts the matches,
	// visited in ascending rowid order, with SQLite's sorter, which is
	// stable: its in-memory merge sort keeps the earlier record first on
	// equal keys, vdbeSorterMerge's res <= 0, and so does its merge of
	// spilled runs, which prefers the older run on equal keys,
	// vdbeMergeEngineStep).
	KeysRank RangeKey = iota
	// KeysTimeRank: id, timestamp, rank. Order: timestamp (descending for
	// newest, ascending for oldest), then rank ascending, then id in the
	// timestamp's direction: the statement's ORDER BY, total since ids are
	// unique.
	KeysTimeRank
	// KeysTime: id, timestamp. Order: timestamp, then id, both descending
	// (newest) or both ascending (oldest): the LIKE statement's ORDER BY.
	KeysTime
)

// RangeSQL returns the statement's range statement (see the comment at
// the top of this file), built from constants only, or "" for the zero
// Statement. Its parameters are the statement's own (see [Statement.Named])
// without @offset, and @lo, @hi and @limit ([Statement.RangeNamed]).
// A statement with a top form ([Statement.Top]) has a top range.
func (s Statement) RangeSQL() string {
	if s.Top() {
		return topTexts[s.kind]
	}
	return rangeTexts[s.kind][s.order]
}

// RowsRangeSQL returns, for a search by rank on a full-text index, the
// range statement that returns the whole statement's result columns
// (those of [Statement.SQL]) followed by the rank, with the arguments of
// [Statement.RangeNamed]; "" for any other statement, and for one with a
// top form ([Statement.Top]), whose page is read by [Statement.PageSQL].
// No page statement follows it.
func (s Statement) RowsRangeSQL() string {
	if s.order != OrderRank || s.Top() {
		return ""
	}
	return rowsRangeTexts[s.kind]
}

// RangeKeys returns which sort keys the range statement returns, and
// whether its time order is descending.
func (s Statement) RangeKeys() (keys RangeKey, desc bool) {
	desc = s.order != OrderOldest
	switch {
	case s.kind == like || s.kind == likeGroups:
		return KeysTime, desc
	case s.order == OrderRank:
		return KeysRank, false
	}
	return KeysTimeRank, desc
}

// RangeNamed returns the range statement's arguments: the statement's
// own, the range lo..hi (inclusive) and the limit (negative: no limit);
// for a top range, also the candidates for a page of limit hits.
func (s Statement) RangeNamed(lo, hi int64, limit int64) []any {
	if s.Top() {
		return s.topNamed(lo, hi, limit, 0)
	}
	named := s.filterArgs()
	if named == nil {
		return nil
	}
	return append(named, sql.Named("lo", lo), sql.Named("hi", hi), sql.Named("limit", limit))
}

// PageSQL returns the statement that reads the hits of a page by id, in
// no particular order, with the columns, snippets and long_hit flags of
// [Statement.SQL]; "" for the zero Statement.
func (s Statement) PageSQL() string { return pageTexts[s.kind] }

// PageNamed returns the page statement's arguments for the hits ids.
func (s Statement) PageNamed(ids []int64) []any {
	if ids == nil {
		ids = []int64{}
	}
	b, _ := json.Marshal(ids) // []int64 always marshals
	switch s.kind {
	case unicode61, trigram:
		lo, hi := int64(0), int64(-1) // no rowid for no ids
		if len(ids) > 0 {
			lo, hi = slices.Min(ids), slices.Max(ids)
		}
		return []any{sql.Named("ids", string(b)), sql.Named("match", s.Args.Match), sql.Named("lo", lo), sql.Named("hi", hi)}
	case like, likeGroups:
		return []any{sql.Named("ids", string(b)), sql.Named("anchor", s.Args.Anchor)}
	}
	return nil
}

// ProbeSQL returns the statement counting the index's matches up to @cap
// ([Statement.ProbeNamed]), or "" when the statement has none (the LIKE
// scans, the zero Statement).
func (s Statement) ProbeSQL() string { return probeTexts[s.kind] }

// ProbeNamed returns the probe's arguments for a cap of limit matches.
func (s Statement) ProbeNamed(limit int64) []any {
	return []any{sql.Named("match", s.Args.Match), sql.Named("cap", limit)}
}

// filterArgs are the statement's arguments but the page (the range
// statements take no snippet anchor).
func (s Statement) filterArgs() []any { return s.leadArgs(false) }

// leadArgs are the statement's arguments but the page: what it searches
// for (the MATCH expression, the LIKE pattern or groups, and with anchor
// the LIKE snippet's anchor), then the filters; nil for the zero
// Statement.
func (s Statement) leadArgs(anchor bool) []any {
	a := s.Args
	var named []any
	switch s.kind {
	case unicode61, trigram:
		named = []any{sql.Named("match", a.Match)}
	case like:
		named = []any{sql.Named("pattern", a.Pattern)}
	case likeGroups:
		named = []any{sql.Named("groups", a.Groups)}
	default:
		return nil
	}
	if anchor && (s.kind == like || s.kind == likeGroups) {
		named = append(named, sql.Named("anchor", a.Anchor))
	}
	return append(named, sql.Named("include_inactive", a.IncludeInactive),
		sql.Named("sources", a.Sources), sql.Named("exclude_sources", a.ExcludeSources), sql.Named("roles", a.Roles))
}

// AllRanged returns one Statement of each distinct range, page and probe
// text, as [All] does for the whole statements: every kind in every order,
// filtered by role (an empty list, which keeps every role), and unfiltered
// for the kinds whose search by rank has a top form ([Statement.Top]).
func AllRanged() []Statement {
	var out []Statement
	roles := "[]"
	for k := unicode61; int(k) < len(rangeTexts); k++ {
		for _, o := range []Order{OrderRank, OrderNewest, OrderOldest} {
			out = append(out, Statement{kind: k, order: o, Args: Args{Roles: &roles}})
			if st := (Statement{kind: k, order: o}); st.Top() {
				out = append(out, st)
			}
		}
	}
	return out
}
