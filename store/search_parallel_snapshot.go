package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The split search's one snapshot (see search_parallel.go): k read
// transactions begun while the watcher's data_version stays the same.

// snapshotAttempts is how many times a split search tries to start its
// range transactions on one snapshot before it runs the single statement.
const snapshotAttempts = 3

// Test hooks. searchSnapshotHook, when set, runs after range i of attempt
// has fixed its snapshot (a test commits there); searchSnapshotUnchecked
// skips the data_version comparison, so that a test can show what it
// prevents.
var (
	searchSnapshotHook      func(attempt, i int)
	searchSnapshotUnchecked bool
)

// sameSnapshot begins one read transaction on each of conns, all on one
// snapshot, proved by the watcher's data_version (see the top of this
// file; before is its value read before the first attempt), trying
// snapshotAttempts times; nil (and no error) when every attempt saw a
// commit land.
func (s *Store) sameSnapshot(ctx context.Context, watcher *sql.Conn, conns []*sql.Conn, before int64) ([]*sql.Tx, error) {
	for attempt := range snapshotAttempts {
		if attempt > 0 {
			if err := watcher.QueryRowContext(ctx, dataVersionSQL).Scan(&before); err != nil {
				return nil, err
			}
		}
		txs, err := startSnapshots(ctx, conns, attempt)
		if err != nil {
			return nil, err
		}
		var after int64
		if err := watcher.QueryRowContext(ctx, dataVersionSQL).Scan(&after); err != nil {
			endAll(txs)
			return nil, err
		}
		if before == after || searchSnapshotUnchecked {
			return txs, nil
		}
		endAll(txs)
		s.searchConns.retries.Add(1)
	}
	return nil, nil
}

// startSnapshots begins a read transaction on each of conns and fixes its
// snapshot with a first read.
func startSnapshots(ctx context.Context, conns []*sql.Conn, attempt int) ([]*sql.Tx, error) {
	txs := make([]*sql.Tx, 0, len(conns))
	for i, c := range conns {
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			endAll(txs)
			return nil, fmt.Errorf("begin: %w", err)
		}
		txs = append(txs, tx)
		var v int64
		if err := tx.QueryRowContext(ctx, startSnapshotSQL).Scan(&v); err != nil {
			endAll(txs)
			return nil, err
		}
		if searchSnapshotHook != nil {
			searchSnapshotHook(attempt, i)
		}
	}
	return txs, nil
}

// endAll ends read transactions.
func endAll(txs []*sql.Tx) {
	for _, tx := range txs {
		tx.Rollback()
	}
}
