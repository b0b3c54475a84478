package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/fts"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pytext"
	"github.com/hermesstate/hermesstate/internal/sqlitesearch"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// SearchOrder is the order of SearchMessages' hits (upstream's sort).
type SearchOrder int

const (
	// SearchByRank, the zero SearchOrder, is upstream's default (sort=None):
	// best first (bm25) on the full-text indexes, newest first on the
	// substring scan of short CJK queries, which has no rank.
	SearchByRank SearchOrder = iota
	// SearchNewest is upstream's sort="newest": newest message first
	// (ORDER BY m.timestamp DESC, rank).
	SearchNewest
	// SearchOldest is upstream's sort="oldest": oldest message first
	// (ORDER BY m.timestamp ASC, rank). Upstream's substring scan ignores it
	// and returns newest first; here it is oldest first on every route.
	SearchOldest
)

// SearchOptions filter and page SearchMessages.
type SearchOptions struct {
	// Sources keeps only messages of sessions from these sources. nil keeps
	// every source; an empty non-nil slice keeps none (the original's
	// source_filter=[]).
	Sources []string
	// ExcludeSources leaves out these sources (nil or empty: none).
	ExcludeSources []string
	// Roles keeps only these roles (nil or empty: all).
	Roles []string
	// Limit is the page size; 0 means 20. Offset skips that many hits.
	Limit, Offset int
	// Order is the hits' order; the zero value is by relevance.
	Order SearchOrder
	// IncludeInactive finds every message. Otherwise, as upstream, messages
	// a rewind took back (active = 0 and compacted = 0) are left out,
	// while those an in-place compaction archived (compacted = 1) are
	// found: they are part of the conversation's record. The same rule
	// picks a hit's neighbours in Context.
	IncludeInactive bool
}

// SearchResult is one message that matched a search.
type SearchResult struct {
	ID        int64  `json:"id"`
	SessionID string `json:"session_id"`
	Role      string `json:"role"`
	// Snippet is the matched text: on the full-text paths SQLite's snippet
	// of the indexed text (content, tool name and tool calls joined by
	// spaces) with >>>match<<< markers and "..." where cut; on the LIKE path
	// up to 120 characters of content around the first occurrence, without
	// markers, nil when the message has no content.
	Snippet        *string   `json:"snippet"`
	Timestamp      Timestamp `json:"timestamp"`
	ToolName       *string   `json:"tool_name"`
	Source         string    `json:"source"`
	Model          *string   `json:"model"`
	SessionStarted Timestamp `json:"session_started"`
	// Context is the previous message of the same session, the match
	// itself, and the next one (fewer at a session's ends), each cut to 200
	// characters. The neighbours are messages the search could find (see
	// SearchOptions.IncludeInactive). Multimodal content (upstream's
	// "\x00json:" list of parts) shows its text parts joined by spaces, or
	// "[multimodal content]" when it has none; content that is not text
	// shows as "".
	Context []ContextMessage `json:"context"`
}

// ContextMessage is one message around a search hit.
type ContextMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Search limits. SQLite's phrase matching, ranking and snippets grow with
// the query: in our measurements a pasted megabyte took 44 s on the trigram
// index and 10,000 prefix terms 20 s (store/hostile_size_test.go). A query
// beyond either limit is refused with ErrQueryTooLong before anything runs.
//
// Upstream (v21) caps a query at MAX_FTS5_QUERY_CHARS = 2048 code points
// too, but by cutting it and searching what is left, silently: the cut
// drops words, splits a word (which then matches nothing) or a phrase
// (whose opening quote is then dropped), and upstream's own test input, 50,000
// quotes before the words, becomes 1,024 empty phrases that find nothing.
// The store refuses instead, so that no result is ever an answer to a
// query the caller did not send; a caller that wants upstream's behaviour
// cuts the query to MaxQueryLength code points itself.
const (
	// MaxQueryLength is the longest query, in code points: upstream's
	// MAX_FTS5_QUERY_CHARS (fts.MaxQueryChars).
	MaxQueryLength = fts.MaxQueryChars
	// MaxQueryTerms is the most whitespace-separated words a query may hold.
	MaxQueryTerms = 256
)

// ErrQueryTooLong is returned by SearchMessages for a query longer than
// MaxQueryLength code points or with more than MaxQueryTerms words.
var ErrQueryTooLong = errors.New("query too long")

// checkQuerySize enforces MaxQueryLength and MaxQueryTerms in one pass.
func checkQuerySize(query string) error {
	runes, terms, inWord := 0, 0, false
	for _, r := range query {
		runes++
		space := pytext.IsSpace(r)
		if !space && !inWord {
			terms++
		}
		inWord = !space
	}
	switch {
	case runes > MaxQueryLength:
		return fmt.Errorf("%w: %d characters, at most %d", ErrQueryTooLong, runes, MaxQueryLength)
	case terms > MaxQueryTerms:
		return fmt.Errorf("%w: %d words, at most %d", ErrQueryTooLong, terms, MaxQueryTerms)
	}
	return nil
}

// SearchMessages finds messages matching query. The query language is the
// fts package's (see fts.Parse): words, "quoted phrases", prefix*,
// AND/OR/NOT. Text without CJK is ranked by relevance (bm25) over the
// unicode61 index; text with CJK goes to the trigram index when every CJK
// word has at least three characters, and otherwise to a substring (LIKE)
// scan, newest first. Unlike the original, no input is a query syntax
// error: anything typed is searched for, and a query with nothing
// searchable in it returns no results. opts.Order sorts by time instead,
// and rewound messages are left out unless opts.IncludeInactive (on every
// route: upstream's substring scan forgets both).
//
// A search whose index holds many matches (or a LIKE scan of a large
// table) runs on several cores: split into rowid ranges, each on its own
// read connection (Options.SearchParallelism), with exactly the single
// statement's rows, order, snippets and contexts, all read in one snapshot
// (search_parallel.go).
//
// A read-only store (Options.ReadOnly) searches as any other; upstream's
// SessionDB(read_only=True) answers every search with no results.
//
// Any database failure is returned, never reported as "no results". When
// ctx ends, SearchMessages returns its error at once, whatever the data:
// SQLite may still be inside one long call over a huge message, which it
// finishes on its own connection (see readUntilDone).
//
// It returns ErrQueryTooLong (see MaxQueryLength), ErrCorrupt for a damaged
// index and ErrSearchIndexEmpty (which matches ErrCorrupt) for an empty one
// (RebuildSearchIndex repairs both), ctx's error, or ErrClosed.
func (s *Store) SearchMessages(ctx context.Context, query string, opts SearchOptions) (_ []SearchResult, err error) {
	defer wrapOn(&err, "search", query)
	if err := checkQuerySize(query); err != nil {
		return nil, err
	}
	if s.pg != nil {
		return s.pgSearch(ctx, query, opts)
	}
	st, ok := searchStatement(query, opts)
	if !ok {
		return []SearchResult{}, nil
	}
	hits, err := s.search(ctx, query, opts, st, 0)
	if searchCrossCheck != nil {
		searchCrossCheck(s, ctx, query, opts)
	}
	return hits, err
}

// searchCrossCheck, when a test sets it, runs after every search that had
// a statement (TestSearchRangesAgree compares split searches with the
// single statement there).
var searchCrossCheck func(s *Store, ctx context.Context, query string, opts SearchOptions)

// searchWhole runs st, the whole search, in the read transaction q (in
// its top form when top and it has one: see wholeHits), and finishes its
// page (searchFinish).
func (s *Store) searchWhole(ctx context.Context, q backend.Tx, query string, opts SearchOptions, st sqlitesearch.Statement, top bool) ([]SearchResult, error) {
	hits, long, err := s.wholeHits(ctx, q, st, top)
	if err != nil {
		return nil, err
	}
	return s.searchFinish(ctx, q, query, opts, st, hits, long)
}

// searchFinish completes a page of hits in the read transaction q that
// found them: an empty page of a full-text search is checked against an
// empty index (ErrSearchIndexEmpty), and the hits are finished
// (finishHits).
func (s *Store) searchFinish(ctx context.Context, q backend.Tx, query string, opts SearchOptions, st sqlitesearch.Statement, hits []SearchResult, long []bool) ([]SearchResult, error) {
	if index := st.Index(); len(hits) == 0 && index != "" {
		// Nothing found: make sure it is not an empty index.
		if err := searchIndexEmpty(ctx, q, index); err != nil {
			return nil, err
		}
	}
	return hits, s.finishHits(ctx, q, query, opts, hits, long)
}

// finishHits gives the long hits (long[i] for hits[i]) the store's
// snippet and every hit its context, read in q.
func (s *Store) finishHits(ctx context.Context, q backend.Tx, query string, opts SearchOptions, hits []SearchResult, long []bool) error {
	var err error
	for i := range hits {
		if long[i] {
			if hits[i].Snippet, err = s.longSnippet(ctx, q, hits[i].ID, query); err != nil {
				return err
			}
		}
	}
	for i := range hits {
		rows, err := s.q.MessageContext(ctx, q, db.MessageContextParams{
			ID: hits[i].ID, IncludeInactive: boolInt(opts.IncludeInactive),
		})
		if err != nil {
			return err
		}
		hits[i].Context = hitContext(rows)
	}
	return nil
}

// searchStatement plans query (fts.Parse) and builds the statement that
// runs the plan with opts, their page size defaulted to 20; ok is false
// when the query has nothing to search for.
func searchStatement(query string, opts SearchOptions) (sqlitesearch.Statement, bool) {
	return sqlitesearch.Build(fts.Parse(query), searchOptions(opts))
}

// searchOptions are opts as both engines' statement builders take them,
// the page size defaulted to 20.
func searchOptions(opts SearchOptions) sqlitesearch.Options {
	limit := opts.Limit
	if limit == 0 {
		limit = 20
	}
	return sqlitesearch.Options{
		Sources: opts.Sources, ExcludeSources: opts.ExcludeSources, Roles: opts.Roles,
		IncludeInactive: opts.IncludeInactive, Order: searchOrders[opts.Order],
		Limit: limit, Offset: opts.Offset,
	}
}

// searchOrders maps the store's orders to the engine's; an order that is
// none of the three reads as by rank (the zero value), as upstream reads an
// unknown sort.
var searchOrders = map[SearchOrder]sqlitesearch.Order{
	SearchByRank: sqlitesearch.OrderRank,
	SearchNewest: sqlitesearch.OrderNewest,
	SearchOldest: sqlitesearch.OrderOldest,
}

// scanHits runs one search statement and reads its hits, and whether each
// is a long full-text hit, whose snippet the store makes (see
// sqlitesearch's snippetMaxBytes).
func scanHits(ctx context.Context, q backend.Tx, stmt string, args []any) ([]SearchResult, []bool, error) {
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	hits, long := []SearchResult{}, []bool{}
	for rows.Next() {
		h, longHit, err := scanHit(rows, nil)
		if err != nil {
			return nil, nil, err
		}
		hits, long = append(hits, h.SearchResult), append(long, longHit)
	}
	return hits, long, rows.Err()
}

// rankedHit is a hit and, when its statement returns it, its rank.
type rankedHit struct {
	SearchResult
	rank *float64
}

// scanHit reads one hit's columns, and the rank after them into rank
// unless nil.
func scanHit(rows *sql.Rows, rank *float64) (rankedHit, bool, error) {
	var h SearchResult
	var ts, started sqlnum.Real // as the store reads any row (package sqlnum)
	var snippet sql.NullString
	var longHit bool
	dest := []any{&h.ID, &h.SessionID, &h.Role, &snippet, &longHit, &ts, &h.ToolName, &h.Source, &h.Model, &started}
	if rank != nil {
		dest = append(dest, rank)
	}
	if err := rows.Scan(dest...); err != nil {
		return rankedHit{}, false, err
	}
	if snippet.Valid {
		h.Snippet = &snippet.String
	}
	h.Timestamp, h.SessionStarted = Timestamp(ts.Float64), Timestamp(started.Float64)
	return rankedHit{h, rank}, longHit, nil
}
