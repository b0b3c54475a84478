package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sentinel"
	"github.com/hermesstate/hermesstate/migrations"
)

// An empty search index: the table exists but holds no row while messages
// has some. The original's own migration can leave one (two processes
// migrating at once: one creates the FTS table, the other's one-shot
// backfill has already run), and every search then silently finds
// nothing. Open looks for it, which costs the first row of three tables
// (microseconds, also on a file of a million messages); a store that can
// write rebuilds it, and a search of an empty index fails with
// ErrSearchIndexEmpty instead of returning nothing.

// ErrSearchIndexEmpty is returned by SearchMessages when the full-text
// index it needs holds nothing while messages has rows, and by Open when
// it found such an index and could not rebuild it. RebuildSearchIndex (or
// sessions doctor --fix-fts) repairs it. It matches ErrCorrupt.
var ErrSearchIndexEmpty = sentinel.New("the search index is empty while messages has rows (rebuild it: sessions doctor --fix-fts, or Store.RebuildSearchIndex)", ErrCorrupt)

// searchIndexTables are the full-text indexes.
var searchIndexTables = []string{"messages_fts", "messages_fts_trigram"}

// The statements telling whether an index is empty while messages is not.
// Hand-written: a table name cannot be bound. Each EXISTS reads one row at
// most.
const (
	wordIndexEmptySQL    = "SELECT EXISTS (SELECT 1 FROM messages) AND NOT EXISTS (SELECT 1 FROM messages_fts)"
	trigramIndexEmptySQL = "SELECT EXISTS (SELECT 1 FROM messages) AND NOT EXISTS (SELECT 1 FROM messages_fts_trigram)"
)

// indexEmptySQL is the emptiness statement of the index table.
func indexEmptySQL(table string) string {
	if table == "messages_fts_trigram" {
		return trigramIndexEmptySQL
	}
	return wordIndexEmptySQL
}

// indexEmpty reports whether the index table is empty while messages is
// not.
func indexEmpty(ctx context.Context, q backend.Tx, table string) (bool, error) {
	var empty bool
	err := q.QueryRowContext(ctx, indexEmptySQL(table)).Scan(&empty)
	return empty, err
}

// searchIndexPresentSQL counts the full-text tables the file has: an old
// file may lack the trigram index (a read-only store does not add it).
const searchIndexPresentSQL = `SELECT name FROM sqlite_schema
WHERE type = 'table' AND (name = 'messages_fts' OR name = 'messages_fts_trigram')`

// emptySearchIndexes returns the full-text indexes of the file that are
// empty while messages has rows.
func emptySearchIndexes(ctx context.Context, q backend.Tx) ([]string, error) {
	rows, err := q.QueryContext(ctx, searchIndexPresentSQL)
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		present[name] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	var empty []string
	for _, table := range searchIndexTables {
		if !present[table] {
			continue
		}
		isEmpty, err := indexEmpty(ctx, q, table)
		if err != nil {
			return nil, err
		}
		if isEmpty {
			empty = append(empty, table)
		}
	}
	return empty, nil
}

// checkSearchIndexes ends Open: it returns s, after rebuilding the search
// indexes when one is empty (see ErrSearchIndexEmpty) and s can write a
// file of this build's schema; a read-only store only logs it, and its
// searches report it. A failed rebuild closes s and fails the open. A
// check that cannot run (a damaged index) leaves it to searches and
// Check.
func (s *Store) checkSearchIndexes(ctx context.Context) (*Store, error) {
	empty, err := emptySearchIndexes(ctx, backend.SQLiteTx(s.r))
	if err != nil || len(empty) == 0 {
		if err != nil {
			s.log.DebugContext(ctx, "search index check failed", slog.Any("error", err))
		}
		return s, nil
	}
	version, err := migrations.ReadVersion(ctx, s.r)
	if s.w == nil || err != nil || version != migrations.Latest {
		s.log.WarnContext(ctx, "search index is empty while messages has rows; searches fail until it is rebuilt",
			slog.Any("indexes", empty), slog.String("path", s.path))
		return s, nil
	}
	s.log.WarnContext(ctx, "search index is empty while messages has rows; rebuilding it", slog.Any("indexes", empty), slog.String("path", s.path))
	start := time.Now()
	if err := s.rebuildEmptySearchIndexes(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w; rebuilding it failed: %w", ErrSearchIndexEmpty, err)
	}
	s.log.InfoContext(ctx, "rebuilt the search indexes", slog.Duration("duration", time.Since(start)))
	return s, nil
}

// rebuildEmptySearchIndexes rebuilds both indexes in one write
// transaction of its own (writeAlone: a schema change), unless another
// process rebuilt them since the check.
func (s *Store) rebuildEmptySearchIndexes(ctx context.Context) error {
	return s.writeAlone(ctx, func(ctx context.Context, tx backend.Tx) error {
		if empty, err := emptySearchIndexes(ctx, tx); err != nil || len(empty) == 0 {
			return err
		}
		_, err := migrations.RebuildFTS(ctx, tx.DBTX.(*sql.Tx))
		return err
	})
}

// searchIndexEmpty returns ErrSearchIndexEmpty when table, the index a
// search that found nothing used, is empty while messages has rows.
func searchIndexEmpty(ctx context.Context, q backend.Tx, table string) error {
	isEmpty, err := indexEmpty(ctx, q, table)
	if err != nil || !isEmpty {
		return err
	}
	return fmt.Errorf("%s: %w", table, ErrSearchIndexEmpty)
}
