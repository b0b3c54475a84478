package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// forcedSearch is SearchMessages split into k ranges whatever the
// thresholds (k = 1: the single statement).
func forcedSearch(s *Store, ctx context.Context, query string, opts SearchOptions, k int) ([]SearchResult, error) {
	if err := checkQuerySize(query); err != nil {
		return nil, err
	}
	st, ok := searchStatement(query, opts)
	if !ok {
		return []SearchResult{}, nil
	}
	return s.search(ctx, query, opts, st, k)
}

// mustForced is forcedSearch failing the test on error.
func mustForced(t testing.TB, s *Store, query string, opts SearchOptions, k int) []SearchResult {
	t.Helper()
	res, err := forcedSearch(s, context.Background(), query, opts, k)
	if err != nil {
		t.Fatalf("search %q %+v in %d ranges: %v", query, opts, k, err)
	}
	return res
}

// sameErrors reports whether two search errors are the same answer: both
// nil, or both errors matching the same of the store's sentinels.
func sameErrors(a, b error) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	for _, e := range []error{ErrClosed, ErrCorrupt, ErrSearchIndexEmpty, ErrQueryTooLong, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(a, e) != errors.Is(b, e) {
			return false
		}
	}
	return true
}

// rangesCheck collects what the cross-check (searchCrossCheck) compared.
type rangesCheck struct {
	mu        sync.Mutex
	searches  int      // searches cross-checked
	split     int      // split searches that returned hits
	multi     int      // of those, pages with hits from more than one range
	mismatch  []string // what differed
	queries   map[string]bool
	withError int
}

// check compares the single statement with 2, 3 and 4 ranges for query
// and opts, and for each order with pages that cross range boundaries.
func (c *rangesCheck) check(s *Store, ctx context.Context, query string, opts SearchOptions) {
	variants := []SearchOptions{opts}
	for _, order := range []SearchOrder{SearchByRank, SearchNewest, SearchOldest} {
		for _, page := range [][2]int{{0, -1}, {1, 2}, {3, 1}} {
			o := opts
			o.Order, o.Offset, o.Limit = order, page[0], page[1]
			variants = append(variants, o)
		}
	}
	for _, o := range variants {
		want, wantErr := forcedSearch(s, ctx, query, o, 1)
		for k := 2; k <= 4; k++ {
			got, err := forcedSearch(s, ctx, query, o, k)
			c.mu.Lock()
			c.searches++
			if err != nil {
				c.withError++
			}
			if len(got) > 0 {
				c.split++
			}
			if !sameErrors(wantErr, err) {
				c.mismatch = append(c.mismatch, fmt.Sprintf("%q %+v in %d ranges: error %v, single %v", query, o, k, err, wantErr))
			} else if diff := cmp.Diff(want, got); diff != "" {
				c.mismatch = append(c.mismatch, fmt.Sprintf("%q %+v in %d ranges (-single +split):\n%s", query, o, k, diff))
			}
			c.queries[query] = true
			c.mu.Unlock()
		}
	}
}

// TestSearchRangesAgree runs every search test of search_corpus_test.go,
// search_ref_test.go, up_search_test.go and up_answers_search_test.go
// with a cross-check in SearchMessages: each of their searches is run
// again as the single statement and split into 2, 3 and 4 ranges, with
// the test's options and in every order with pages that cross range
// boundaries, and every split answer must equal the single statement's in
// rows, order, snippets, contexts and errors.
func TestSearchRangesAgree(t *testing.T) {
	c := &rangesCheck{queries: map[string]bool{}}
	runCrossChecked(t, c.check)
	c.mu.Lock()
	defer c.mu.Unlock()
	crossChecked(t, c.mismatch, len(c.queries), c.split, fmt.Sprintf("%d split searches compared (%d with hits, %d errors)", c.searches, c.split, c.withError))
}

// crossChecked reports a cross-check's mismatches and what it compared,
// and fails a cross-check that saw little (fewer than 100 queries, or
// than 1,000 searches with hits): it compared nothing.
func crossChecked(t *testing.T, mismatch []string, queries, withHits int, compared string) {
	t.Helper()
	for _, m := range mismatch {
		t.Error(m)
	}
	t.Logf("%d queries, %s", queries, compared)
	if queries < 100 || withHits < 1000 {
		t.Errorf("cross-checked %d queries, %d searches with hits; the hook missed the tests' searches", queries, withHits)
	}
}

// tieStore is a store whose messages tie: every message has the same
// timestamp (a stopped clock), and the "tie" messages the same text, so
// the same bm25 rank; interleaved with them, messages of other lengths
// (other ranks) and other sources and roles.
func tieStore(t *testing.T) (*Store, []int64) {
	t.Helper()
	now := time.Unix(1_700_000_000, 0)
	s, _ := openStore(t, &Options{Now: func() time.Time { return now }})
	srchCreate(t, s, "a", "cli", "")
	srchCreate(t, s, "b", "telegram", "")
	var ties []int64
	for i := range 24 {
		session := []string{"a", "b"}[i%2]
		ties = append(ties, srchSay(t, s, session, "user", "tie needle 通信记忆断裂"))
		srchSay(t, s, session, "assistant", fmt.Sprintf("needle with more words %d around it 通信 记忆断裂了", i))
	}
	return s, ties
}

// TestSearchTieOrder pins what SQLite does with equal sort keys, and that
// split searches do the same across range boundaries: FTS5's ORDER BY rank
// gives equal ranks in ascending rowid order (its sorter is stable over
// the rowid-ordered matches); the time orders break equal timestamps by
// rank, then id in the time's direction.
func TestSearchTieOrder(t *testing.T) {
	t.Parallel()
	s, ties := tieStore(t)
	// The ranks as SQLite computes them, to state the expected orders.
	ranks := map[int64]float64{}
	for _, row := range mustRows(t, s, "SELECT rowid, rank FROM messages_fts WHERE messages_fts MATCH 'needle'") {
		ranks[row.id] = row.rank
	}
	if ranks[ties[0]] != ranks[ties[23]] || ranks[ties[0]] == ranks[ties[0]+1] {
		t.Fatalf("fixture: tie ranks %v, %v, other %v", ranks[ties[0]], ranks[ties[23]], ranks[ties[0]+1])
	}
	all := slices.Sorted(func(yield func(int64) bool) {
		for id := range ranks {
			if !yield(id) {
				return
			}
		}
	})
	byRank := slices.Clone(all)
	slices.SortStableFunc(byRank, func(a, b int64) int {
		switch {
		case ranks[a] < ranks[b]:
			return -1
		case ranks[a] > ranks[b]:
			return 1
		}
		return 0 // stable: ascending ids
	})
	newest := slices.Clone(all)
	slices.SortStableFunc(newest, func(a, b int64) int { // equal times: rank, then id descending
		switch {
		case ranks[a] < ranks[b]:
			return -1
		case ranks[a] > ranks[b]:
			return 1
		}
		return int(b - a)
	})
	oldest := slices.Clone(byRank) // equal times: rank, then id ascending

	for _, c := range []struct {
		name  string
		query string
		order SearchOrder
		want  []int64
	}{
		{"Rank", "needle", SearchByRank, byRank},
		{"Newest", "needle", SearchNewest, newest},
		{"Oldest", "needle", SearchOldest, oldest},
	} {
		for _, k := range []int{1, 2, 3, 4} {
			for _, page := range [][2]int{{0, -1}, {5, 10}, {20, 7}, {45, 20}} {
				opts := SearchOptions{Order: c.order, Offset: page[0], Limit: page[1]}
				res := mustForced(t, s, c.query, opts, k)
				want := c.want[min(page[0], len(c.want)):]
				if page[1] >= 0 {
					want = want[:min(page[1], len(want))]
				}
				if diff := cmp.Diff(want, srchIDs(res)); diff != "" {
					t.Errorf("%s, %d ranges, page %v (-want +got):\n%s", c.name, k, page, diff)
				}
			}
		}
	}
	// The trigram route ties the same way, and the LIKE scan (equal
	// timestamps) orders by id, newest first by default.
	for _, c := range []struct {
		query string
		order SearchOrder
	}{{"记忆断裂", SearchByRank}, {"记忆断裂", SearchNewest}, {"记忆断裂", SearchOldest}, {"通信", SearchByRank}, {"通信", SearchOldest}} {
		single := mustForced(t, s, c.query, SearchOptions{Order: c.order, Limit: -1}, 1)
		if len(single) != 48 {
			t.Fatalf("%q: %d hits, want 48", c.query, len(single))
		}
		for _, k := range []int{2, 3, 4} {
			for _, page := range [][2]int{{0, -1}, {5, 10}, {20, 7}, {0, 20}} {
				opts := SearchOptions{Order: c.order, Offset: page[0], Limit: page[1]}
				if diff := cmp.Diff(mustForced(t, s, c.query, opts, 1), mustForced(t, s, c.query, opts, k)); diff != "" {
					t.Errorf("%q %v, %d ranges, page %v (-single +split):\n%s", c.query, c.order, k, page, diff)
				}
			}
		}
	}
	like := srchIDs(mustForced(t, s, "通信", SearchOptions{Limit: -1}, 3))
	if !slices.IsSortedFunc(like, func(a, b int64) int { return int(b - a) }) {
		t.Errorf("LIKE scan with equal timestamps, 3 ranges: %v, want descending ids", like)
	}
}

type idRank struct {
	id   int64
	rank float64
}

// mustRows reads (rowid, rank) rows.
func mustRows(t *testing.T, s *Store, stmt string) []idRank {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), stmt)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []idRank
	for rows.Next() {
		var r idRank
		if err := rows.Scan(&r.id, &r.rank); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompareSQLite: the merge orders values as SQLite's ORDER BY does,
// checked against SQLite itself over every pair of a mixed set.
func TestCompareSQLite(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	values := []any{nil, int64(-3), -2.5, int64(2), 2.0, 2.5, int64(3), float64(math.MaxInt64), int64(math.MaxInt64), int64(math.MinInt64),
		-1e300, 1e300, "", "10", "9", "a", "ab", []byte{}, []byte("a"), []byte{0}}
	for _, a := range values {
		for _, b := range values {
			var want int
			if err := s.r.QueryRowContext(context.Background(),
				"SELECT CASE WHEN ?1 IS ?2 THEN 0 WHEN (SELECT v FROM (SELECT ?1 AS v UNION ALL SELECT ?2) ORDER BY v LIMIT 1) IS ?1 THEN -1 ELSE 1 END",
				a, b).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if got := compareSQLite(a, b); got != want {
				t.Errorf("compareSQLite(%#v, %#v) = %d, SQLite says %d", a, b, got, want)
			}
		}
	}
}

// TestDataVersion checks the semantics the split search's snapshot proof
// rests on: PRAGMA data_version on a connection outside a transaction
// changes after another connection of this process commits and after
// another process commits, not after the connection's own reads; inside
// an open read transaction it does not change.
func TestDataVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openStore(t, nil)
	srchCreate(t, s, "s", "cli", "")
	c, err := s.r.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	version := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) int64 {
		t.Helper()
		var v int64
		if err := q.QueryRowContext(ctx, dataVersionSQL).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := version(c)
	srchSay(t, s, "s", "user", "a read between")
	v1 := version(c)
	if v1 == v0 {
		t.Errorf("data_version %d after this process's writer committed, unchanged", v1)
	}
	var n int64
	if err := c.QueryRowContext(ctx, "SELECT count(*) FROM messages").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if v := version(c); v != v1 {
		t.Errorf("data_version %d after a read of its own, was %d", v, v1)
	}

	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	in0 := version(tx)
	srchSay(t, s, "s", "user", "committed while the transaction is open")
	if v := version(tx); v != in0 {
		t.Errorf("data_version inside a read transaction %d after a commit, was %d", v, in0)
	}
	tx.Rollback()
	v2 := version(c)
	if v2 == in0 {
		t.Errorf("data_version %d after the transaction ended, unchanged by the commit during it", v2)
	}

	h := startHelper(t, "append", "HERMESSTATE_DB="+path, "HERMESSTATE_ROWS=1", "HERMESSTATE_WRITER=other")
	if line := h.next(t); line != "ready" {
		t.Fatalf("helper said %q", line)
	}
	if line := h.next(t); line != "writes=1 retries=0" {
		t.Fatalf("helper said %q", line)
	}
	h.finish(t)
	if v := version(c); v == v2 {
		t.Errorf("data_version %d after another process committed, unchanged", v)
	}
}

// snapshotStore has eight "needle" messages, ids 1–8, so that in two
// ranges ids 1–4 are the first's and 5–8 the second's.
func snapshotStore(t *testing.T) *Store {
	t.Helper()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1000, 0), time.Second)})
	srchCreate(t, s, "s", "cli", "")
	for i := range 8 {
		srchSay(t, s, "s", "user", fmt.Sprintf("needle %d", i+1))
	}
	return s
}

// TestSearchSplitOneSnapshot forces commits between the range
// transactions' snapshots (searchSnapshotHook, after the first range has
// fixed its own): deleting message 1 (the first range's) and message 8
// (the second's). A search on one snapshot finds 1–8 or 2–7; mixing them
// (the first range before, the second after) would find 1–7, which is
// what the search returns with the data_version check off. With it, the
// search retries and answers 2–7; when every attempt sees a commit, it
// runs the single statement.
//
// The hook is a package variable: these subtests run one after the other.
func TestSearchSplitOneSnapshot(t *testing.T) {
	deleteAt := func(t *testing.T, s *Store, at map[int][2]int64) func(attempt, i int) {
		return func(attempt, i int) {
			if ids, ok := at[attempt]; ok && i == 0 {
				execSQL(t, s, "DELETE FROM messages WHERE id IN (?, ?)", ids[0], ids[1])
			}
		}
	}
	defer func() { searchSnapshotHook, searchSnapshotUnchecked = nil, false }()
	for _, c := range []struct {
		name      string
		deletes   map[int][2]int64
		unchecked bool
		want      []int64
		retries   uint64
		fallbacks uint64
	}{
		{"NoCommit", nil, false, []int64{1, 2, 3, 4, 5, 6, 7, 8}, 0, 0},
		{"Unchecked", map[int][2]int64{0: {1, 8}}, true, []int64{1, 2, 3, 4, 5, 6, 7}, 0, 0},
		{"Retried", map[int][2]int64{0: {1, 8}}, false, []int64{2, 3, 4, 5, 6, 7}, 1, 0},
		{"SingleStatement", map[int][2]int64{0: {1, 8}, 1: {2, 7}, 2: {3, 6}}, false, []int64{4, 5}, 3, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := snapshotStore(t)
			searchSnapshotHook, searchSnapshotUnchecked = deleteAt(t, s, c.deletes), c.unchecked
			res := mustForced(t, s, "needle", SearchOptions{Order: SearchOldest}, 2)
			searchSnapshotHook, searchSnapshotUnchecked = nil, false
			if diff := cmp.Diff(c.want, srchIDs(res)); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
			if r, f := s.searchConns.retries.Load(), s.searchConns.fallbacks.Load(); r != c.retries || f != c.fallbacks {
				t.Errorf("%d retries, %d fallbacks; want %d, %d", r, f, c.retries, c.fallbacks)
			}
			// The answer is the single statement's on the final state.
			if !c.unchecked {
				if diff := cmp.Diff(mustForced(t, s, "needle", SearchOptions{Order: SearchOldest}, 1), res); diff != "" {
					t.Errorf("split answer against the single statement now (-single +split):\n%s", diff)
				}
			}
		})
	}
}

// TestSearchSplitConcurrent runs split searches from many goroutines on
// the default pool at once: they share the pool without waiting on each
// other for its last connections (searchConns), and every answer is the
// single statement's.
func TestSearchSplitConcurrent(t *testing.T) {
	t.Parallel()
	s, _ := tieStore(t)
	want := mustForced(t, s, "needle", SearchOptions{Limit: 30}, 1)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Go(func() {
			for range 10 {
				res, err := forcedSearch(s, context.Background(), "needle", SearchOptions{Limit: 30}, 2+g%3)
				if err != nil {
					errs <- err
					return
				}
				if diff := cmp.Diff(want, res); diff != "" {
					errs <- fmt.Errorf("split answer (-single +split):\n%s", diff)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := s.searchConns.inUse; n != 0 {
		t.Errorf("%d connections still counted in use", n)
	}
}

// TestSearchSplitCancelled: a split search whose context ends returns
// ctx's error at once, and Close waits for it.
func TestSearchSplitCancelled(t *testing.T) {
	t.Parallel()
	s, _ := tieStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, q := range []string{"needle", "记忆断裂", "通信"} {
		if res, err := forcedSearch(s, ctx, q, SearchOptions{}, 3); !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("split search %q with a cancelled context = %v, %v; want nil, context.Canceled", q, res, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if res, err := forcedSearch(s, context.Background(), "needle", SearchOptions{}, 3); !errors.Is(err, ErrClosed) || res != nil {
		t.Errorf("split search after Close = %v, %v; want nil, ErrClosed", res, err)
	}
}

// TestSearchSplitDamagedIndex: a split search of a damaged index fails
// exactly as the single statement does (ErrCorrupt, its message): the
// probe's and the ranges' own failures hand over to the single statement,
// and so does the whole search's top form (search_top.go).
func TestSearchSplitDamagedIndex(t *testing.T) {
	t.Parallel()
	s, path := healthFixture(t, nil)
	for range 200 {
		mustAppend(t, s, "a", NewMessage{Role: "user", Content: new("filler hello")})
	}
	damageSearchIndex(t, path)
	ctx := context.Background()
	_, want := forcedSearch(s, ctx, "hello", SearchOptions{}, 1)
	if !errors.Is(want, ErrCorrupt) {
		t.Fatalf("single statement on the damaged index: %v, want ErrCorrupt", want)
	}
	for _, k := range []int{0, 2, 3, 4} {
		_, err := forcedSearch(s, ctx, "hello", SearchOptions{}, k)
		if !errors.Is(err, ErrCorrupt) || err.Error() != want.Error() {
			t.Errorf("%d ranges: %v, want %v", k, err, want)
		}
	}
	if _, err := topSearch(s, ctx, "hello", SearchOptions{}); !errors.Is(err, ErrCorrupt) || err.Error() != want.Error() {
		t.Errorf("top form: %v, want %v", err, want)
	}
}

// TestSearchSplitDecides: SearchMessages itself splits a search whose
// index holds splitMinMatches matches (here 2 ranges, Options.
// SearchParallelism), by rank too (SQLite's memory statistics are off:
// splitPays), with the single statement's answer, and leaves a rarer one
// and a LIKE scan of fewer than splitMinRows rows unsplit;
// SearchParallelism 1 never splits.
func TestSearchSplitDecides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	s := openAt(t, path, &Options{SearchParallelism: 2, Synchronous: SynchronousNormal})
	srchCreate(t, s, "s", "cli", "")
	err := s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		for i := range splitMinMatches + 100 {
			text := fmt.Sprintf("common word %d 通信", i)
			if i%1000 == 0 {
				text += " rare"
			}
			if _, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{
				SessionID: "s", Role: "user", Content: &text, Timestamp: sqlnum.RealOf(float64(1000 + i%97)),
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		opts  SearchOptions
		split uint64
	}{
		{"common", SearchOptions{}, 1}, // by rank, unfiltered: pays with the statistics off
		{"common", SearchOptions{Roles: []string{"user"}}, 1},
		{"common", SearchOptions{Order: SearchNewest, Offset: 30, Limit: 25}, 1},
		{"rare", SearchOptions{}, 0},
		{"通信", SearchOptions{}, 0}, // 10,100 rows: below splitMinRows
	} {
		// A search worth splitting is split, unless the single statement
		// run beside the probe finished first (early).
		before := s.searchConns.splits.Load() + s.searchConns.early.Load()
		got, err := s.SearchMessages(ctx, c.query, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.searchConns.splits.Load() + s.searchConns.early.Load() - before; n != c.split {
			t.Errorf("%q %+v: %d split searches, want %d", c.query, c.opts, n, c.split)
		}
		if diff := cmp.Diff(mustForced(t, s, c.query, c.opts, 1), got); diff != "" || len(got) == 0 {
			t.Errorf("%q %+v (-single +SearchMessages), %d hits:\n%s", c.query, c.opts, len(got), diff)
		}
	}
	off := openAt(t, path, &Options{SearchParallelism: 1, ReadOnly: true})
	if _, err := off.SearchMessages(ctx, "common", SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := off.searchConns.splits.Load(); n != 0 {
		t.Errorf("SearchParallelism 1: %d split searches", n)
	}
}

// runCrossChecked runs the search tests with check as the cross-check
// hook (searchCrossCheck), which sees every search they make.
func runCrossChecked(t *testing.T, check func(s *Store, ctx context.Context, query string, opts SearchOptions)) {
	searchCrossCheck = check
	defer func() { searchCrossCheck = nil }()
	t.Run("Tests", func(t *testing.T) {
		for name, fn := range map[string]func(*testing.T){
			"TestSearchCorpus":                TestSearchCorpus,
			"TestFTS5Search":                  TestFTS5Search,
			"TestCJKSearchFallback":           TestCJKSearchFallback,
			"TestExcludeSourcesSearch":        TestExcludeSourcesSearch,
			"TestFTS5ToolCallIndexing":        TestFTS5ToolCallIndexing,
			"TestFTS5ToolCallMigrationSearch": TestFTS5ToolCallMigrationSearch,
			"TestCJKShortTokenOr":             TestCJKShortTokenOr,
			"TestSearchResultShape":           TestSearchResultShape,
			"TestSearchNeverFailsSilently":    TestSearchNeverFailsSilently,
			"TestSearchErrorsAreReturned":     TestSearchErrorsAreReturned,
			"TestSearchActiveAndOrder":        TestSearchActiveAndOrder,
			"TestSearchSortedSnippets":        TestSearchSortedSnippets,
			"TestSearchContextSkipsRewound":   TestSearchContextSkipsRewound,
			"TestSearchMultimodalContext":     TestSearchMultimodalContext,
			"TestSearchColonQuery":            TestSearchColonQuery,
			"TestSearchQueryCap":              TestSearchQueryCap,
			"TestSearchReadOnly":              TestSearchReadOnly,
			"TestUpstreamAnswersForSearch":    TestUpstreamAnswersForSearch,
		} {
			t.Run(name, fn)
		}
	})
}
