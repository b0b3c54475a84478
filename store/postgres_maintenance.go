package store

import (
	"context"
	"fmt"
	"log/slog"
)

// What the SQLite-file operations return on PostgreSQL.
var (
	errBackupOnPostgres  = fmt.Errorf("%w: back a PostgreSQL database up with pg_dump (see the README)", ErrNotSupported)
	errNoWALOnPostgres   = fmt.Errorf("%w: the server checkpoints its own WAL", ErrNotSupported)
	errNoPagesOnPostgres = fmt.Errorf("%w: a database has no SQLite pages (pg_database_size tells its size)", ErrNotSupported)
)

// pgVacuumSQL is Vacuum on PostgreSQL. Hand-written: VACUUM is no query
// sqlc compiles and cannot run inside a transaction, so it goes to the
// pool directly. ANALYZE refreshes the planner's statistics too, as
// SQLite's file rebuild has no need to.
const pgVacuumSQL = "VACUUM (ANALYZE) sessions, messages, messages_search, session_model_usage"

// pgAnalyzeAfter is how many imported messages make ImportJSONL refresh
// PostgreSQL's planner statistics (pgAnalyze).
const pgAnalyzeAfter = 1000

// pgAnalyzeSQL refreshes the statistics of the tables an import fills.
// Hand-written: ANALYZE is no query sqlc compiles. Without it, until
// autovacuum comes round, the planner takes a freshly imported history for
// empty tables and searches scan every message (measured: 20-50 ms for a
// rare word over 12,000 messages, 2-4 ms after it).
const pgAnalyzeSQL = "ANALYZE sessions, messages, messages_search"

// pgAnalyze runs pgAnalyzeSQL on a PostgreSQL store (nothing on SQLite,
// whose planner reads no statistics the store keeps). A failure is logged:
// the import itself committed.
func (s *Store) pgAnalyze(ctx context.Context) {
	if s.pg == nil || s.acquire() != nil {
		return
	}
	defer s.release()
	if _, err := s.pg.Exec(ctx, pgAnalyzeSQL); err != nil {
		s.log.WarnContext(ctx, "ANALYZE after the import failed", slog.Any("error", err))
	}
}

// pgVacuum runs pgVacuumSQL, or returns ErrReadOnly on a store opened
// ReadOnly.
func (s *Store) pgVacuum(ctx context.Context) error {
	if s.pgReadOnly {
		return errOpenedReadOnly
	}
	_, err := s.pg.Exec(ctx, pgVacuumSQL)
	return classify(err)
}
