package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// originalSearch is SearchMessages as the original statement alone
// (sqlitesearch's Statement.SQL), never its top form: the answer the top
// form must give.
func originalSearch(s *Store, ctx context.Context, query string, opts SearchOptions) ([]SearchResult, error) {
	return wholeSearch(s, ctx, query, opts, false)
}

// topSearch is SearchMessages as the whole search in its top form where
// it has one (as after a probe that found many matches), unsplit.
func topSearch(s *Store, ctx context.Context, query string, opts SearchOptions) ([]SearchResult, error) {
	return wholeSearch(s, ctx, query, opts, true)
}

// wholeSearch is SearchMessages as the whole search, unsplit, in its top
// form when top and it has one.
func wholeSearch(s *Store, ctx context.Context, query string, opts SearchOptions, top bool) ([]SearchResult, error) {
	if err := checkQuerySize(query); err != nil {
		return nil, err
	}
	st, ok := searchStatement(query, opts)
	if !ok {
		return []SearchResult{}, nil
	}
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	hits, err := inReadTx(ctx, s.r, func(q backend.Tx) ([]SearchResult, error) {
		return s.searchWhole(ctx, q, query, opts, st, top)
	})
	return hits, sqlite.Classify(err)
}

// topCheck collects what TestSearchTopAgrees compared.
type topCheck struct {
	mu       sync.Mutex
	queries  map[string]bool
	compared int // searches that had a top form
	withHits int // of those, with hits
	mismatch []string
}

// check compares the whole search (the top form where it has one) with
// the original statement for query with opts and with other pages, by
// rank, rewound rows left out and found.
func (c *topCheck) check(s *Store, ctx context.Context, query string, opts SearchOptions) {
	var variants []SearchOptions
	for _, inactive := range []bool{false, true} {
		for _, page := range [][2]int{{opts.Offset, opts.Limit}, {0, 1}, {1, 2}, {3, 1}, {0, 1000}, {20, 980}} {
			o := opts
			o.Order, o.IncludeInactive, o.Offset, o.Limit = SearchByRank, inactive, page[0], page[1]
			variants = append(variants, o)
		}
	}
	for _, o := range variants {
		st, ok := searchStatement(query, o)
		if !ok || !st.Top() {
			continue
		}
		want, wantErr := originalSearch(s, ctx, query, o)
		got, err := topSearch(s, ctx, query, o)
		c.mu.Lock()
		c.queries[query] = true
		c.compared++
		if len(got) > 0 {
			c.withHits++
		}
		if !sameErrors(wantErr, err) {
			c.mismatch = append(c.mismatch, fmt.Sprintf("%q %+v: error %v, original %v", query, o, err, wantErr))
		} else if diff := cmp.Diff(want, got); diff != "" {
			c.mismatch = append(c.mismatch, fmt.Sprintf("%q %+v (-original +top):\n%s", query, o, diff))
		}
		c.mu.Unlock()
	}
}

// TestSearchTopAgrees runs the search tests of TestSearchRangesAgree with
// a cross-check in SearchMessages: each of their searches by rank that has
// a top form is run again as the whole search (the top form) and as the
// original statement, with the test's page and others up to the top
// form's largest (1,000 hits in), with rewound rows left out and found,
// and the two answers must be equal in rows, order, snippets, contexts and
// errors.
func TestSearchTopAgrees(t *testing.T) {
	c := &topCheck{queries: map[string]bool{}}
	runCrossChecked(t, c.check)
	c.mu.Lock()
	defer c.mu.Unlock()
	crossChecked(t, c.mismatch, len(c.queries), c.withHits, fmt.Sprintf("%d top forms compared (%d with hits)", c.compared, c.withHits))
}

// topStore is a store where "needle" is in short messages (the best
// ranked) that are rewound and in longer ones that are live: the top
// form's candidates for a plain first page are all rewound.
func topStore(t *testing.T, rewound, live int) *Store {
	t.Helper()
	s, _ := openStore(t, nil)
	srchCreate(t, s, "s1", "cli", "")
	for i := range rewound {
		id := srchSay(t, s, "s1", "user", fmt.Sprintf("needle %d", i))
		execSQL(t, s, "UPDATE messages SET active = 0, compacted = 0 WHERE id = ?", id)
	}
	for i := range live {
		srchSay(t, s, "s1", "user", fmt.Sprintf("needle in a longer haystack of words, number %d", i))
	}
	return s
}

// TestSearchTopFallsBack checks the top form's one way of being wrong:
// when the filters leave its page short while the index had as many
// matches as candidates, the original statement answers instead, alone or
// for a split search, and the answer is the original's. The 80 rewound
// rows (ids 1 to 80) rank best: more than a first page of 20 and the margin
// of 16 candidates, in the whole index and in each half of it (a split in
// 2 ranges: its first range holds only rewound rows, its second 28 of
// them before its 25 live ones).
func TestSearchTopFallsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := topStore(t, 80, 25)
	for _, c := range []struct {
		name   string
		opts   SearchOptions
		ranges int
		// whole and split: how many whole searches and split searches
		// fell back to the original statement.
		whole, split uint64
		hits         int
	}{
		{"Whole", SearchOptions{}, 1, 1, 0, 20},
		{"Split", SearchOptions{}, 2, 1, 1, 20},
		{"WholeInactive", SearchOptions{IncludeInactive: true}, 1, 0, 0, 20},
		{"SplitInactive", SearchOptions{IncludeInactive: true}, 2, 0, 0, 20},
		{"PastTheLive", SearchOptions{Offset: 20}, 1, 1, 0, 5},
		{"PageOfOne", SearchOptions{Limit: 1}, 1, 1, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := originalSearch(s, ctx, "needle", c.opts)
			if err != nil {
				t.Fatal(err)
			}
			whole, split := s.searchConns.topShort.Load(), s.searchConns.topSplitShort.Load()
			search := topSearch
			if c.ranges > 1 {
				search = func(s *Store, ctx context.Context, query string, opts SearchOptions) ([]SearchResult, error) {
					return forcedSearch(s, ctx, query, opts, c.ranges)
				}
			}
			got, err := search(s, ctx, "needle", c.opts)
			if err != nil {
				t.Fatal(err)
			}
			whole, split = s.searchConns.topShort.Load()-whole, s.searchConns.topSplitShort.Load()-split
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-original +got):\n%s", diff)
			}
			if len(got) != c.hits {
				t.Errorf("%d hits, want %d", len(got), c.hits)
			}
			for _, h := range got {
				if live := h.Snippet != nil && strings.Contains(*h.Snippet, "haystack"); live == c.opts.IncludeInactive {
					t.Errorf("hit %d %q: a rewound row found, or a live one with them", h.ID, *h.Snippet)
				}
			}
			if whole != c.whole || split != c.split {
				t.Errorf("%d whole and %d split searches fell back, want %d and %d", whole, split, c.whole, c.split)
			}
		})
	}
}

// TestSearchTopFewMatches checks that a top form left short by the
// filters answers by itself when every match was a candidate: 30 matches,
// fewer than a first page's 36 candidates, 10 of them rewound.
func TestSearchTopFewMatches(t *testing.T) {
	t.Parallel()
	s := topStore(t, 10, 20)
	checkTopForm(t, s, SearchOptions{Limit: 30}, 20, 0)
}

// TestSearchTopOrphans checks index rows without a message (a file whose
// index is out of step with messages), which the original's join leaves
// out: best ranked and more than the candidates' margin, they make the top
// form fall back, and the answer is the original's.
func TestSearchTopOrphans(t *testing.T) {
	t.Parallel()
	s := topStore(t, 0, 25)
	for i := range 30 {
		execSQL(t, s, "INSERT INTO messages_fts(rowid, content) VALUES (?, 'needle')", 1000+i)
	}
	checkTopForm(t, s, SearchOptions{}, 20, 1)
}

// checkTopForm searches s for "needle" with opts in the top form and
// checks that the answer is the original statement's, with hits hits, and
// that the top form fell back fallbacks times (0 or 1).
func checkTopForm(t *testing.T, s *Store, opts SearchOptions, hits int, fallbacks uint64) {
	t.Helper()
	ctx := context.Background()
	want, err := originalSearch(s, ctx, "needle", opts)
	if err != nil {
		t.Fatal(err)
	}
	before := s.searchConns.topShort.Load()
	got, err := topSearch(s, ctx, "needle", opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-original +top):\n%s", diff)
	}
	if len(got) != hits {
		t.Errorf("%d hits, want %d", len(got), hits)
	}
	if n := s.searchConns.topShort.Load() - before; n != fallbacks {
		t.Errorf("%d top forms fell back, want %d", n, fallbacks)
	}
}
