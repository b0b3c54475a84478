package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/internal/sqlitesearch"
)

// A search on every core. Nearly all of a common word's search time is
// SQLite ranking (bm25) or sorting every match before the page. The same
// statement restricted to a range of rowids ranks each of its hits exactly
// as the whole statement does and costs only its share (see
// internal/sqlitesearch's ranges.go), so a search that is worth it is split
// into k rowid ranges, each run on its own pooled connection at the same
// time, each returning only the ids and sort keys of its first
// offset + limit hits (for a small page by rank, their rows and snippets
// too: rowsRangeMaxHits); the store merges them in the whole statement's
// order (search_parallel_merge.go) and reads the rest for the page alone:
// each range its share of the page (rows, long snippets, contexts), in its
// own transaction, all at once. A search by rank without source or role
// filters runs its ranges in their top form (search_top.go): each keeps its
// best offset + limit (and a margin) matches instead of sorting them all.
// Whether a search is worth it is told by a
// probe run beside the single statement (probeBesideSingle), so that a
// small search costs what it did.
//
// One snapshot. A search reads one committed state, as the single
// statement in one read transaction does. The k read transactions each
// start their own snapshot, so the store proves they started on the same
// one: on a pooled connection outside any transaction (the watcher) it
// reads PRAGMA data_version, then begins the k transactions and makes each
// read (which fixes its snapshot), then reads data_version on the watcher
// again. data_version changes when any other connection, of this process
// or another, has committed (TestDataVersion shows it); so equal values
// prove that no commit landed while the snapshots were taken, and all k
// are the state the first read saw. Otherwise the transactions end and it
// tries again (snapshotAttempts times), then runs the single statement on
// the watcher (search_parallel_snapshot.go). Every range reads its share
// of the page in its own transaction, so on that same snapshot. No lock is
// taken: writers never wait for a search.
//
// Only a WAL file is split: with the rollback journal a read transaction
// holds a shared lock, so a writer waiting to commit between two of the
// range transactions' starts would block the second until its busy
// timeout.

// rowsRangeMaxHits is the most hits a range of a search by rank reads
// with their result columns (offset + limit; sqlitesearch's
// RowsRangeSQL), computing snippets for (ranges - 1) * (offset + limit)
// hits that are not on the page; above it a range returns ids and ranks
// only, and the page is read afterwards.
const rowsRangeMaxHits = 100

// The split thresholds. A full-text search is split when its index holds
// at least splitMinMatches matches of its MATCH (the probe counts them,
// stopping there), a LIKE scan when messages spans at least splitMinRows
// rowids (its cost is the rows it scans, whatever matches).
//
// Measured with BenchmarkSearchSplitThreshold and
// BenchmarkSearchSplitLikeThreshold on the benchmark corpus (100,000
// messages), 2 ranges (their top form, search_top.go) against the single
// statement on 2 cores (ranges2/single): 9 matches (one rare word) 1.77;
// 73 and 294 matches (ANDs of three and four common words) 1.22 and 1.36;
// 1,528 (two) 0.98; 2,975 (an OR of two ANDs) 0.99; 17,285 (docker OR
// kubernetes) 0.58; 18,061 (one common word) 0.52. The matches alone do
// not tell the cost: every range pays bm25's document counts, one walk of
// each phrase's whole doclist, and the page's walk, so a query of few
// matches over common words gains nothing, and the threshold sits between
// the last loss (2,975) and the first gain (17,285). Before the top form,
// on a machine other processes kept loaded, the gains started in the same
// place (17,285: 0.85 and 1.02). LIKE scans over the first n rowids:
// 10,000 rows 1.00 and 1.00, 20,000 0.94 and 1.16, 50,000 0.88 and 0.98.
const (
	splitMinMatches = 10000
	splitMinRows    = 50000
)

// searchConns counts the read-pool connections that split searches hold,
// so that they never take more than the pool has: a split search takes its
// k + 1 connections at once or runs unsplit, and two of them can never wait
// on each other for the pool's last connections. A plain read holds one
// connection and never waits for a second, so it only delays them. The
// zero value is ready; it also counts what tests look at.
type searchConns struct {
	mu    sync.Mutex
	inUse int

	splits, early, retries, fallbacks atomic.Uint64
	// topShort counts whole searches whose top form could not answer,
	// topSplitShort split searches run unsplit for a range's top form
	// (search_top.go).
	topShort, topSplitShort atomic.Uint64
}

// take reserves up to want connections of a pool of capacity and returns
// how many, or 0 when fewer than least are free.
func (c *searchConns) take(want, capacity, least int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(want, capacity-c.inUse)
	if n < least {
		return 0
	}
	c.inUse += n
	return n
}

// put returns n connections taken with take.
func (c *searchConns) put(n int) {
	c.mu.Lock()
	c.inUse -= n
	c.mu.Unlock()
}

// searchRanges is how many ranges a search may be split into: the
// option's value (0: runtime.NumCPU()), at most ReadConnections; 1 or less
// is never split.
func (s *Store) searchRanges() int {
	n := s.opts.SearchParallelism
	if n == 0 {
		n = runtime.NumCPU()
	}
	return min(n, s.opts.ReadConnections)
}

// splitPays reports whether a search of this shape gains from a split at
// all (the match count decides afterwards). A full-text search by rank
// without a source or role filter pays least: FTS5's bm25 counts each
// phrase's documents over the whole index for every cursor (its
// xQueryPhrase walks the phrase's whole doclist), so every range pays
// that walk again. With SQLite's memory statistics on, whose mutex two
// searching connections queue on at every allocation, that loses:
// measured on a quiet 2-core machine (BenchmarkSearchSplit, 18,000
// matches), ranges2/single 1.00 to 1.07 before the top form. With them
// off (sqlite.AllocationsUnshared, the store's default) it gains: 0.44 to
// 0.50 of the original single statement with the ranges in their top form
// (0.70 to 0.78 before it), 0.61 to 0.68 of the top form unsplit;
// filtered, newest first and the LIKE scan gain either way (0.64 to 0.70
// with the statistics on).
func splitPays(opts SearchOptions, st sqlitesearch.Statement) bool {
	keys, _ := st.RangeKeys()
	filtered := opts.Sources != nil || len(opts.ExcludeSources) > 0 || len(opts.Roles) > 0
	return keys != sqlitesearch.KeysRank || filtered || sqlite.AllocationsUnshared()
}

// search runs st, the statement of query with opts. force 0 decides
// whether to split (searchRanges, the thresholds); force 1 runs the single
// statement and force k > 1 splits into k ranges whatever the thresholds
// (tests). When ctx ends it returns ctx's error at once, as readUntilDone.
func (s *Store) search(ctx context.Context, query string, opts SearchOptions, st sqlitesearch.Statement, force int) ([]SearchResult, error) {
	k := force
	if k == 0 {
		k = s.searchRanges()
		if !splitPays(opts, st) {
			k = 1
		}
	}
	if k <= 1 {
		return readUntilDone(s, ctx, func(ctx context.Context, q backend.Tx) ([]SearchResult, error) {
			return s.searchWhole(ctx, q, query, opts, st, false)
		})
	}
	return untilDone(ctx, func() ([]SearchResult, error) {
		if err := s.acquire(); err != nil {
			return nil, err
		}
		defer s.release()
		hits, err := s.searchSplit(ctx, query, opts, st, k, force > 1)
		return hits, sqlite.Classify(err)
	})
}

// searchSplit runs st split into up to k ranges when the pool has the
// connections and (unless forced) the search is worth splitting, and the
// single statement otherwise. The caller holds acquire.
func (s *Store) searchSplit(ctx context.Context, query string, opts SearchOptions, st sqlitesearch.Statement, k int, forced bool) ([]SearchResult, error) {
	least := 3 // the watcher and two ranges
	if forced {
		least = k + 1 // tests and benchmarks: all the ranges they ask for, or none
	}
	n := s.searchConns.take(k+1, s.opts.ReadConnections+1, least)
	if n == 0 {
		return inReadTx(ctx, s.r, func(q backend.Tx) ([]SearchResult, error) {
			return s.searchWhole(ctx, q, query, opts, st, false)
		})
	}
	defer s.searchConns.put(n)
	k = n - 1
	watcher, err := s.r.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer watcher.Close()
	// The single statement after the probe found many matches (or a
	// split was asked for): in its top form where it has one.
	single := func() ([]SearchResult, error) {
		return inReadTx(ctx, watcher, func(q backend.Tx) ([]SearchResult, error) {
			return s.searchWhole(ctx, q, query, opts, st, true)
		})
	}
	if st.ProbeSQL() != "" && !forced {
		if hits, done, err := s.probeBesideSingle(ctx, watcher, query, opts, st); done {
			return hits, err
		}
	}
	split, lo, hi, version, err := splitInfo(ctx, watcher, st, forced)
	if err != nil || !split {
		// A failed look (a damaged index, say) is the single statement's
		// to report, in its own words.
		return single()
	}
	conns := make([]*sql.Conn, 0, k)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range k {
		c, err := s.r.Conn(ctx)
		if err != nil {
			return nil, err
		}
		conns = append(conns, c)
	}
	txs, err := s.sameSnapshot(ctx, watcher, conns, version)
	if err != nil && ctx.Err() == nil {
		return single()
	}
	if err != nil {
		return nil, err
	}
	if txs == nil {
		s.searchConns.fallbacks.Add(1)
		return single()
	}
	defer func() {
		for _, tx := range txs {
			tx.Rollback()
		}
	}()
	s.searchConns.splits.Add(1)
	hits, err := s.searchRangesIn(ctx, txs, query, opts, st, lo, hi)
	if errors.Is(err, errTopShort) {
		s.searchConns.topSplitShort.Add(1)
	}
	if err != nil && ctx.Err() == nil {
		// A failing search (a damaged index) fails as the single statement
		// does, with its error.
		endAll(txs)
		txs = nil
		return single()
	}
	return hits, err
}

// inReadTx runs fn in one read transaction begun on b (the pool or one
// of its connections), as read does inside acquire.
func inReadTx[T any](ctx context.Context, b interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}, fn func(backend.Tx) (T, error)) (T, error) {
	var zero T
	tx, err := b.BeginTx(ctx, nil)
	if err != nil {
		return zero, fmt.Errorf("begin: %w", sqlite.Classify(err))
	}
	defer tx.Rollback()
	return fn(backend.SQLiteTx(tx))
}

// The watcher's statements. data_version is the connection's count of
// other connections' commits (sqlite.org/pragma.html#pragma_data_version);
// splitInfoSQL reads it with the journal mode (only a WAL file is split)
// and the span of rowids that bounds the ranges (each subquery a min or
// max that the planner answers from an end of the rowid b-tree) in one
// statement, through the pragmas' table-valued forms. schema_version, in a
// range transaction, reads the database header, which starts the
// transaction's snapshot.
const (
	dataVersionSQL = "PRAGMA data_version"
	splitInfoSQL   = `SELECT (SELECT data_version FROM pragma_data_version()),
    (SELECT journal_mode FROM pragma_journal_mode()),
    (SELECT min(id) FROM messages), (SELECT max(id) FROM messages)`
	startSnapshotSQL = "PRAGMA schema_version"
)

// probeBesideSingle runs the single statement on a pooled connection of
// its own while the watcher counts the index's matches (the probe,
// stopping at splitMinMatches), so that a search too small to split costs
// what the single statement costs: the probe ran beside it, on another
// core. done is true, with the single statement's answer, when the probe
// found too few matches (or failed: the single statement's error is the
// one to report) or the single statement finished first; otherwise the
// single statement is interrupted (it ran for the probe's time) and the
// caller splits.
func (s *Store) probeBesideSingle(ctx context.Context, watcher *sql.Conn, query string, opts SearchOptions, st sqlitesearch.Statement) (hits []SearchResult, done bool, err error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		hits []SearchResult
		err  error
	}
	single := make(chan answer, 1)
	go func() {
		hits, err := inReadTx(sctx, s.r, func(q backend.Tx) ([]SearchResult, error) {
			return s.searchWhole(sctx, q, query, opts, st, false)
		})
		single <- answer{hits, err}
	}()
	var matches int64
	err = watcher.QueryRowContext(ctx, st.ProbeSQL(), st.ProbeNamed(splitMinMatches)...).Scan(&matches)
	if err != nil || matches < splitMinMatches || ctx.Err() != nil {
		a := <-single
		return a.hits, true, a.err
	}
	cancel()
	if a := <-single; a.err == nil {
		s.searchConns.early.Add(1)
		return a.hits, true, nil // it finished before the interrupt
	}
	return nil, false, nil
}

// splitInfo tells whether st is worth splitting (always when forced) and
// returns the span of rowids to split and the watcher's data_version,
// read on the watcher c outside any transaction: only a WAL file with
// messages is split, and a LIKE scan only when the rowids span
// splitMinRows (a full-text search has passed the probe).
func splitInfo(ctx context.Context, c *sql.Conn, st sqlitesearch.Statement, forced bool) (split bool, lo, hi, version int64, err error) {
	var mode string
	var first, last sql.NullInt64
	if err := c.QueryRowContext(ctx, splitInfoSQL).Scan(&version, &mode, &first, &last); err != nil {
		return false, 0, 0, 0, err
	}
	if mode != "wal" || !first.Valid { // the rollback journal, or no messages
		return false, 0, 0, 0, nil
	}
	lo, hi = first.Int64, last.Int64
	if !forced && st.ProbeSQL() == "" && uint64(hi-lo) < splitMinRows {
		return false, 0, 0, 0, nil
	}
	return true, lo, hi, version, nil
}

// searchRangesIn runs st's range statement over lo..hi split into
// len(txs) ranges, range i in txs[i], all at once; merges their hits into
// the page; and reads each range's hits of the page (rows, snippets,
// contexts) in its own transaction, all at once again. Every transaction
// is on the one snapshot (sameSnapshot), so the page is read in the
// snapshot its hits were found in.
func (s *Store) searchRangesIn(ctx context.Context, txs []*sql.Tx, query string, opts SearchOptions, st sqlitesearch.Statement, lo, hi int64) ([]SearchResult, error) {
	offset, perRange := pageBounds(st.Args.Offset, st.Args.Limit)
	keys, desc := st.RangeKeys()
	bounds := splitSpan(lo, hi, len(txs))
	rows := st.RowsRangeSQL() != "" && perRange >= 0 && perRange <= rowsRangeMaxHits
	found := make([][]rangeHit, len(txs))
	err := eachRange(ctx, len(txs), func(ctx context.Context, i int) error {
		var err error
		args := st.RangeNamed(bounds[i][0], bounds[i][1], perRange)
		if rows {
			found[i], err = scanRowsRange(ctx, txs[i], st.RowsRangeSQL(), args)
		} else {
			found[i], err = scanRange(ctx, backend.SQLiteTx(txs[i]), st.RangeSQL(), args, keys)
		}
		if err != nil || !st.Top() {
			return err
		}
		exact, err := topExact(ctx, backend.SQLiteTx(txs[i]), st, bounds[i][0], bounds[i][1], len(found[i]), perRange, perRange)
		if err == nil && !exact {
			err = errTopShort
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	page := mergePage(found, keys, desc, offset, st.Args.Limit)
	if len(page) == 0 {
		return s.searchFinish(ctx, backend.SQLiteTx(txs[0]), query, opts, st, []SearchResult{}, nil)
	}
	shares := make([][]rangeHit, len(txs))
	for _, h := range page {
		i := slices.IndexFunc(bounds, func(b [2]int64) bool { return h.id <= b[1] })
		shares[i] = append(shares[i], h)
	}
	read := make([][]SearchResult, len(txs))
	err = eachRange(ctx, len(txs), func(ctx context.Context, i int) error {
		if len(shares[i]) == 0 {
			return nil
		}
		var hits []SearchResult
		var long []bool
		if rows {
			for _, h := range shares[i] {
				hits, long = append(hits, *h.row), append(long, h.long)
			}
		} else {
			ids := make([]int64, len(shares[i]))
			for j, h := range shares[i] {
				ids[j] = h.id
			}
			var err error
			if hits, long, err = scanHits(ctx, backend.SQLiteTx(txs[i]), st.PageSQL(), st.PageNamed(ids)); err != nil {
				return err
			}
		}
		read[i] = hits
		return s.finishHits(ctx, backend.SQLiteTx(txs[i]), query, opts, hits, long)
	})
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]SearchResult, len(page))
	for _, hits := range read {
		for _, h := range hits {
			byID[h.ID] = h
		}
	}
	out := make([]SearchResult, 0, len(page))
	for _, p := range page {
		h, ok := byID[p.id]
		if !ok {
			return nil, fmt.Errorf("search page: hit %d not read in the snapshot it was found in", p.id)
		}
		out = append(out, h)
	}
	return out, nil
}

// eachRange runs fn for every range 0..n-1 at once, each on its own
// goroutine, and returns ctx's error if it ended, else the first error;
// the first error ends the others (their answer is lost anyway).
func eachRange(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if errs[i] = fn(rctx, i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	return firstError(ctx, errs)
}

// firstError returns ctx's error when ctx ended, else the first range's
// error that is not the cancellation another range's failure caused.
func firstError(ctx context.Context, errs []error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var canceled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			canceled = err
		default:
			return err
		}
	}
	return canceled
}

// pageBounds returns the page's first hit as SQLite reads OFFSET (a
// negative offset is 0) and each range's limit: offset + limit, or -1 (no
// limit) for a negative limit or a sum past int64.
func pageBounds(offset, limit int) (first, perRange int64) {
	first = max(int64(offset), 0)
	if limit < 0 || first > math.MaxInt64-int64(limit) {
		return first, -1
	}
	return first, first + int64(limit)
}

// splitSpan cuts the rowids lo..hi into n ranges of equal width, the first
// open below and the last open above, so that together they cover every
// rowid whatever the span read outside the snapshot said.
func splitSpan(lo, hi int64, n int) [][2]int64 {
	out := make([][2]int64, n)
	width := (float64(hi) - float64(lo) + 1) / float64(n)
	from := int64(math.MinInt64)
	for i := range n - 1 {
		to := lo + int64(width*float64(i+1)) - 1
		to = max(to, from) // a span narrower than n
		out[i] = [2]int64{from, to}
		from = to + 1
	}
	out[n-1] = [2]int64{from, math.MaxInt64}
	return out
}
