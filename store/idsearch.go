package store

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/internal/pytext"
)

// IDSearchOptions page and filter SearchSessionsByID.
type IDSearchOptions struct {
	// Limit is how many sessions to return; 0 means 20, the original's
	// default, and a negative limit returns none.
	Limit int
	// ExcludeArchived leaves archived sessions out; by default they are
	// found too, as upstream.
	ExcludeArchived bool
}

// SearchSessionsByID finds the sessions whose id contains query (trimmed,
// case-insensitive as ListOptions.IDQuery), as upstream's
// search_sessions_by_id, for pasting an id from a log: the sessions the
// list shows (ListSessionsRich's default filter and compression
// projection), matched on their own id and on every id of their
// compression chain, so a compressed root's id finds the tip that stands
// for it. Exact matches of the row's id or LineageRootID come first, then
// prefix matches, then the rest, each group in the list's activity order
// (ListOptions.OrderByLastActive). As upstream, only the 4×Limit most
// recently active matching rows are ranked. An empty query finds nothing.
//
// It returns ErrClosed, or ctx's error when ctx ends first.
func (s *Store) SearchSessionsByID(ctx context.Context, query string, opts IDSearchOptions) (_ []RichSession, err error) {
	defer wrapOn(&err, "search sessions by id", query)
	limit := opts.Limit
	if limit == 0 {
		limit = 20
	}
	needle := pytext.Lower(pytext.Strip(query))
	if needle == "" || limit < 0 {
		return []RichSession{}, nil
	}
	fetch := -1 // every match, where 4×limit overflows
	if limit <= math.MaxInt/4 {
		fetch = limit * 4
	}
	rows, err := s.listSessionsRich(ctx, ListOptions{
		Limit: fetch, OrderByLastActive: true, IncludeArchived: !opts.ExcludeArchived, IDQuery: needle,
	})
	if err != nil {
		return nil, err
	}
	score := func(r RichSession) int {
		best := 2
		for _, id := range []string{r.ID, r.LineageRootID} {
			switch id = pytext.Lower(id); {
			case id == "":
			case id == needle:
				return 0
			case strings.HasPrefix(id, needle):
				best = 1
			}
		}
		return best
	}
	slices.SortStableFunc(rows, func(a, b RichSession) int { return cmp.Compare(score(a), score(b)) })
	return rows[:min(limit, len(rows))], nil
}
