package store

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlitesearch"
)

// A search by rank with many matches runs in its top form when it has one
// (internal/sqlitesearch's top.go): FTS5 ranks every match but only the
// best candidates are kept and joined, instead of FTS5 sorting every match
// for the original statement; the page's rows are then read by the page
// statement, as for a split search. It pays only for many matches: the
// page statement walks the MATCH once more, which costs a search of few
// matches over common words more than the sort it saves. So a split
// search's ranges run it, and so does the whole search once the probe
// found many matches (searchSplit's single statement); a search too small
// to split runs the original statement.
//
// The top form's answer is the original's when it filled the page or the
// index had fewer matches than candidates (topExact); otherwise the
// original statement runs, and answers. A range that cannot tell its
// answer is the original's (errTopShort) makes the whole search run
// unsplit.

// errTopShort is a top range's answer when the filters left it short of
// its page with candidates to spare: the matches beyond its candidates
// may be on the page, so the split search runs unsplit.
var errTopShort = errors.New("search: a range's candidates left its page short")

// wholeHits runs the whole search st in q, in its top form when top, it
// has one and that answers, else the original statement, and returns the
// page's hits and which of them are long (see scanHits). A failing top
// form (a damaged index) hands over to the original statement, whose
// failure is the one to report, in its own words, as for a split search.
func (s *Store) wholeHits(ctx context.Context, q backend.Tx, st sqlitesearch.Statement, top bool) ([]SearchResult, []bool, error) {
	if top && st.Top() {
		hits, long, exact, err := topHits(ctx, q, st)
		switch {
		case err == nil && exact:
			return hits, long, nil
		case err != nil && ctx.Err() != nil:
			return nil, nil, err
		case err == nil:
			s.searchConns.topShort.Add(1)
		}
	}
	return scanHits(ctx, q, st.SQL(), st.Named())
}

// topHits runs st's top form over every rowid in q and reads its page with
// the page statement, in the original's order. exact is false, with no
// hits, when the answer may not be the original's (topExact).
func topHits(ctx context.Context, q backend.Tx, st sqlitesearch.Statement) (hits []SearchResult, long []bool, exact bool, err error) {
	ranked, err := scanRange(ctx, q, st.TopSQL(), st.TopNamed(), sqlitesearch.KeysRank)
	if err != nil {
		return nil, nil, false, err
	}
	offset, end := pageBounds(st.Args.Offset, st.Args.Limit)
	if exact, err := topExact(ctx, q, st, math.MinInt64, math.MaxInt64, len(ranked), end-offset, end); err != nil || !exact {
		return nil, nil, false, err
	}
	hits, long = make([]SearchResult, len(ranked)), make([]bool, len(ranked))
	if len(ranked) == 0 {
		return hits, long, true, nil
	}
	at := make(map[int64]int, len(ranked))
	ids := make([]int64, len(ranked))
	for i, h := range ranked {
		at[h.id], ids[i] = i, h.id
	}
	rows, rowsLong, err := scanHits(ctx, q, st.PageSQL(), st.PageNamed(ids))
	if err != nil {
		return nil, nil, false, err
	}
	if len(rows) != len(ranked) {
		return nil, nil, false, fmt.Errorf("search page: %d of its %d hits read in the snapshot they were found in", len(rows), len(ranked))
	}
	for i, h := range rows {
		hits[at[h.ID]], long[at[h.ID]] = h, rowsLong[i]
	}
	return hits, long, true, nil
}

// topExact reports whether got hits of a top statement over the rowids
// lo..hi, which asked for want hits of a page that ends end hits in, are
// the original statement's: a full page, or fewer matches there than
// candidates (every match was one).
func topExact(ctx context.Context, q backend.Tx, st sqlitesearch.Statement, lo, hi int64, got int, want, end int64) (bool, error) {
	if int64(got) >= want {
		return true, nil
	}
	var matches int64
	if err := q.QueryRowContext(ctx, st.CandidatesSQL(), st.CandidatesNamed(lo, hi, end)...).Scan(&matches); err != nil {
		return false, err
	}
	return matches < sqlitesearch.Candidates(end), nil
}
