package store

import (
	"context"
	"fmt"
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

// pgVacuum runs pgVacuumSQL, or returns ErrReadOnly on a store opened
// ReadOnly.
func (s *Store) pgVacuum(ctx context.Context) error {
	if s.pgReadOnly {
		return errOpenedReadOnly
	}
	_, err := s.pg.Exec(ctx, pgVacuumSQL)
	return classify(err)
}
