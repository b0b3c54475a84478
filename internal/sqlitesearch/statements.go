package sqlitesearch

// The message-search statements are written by hand, not compiled by sqlc:
// sqlc's SQLite grammar cannot parse a table-name MATCH, LIKE … ESCAPE
// inside OR chains, or json_each over a JSON path, and it loses the column
// types of a CTE joined back to its tables. store's TestHandWrittenSQLPrepares
// prepares each of them against the current schema, as sqlc vet does for
// queries/.
//
// Neither path reads the content of every match. On the FTS paths, FTS5
// consumes ORDER BY rank itself (the plan shows no sort): it scores the
// matches, hands them to the join best first, and LIMIT stops the join after
// the page, so snippet() runs for that page only. The LIKE path must sort
// its matches by time, and SQLite computes a row's result columns before
// sorting it, so there the page's ids are found first, in a CTE that
// carries only id and timestamp through the sort, and the snippets are
// computed for the page alone. A search by rank with many matches has a
// faster form, which keeps only the best matches instead of sorting them
// all (top.go). Unlike the original, no statement selects
// m.content: a hit's context is read separately, cut to 200 characters in
// SQL. The parameters are named, and mean the same in every statement
// that has them (see Args):
//
//	@match            the FTS5 MATCH expression
//	@pattern          the LIKE path's one pattern
//	@groups           the LIKE path's groups of patterns, JSON
//	@anchor           the LIKE path's snippet anchor
//	@sources          sources to keep, JSON array; NULL keeps all, [] keeps none (IN ())
//	@exclude_sources  sources to leave out, JSON array; NULL or [] leaves none out
//	@roles            roles to keep, JSON array; NULL keeps all
//	@include_inactive 1 to find rewound rows (active = 0, compacted = 0) too
//	@limit, @offset   the page
//	@lo, @hi          a range of rowids (split searches, the top form)
//	@n                the top form's candidates

// searchFilters are upstream's filters, in its order: live rows and
// compaction-archived ones (active = 1 OR compacted = 1) unless
// include_inactive, then the three optional lists. json_each turns one
// bound JSON array into the IN list, so the statement text never depends on
// the number of sources or roles. Every statement has all of them, the
// LIKE scans too (upstream's LIKE scan has no active filter, §8 defect 1).
const searchFilters = `
      AND (@include_inactive OR m.active = 1 OR m.compacted = 1)
      AND (@sources IS NULL OR s.source IN (SELECT value FROM json_each(@sources)))
      AND (@exclude_sources IS NULL OR s.source NOT IN (SELECT value FROM json_each(@exclude_sources)))
      AND (@roles IS NULL OR m.role IN (SELECT value FROM json_each(@roles)))`

// searchColumns are a hit's result columns after the snippet and
// long_hit.
const searchColumns = `m.timestamp, m.tool_name, s.source, s.model, s.started_at`

// snippet is the original's snippet of the indexed text: >>> <<< around
// matches, "..." where cut, at most 40 tokens.
func snippet(table string) string {
	return `snippet(` + table + `, 0, '>>>', '<<<', '...', 40)`
}

// FTS5's snippet() runs inside one virtual-machine instruction, which the
// interrupt a deadline sends cannot stop, and it is quadratic in the
// matches inside the document (each scored against every other and against
// the sentence starts before it): a 1 MB message with a common word takes
// 2 s, 2 MB 9 s, 10 MB minutes. highlight() is no way out: it copies its
// whole output for every match (0.5 s for 1 MB, 2 s for 2 MB). So the
// ranked statement computes snippet() only for hits whose indexed text has
// at most snippetMaxBytes bytes (octet_length reads no text), where even
// text made of nothing but matches costs seconds, not minutes, and common
// words milliseconds; for a longer hit it says so (long_hit), and the store
// makes the snippet itself (search_snippet.go).
const (
	snippetMaxBytes = "32768"
	indexedBytes    = `(COALESCE(octet_length(m.content), 0) + COALESCE(octet_length(m.tool_name), 0) + COALESCE(octet_length(m.tool_calls), 0) + 2)`
)

// hitColumns is a full-text hit's result columns over table, as scanHits
// reads them: id, session and role, the snippet (NULL for a long hit, see
// snippetMaxBytes), long_hit and searchColumns.
func hitColumns(table string) string {
	return `SELECT m.id, m.session_id, m.role,
    CASE WHEN ` + indexedBytes + ` <= ` + snippetMaxBytes + ` THEN ` + snippet(table) + ` END,
    ` + indexedBytes + ` > ` + snippetMaxBytes + ` AS long_hit,
    ` + searchColumns
}

// rankedSearchSQL is the original's FTS5 statement over table
// (messages_fts or messages_fts_trigram) without its m.content column: hits
// ranked by bm25 (ORDER BY rank), best first, each with SQLite's snippet of
// the indexed text (>>> <<< markers, "..." ellipses, 40 tokens), or, for a
// long one, its highlight (see snippetMaxBytes).
func rankedSearchSQL(table string) string {
	return `
` + hitColumns(table) + `
FROM ` + table + `
JOIN messages m ON m.id = ` + table + `.rowid
JOIN sessions s ON s.id = m.session_id
WHERE ` + table + ` MATCH @match` + searchFilters + `
ORDER BY rank
LIMIT @limit OFFSET @offset`
}

// sortedSearchSQL is upstream's FTS5 statement with sort="newest" (dir
// DESC) or "oldest" (ASC): ORDER BY m.timestamp dir, rank, then m.id dir
// for a stable page. SQLite computes a row's result columns before it sorts
// the rows, so selecting snippet() here would compute it for every match;
// as on the LIKE path, the page is found first in a CTE that carries only
// id, timestamp and rank through the sort, and snippet() runs for the page
// alone, through a second MATCH restricted to the hit's rowid (the same
// expression, so the same snippet).
func sortedSearchSQL(table, dir string) string {
	return `
WITH hits AS (
    SELECT m.id, m.timestamp AS ts, ` + table + `.rank AS r
    FROM ` + table + `
    JOIN messages m ON m.id = ` + table + `.rowid
    JOIN sessions s ON s.id = m.session_id
    WHERE ` + table + ` MATCH @match` + searchFilters + `
    ORDER BY m.timestamp ` + dir + `, ` + table + `.rank, m.id ` + dir + `
    LIMIT @limit OFFSET @offset
)
` + hitColumns(table) + `
FROM hits
JOIN ` + table + ` ON ` + table + `.rowid = hits.id AND ` + table + ` MATCH @match
JOIN messages m ON m.id = hits.id
JOIN sessions s ON s.id = m.session_id
ORDER BY hits.ts ` + dir + `, hits.r, hits.id ` + dir
}

var (
	searchUnicode61SQL       = rankedSearchSQL("messages_fts")
	searchTrigramSQL         = rankedSearchSQL("messages_fts_trigram")
	searchUnicode61NewestSQL = sortedSearchSQL("messages_fts", "DESC")
	searchUnicode61OldestSQL = sortedSearchSQL("messages_fts", "ASC")
	searchTrigramNewestSQL   = sortedSearchSQL("messages_fts_trigram", "DESC")
	searchTrigramOldestSQL   = sortedSearchSQL("messages_fts_trigram", "ASC")
)

// likeSearchSQL is the LIKE path (short CJK queries) with match as its
// WHERE condition: newest first (dir DESC, upstream's only order there) or
// oldest first (ASC), and a snippet of up to 120 characters of raw content
// starting 40 before the anchor's first (case-sensitive) occurrence, NULL
// without content, no markers, as in the original.
func likeSearchSQL(match, dir string) string {
	return `
WITH hits AS (
    SELECT m.id
    FROM messages m
    JOIN sessions s ON s.id = m.session_id
    WHERE ` + match + searchFilters + `
    ORDER BY m.timestamp ` + dir + `, m.id ` + dir + `
    LIMIT @limit OFFSET @offset
)
SELECT m.id, m.session_id, m.role,
    substr(m.content, max(1, instr(m.content, @anchor) - 40), 120), 0 AS long_hit, ` + searchColumns + `
FROM hits
JOIN messages m ON m.id = hits.id
JOIN sessions s ON s.id = m.session_id
ORDER BY m.timestamp ` + dir + `, m.id ` + dir
}

// The LIKE conditions.
const (
	// likeOneTerm: one literal term, @pattern = '%' || escaped term ||
	// '%', in content, tool_name or tool_calls: the original's condition.
	likeOneTerm = `(m.content LIKE @pattern ESCAPE '\'
           OR m.tool_name LIKE @pattern ESCAPE '\'
           OR m.tool_calls LIKE @pattern ESCAPE '\')`

	// likeGroupsCondition: several terms, @groups = JSON array of
	// {"all": [patterns], "none": [patterns]}; a message matches when, for
	// some group, its text holds every "all" pattern and no "none" pattern.
	// NULL columns read as '' so a missing column never makes NOT (...)
	// unknown.
	likeGroupsCondition = `EXISTS (
        SELECT 1 FROM json_each(@groups) g
        WHERE NOT EXISTS (
                SELECT 1 FROM json_each(g.value, '$.all') t
                WHERE NOT (COALESCE(m.content, '') LIKE t.value ESCAPE '\'
                           OR COALESCE(m.tool_name, '') LIKE t.value ESCAPE '\'
                           OR COALESCE(m.tool_calls, '') LIKE t.value ESCAPE '\'))
          AND NOT EXISTS (
                SELECT 1 FROM json_each(g.value, '$.none') t
                WHERE COALESCE(m.content, '') LIKE t.value ESCAPE '\'
                   OR COALESCE(m.tool_name, '') LIKE t.value ESCAPE '\'
                   OR COALESCE(m.tool_calls, '') LIKE t.value ESCAPE '\'))`
)

var (
	searchLikeSQL             = likeSearchSQL(likeOneTerm, "DESC")
	searchLikeOldestSQL       = likeSearchSQL(likeOneTerm, "ASC")
	searchLikeGroupsSQL       = likeSearchSQL(likeGroupsCondition, "DESC")
	searchLikeGroupsOldestSQL = likeSearchSQL(likeGroupsCondition, "ASC")
)
