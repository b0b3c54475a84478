package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// The FTS5 'optimize' command for each full-text index: it rewrites the
// index as one merged segment. Hand-written: the command is an INSERT into
// the table's own hidden column, which sqlc cannot compile, and a table
// name cannot be bound. The text is upstream's.
const (
	optimizeWordIndexSQL    = "INSERT INTO messages_fts(messages_fts) VALUES('optimize')"
	optimizeTrigramIndexSQL = "INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('optimize')"
)

// optimizeSQL maps each full-text index to its optimize command.
var optimizeSQL = map[string]string{
	"messages_fts":         optimizeWordIndexSQL,
	"messages_fts_trigram": optimizeTrigramIndexSQL,
}

// OptimizeFTS merges the segments of each full-text index into one
// (upstream's optimize_fts). The message triggers add one segment per
// insert; FTS5's automerge keeps their number bounded but not small, and
// every search reads every segment. It changes neither results nor
// snippets, only the layout and the speed; the store runs it every
// Options.OptimizeEvery writes and before a VACUUM. An index the file
// lacks (an old file without the trigram index) is skipped.
//
// Each index is merged in its own write transaction, retried while the
// file is locked like any write; a failure of one does not stop the other,
// as in upstream (which only logs it). It returns how many indexes were
// merged (2 on a current file) and the failures, joined; and ErrReadOnly
// on a read-only store, ErrBusy, ErrDiskFull or ErrClosed.
func (s *Store) OptimizeFTS(ctx context.Context) (_ int, err error) {
	defer wrap(&err, "optimize fts")
	if err := s.acquire(); err != nil {
		return 0, err
	}
	defer s.release()
	if s.pg != nil {
		return 0, nil // GIN indexes have no segments to merge
	}
	return s.optimizeFTS(ctx)
}

// optimizeFTS is OptimizeFTS inside a call (acquired). It is no write of
// the write helper: it does not count towards the periodic checkpoint or
// optimize.
func (s *Store) optimizeFTS(ctx context.Context) (int, error) {
	w, err := s.writer()
	if err != nil {
		return 0, err
	}
	present, err := presentSearchIndexes(ctx, w)
	if err != nil {
		return 0, sqlite.Classify(err)
	}
	optimized := 0
	var errs []error
	for _, table := range searchIndexTables {
		if !present[table] {
			continue
		}
		err := sqlite.WriteTx(ctx, w, s.retry, func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, optimizeSQL[table])
			return err
		})
		if err != nil {
			s.log.WarnContext(ctx, "FTS optimize failed", slog.String("table", table), slog.Any("error", err))
			errs = append(errs, fmt.Errorf("%s: %w", table, err))
			continue
		}
		optimized++
	}
	return optimized, errors.Join(errs...)
}

// presentSearchIndexes reports which full-text index tables the file has.
func presentSearchIndexes(ctx context.Context, q sqlite.RowsQueryer) (map[string]bool, error) {
	names, err := sqlite.Strings(ctx, q, searchIndexPresentSQL)
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	for _, n := range names {
		present[n] = true
	}
	return present, nil
}
