package store

import (
	"context"
	"fmt"

	"github.com/hermesstate/hermesstate/fts"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pgsearch"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// pgSearch is SearchMessages on PostgreSQL: the same plan (fts.Parse: the
// query language, sanitiser and CJK routing) run by pgsearch's statement
// in one snapshot, then the page finished as on SQLite (the store's
// snippet for the full-text routes' hits, every hit's context). An empty
// page of the unicode61 route is checked against an empty index
// (ErrSearchIndexEmpty, as SQLite's empty messages_fts).
func (s *Store) pgSearch(ctx context.Context, query string, opts SearchOptions) ([]SearchResult, error) {
	plan := fts.Parse(query)
	st, ok, err := pgsearch.Build(plan, searchOptions(opts))
	if err != nil || !ok {
		return []SearchResult{}, err
	}
	return readUntilDone(s, ctx, func(ctx context.Context, q backend.Tx) ([]SearchResult, error) {
		hits, long, err := pgScanHits(ctx, q, st)
		if err != nil {
			return nil, err
		}
		if st.Route == fts.RouteUnicode61 {
			if err := s.pgSnippets(ctx, q, query, plan, hits, long); err != nil {
				return nil, err
			}
		}
		if len(hits) == 0 && st.Route == fts.RouteUnicode61 {
			var empty bool
			if err := q.PG.QueryRow(ctx, pgsearch.IndexEmptySQL).Scan(&empty); err != nil {
				return nil, err
			}
			if empty {
				return nil, fmt.Errorf("messages_search: %w", ErrSearchIndexEmpty)
			}
		}
		return hits, s.finishHits(ctx, q, query, opts, hits, long)
	})
}

// pgSnippetMaxBytes is the size of search text up to which a hit of the
// unicode61 route gets FTS5's snippet (pgsearch.Snippet, FTS5's own
// algorithm in Go), as on SQLite (sqlitesearch's snippetMaxBytes); a longer
// one gets the store's snippet (textSnippet), as there.
const pgSnippetMaxBytes = 32768

// pgSnippets gives each of the unicode61 route's hits its snippet from the
// search text read once: FTS5's for at most pgSnippetMaxBytes, the store's
// for longer text, clearing their long flag (finishHits would read the
// text again).
func (s *Store) pgSnippets(ctx context.Context, q backend.Tx, query string, plan fts.Plan, hits []SearchResult, long []bool) error {
	for i := range hits {
		if !long[i] {
			continue
		}
		text, err := s.q.MessageSearchText(ctx, q, hits[i].ID)
		if err != nil {
			return err
		}
		snippet, ok := "", false
		if len(text) <= pgSnippetMaxBytes {
			snippet, ok = pgsearch.Snippet(text, plan)
		}
		if !ok {
			snippet = textSnippet(text, query)
		}
		hits[i].Snippet, long[i] = &snippet, false
	}
	return nil
}

// pgScanHits runs st and reads its hits (the columns scanHit reads on
// SQLite, in the same order) and whether each is long.
func pgScanHits(ctx context.Context, q backend.Tx, st pgsearch.Statement) ([]SearchResult, []bool, error) {
	rows, err := q.PG.Query(ctx, st.SQL, st.Args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	hits, long := []SearchResult{}, []bool{}
	for rows.Next() {
		var h SearchResult
		var ts, started sqlnum.Real
		var longHit bool
		if err := rows.Scan(&h.ID, &h.SessionID, &h.Role, &h.Snippet, &longHit, &ts, &h.ToolName, &h.Source, &h.Model, &started); err != nil {
			return nil, nil, err
		}
		h.Timestamp, h.SessionStarted = Timestamp(ts.Float64), Timestamp(started.Float64)
		hits, long = append(hits, h), append(long, longHit)
	}
	return hits, long, rows.Err()
}
