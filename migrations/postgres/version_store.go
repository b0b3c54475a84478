package pgmigrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
)

// The version table is Hermes' own, as on SQLite (migrations/version_store.go):
// one row, one integer, no goose_db_version table, so a database is at
// exactly one version and the number means the same on both engines. "No
// row" is version 0.
//
// These statements are hand-written because goose hands the store a
// database.DBTxConn (database/sql), which sqlc's pgx code cannot run on.
const (
	// The statement 00021_schema_v21.sql also carries (a test holds them
	// equal): IF NOT EXISTS because SessionLock runs it on every session, in
	// its transaction, before goose reads the version.
	sqlCreateVersionTable = "CREATE TABLE IF NOT EXISTS schema_version (\n    version bigint NOT NULL\n)"
	// to_regclass resolves the name through search_path, as the unqualified
	// statements below do; NULL when there is no such table.
	sqlVersionTableExists = "SELECT to_regclass('schema_version') IS NOT NULL"
	// LIMIT 1 and an UPDATE without WHERE: the SQLite side's (and upstream's)
	// reading of a table that should hold one row.
	sqlGetVersion    = "SELECT version FROM schema_version LIMIT 1"
	sqlUpdateVersion = "UPDATE schema_version SET version = $1"
	sqlInsertVersion = "INSERT INTO schema_version (version) VALUES ($1)"
	sqlClearVersion  = "DELETE FROM schema_version"
)

// The migration session: goose runs every migration of one Up/Down call on
// one connection between SessionLock and SessionUnlock, and this store makes
// that ONE transaction. SessionLock begins it and takes a transaction-level
// advisory lock, which is what serialises migrations across processes and
// hosts: a second migrator blocks in pg_advisory_xact_lock until the first
// commits, then (READ COMMITTED: each statement sees what was committed
// before it began) reads the version the first one wrote and has nothing
// left to do. PostgreSQL's DDL is transactional, so the whole Up is applied
// or not at all.
//
// Why a transaction lock, not goose's lock.NewPostgresSessionLocker: that
// one polls pg_try_advisory_lock (every 5 s by default) and holds a session
// lock that must be released by a separate statement; a transaction lock
// blocks without polling (the context cancels the wait), ends with the
// COMMIT or ROLLBACK or the connection's death with nothing to release, and
// works behind PgBouncer in transaction mode, where a session lock would be
// left on whichever server connection ran it.
//
// A failed statement aborts the transaction (every later statement fails
// with 25P02), and SessionUnlock, seeing it aborted, rolls it all back:
// an Up that fails leaves the database exactly as it was, whatever number
// of migrations it had applied. goose is configured with WithIsolateDDL so
// that it never opens a transaction of its own inside this one.
const (
	sqlBegin = "BEGIN"
	// sqlLock's key is "HermesSV" in ASCII, as a big-endian bigint. Advisory
	// locks are per database, so migrators of different databases on one
	// server never wait for each other.
	sqlLock     = "SELECT pg_advisory_xact_lock(5216701557557646166)"
	sqlCommit   = "COMMIT"
	sqlRollback = "ROLLBACK"
)

// session is what one provider call wants from the lock it takes.
type session struct {
	dryRun bool
	// prepare runs under the lock, before goose plans anything: the check
	// that the database is not newer than this build.
	prepare func(ctx context.Context, conn *sql.Conn) error
}

// versionStore is goose's database.Store on schema_version and its
// lock.SessionLocker (the transaction above). The Migrator sets next before
// each provider call.
type versionStore struct {
	// versions are the embedded migrations' versions, ascending.
	versions []int64

	mu     sync.Mutex
	next   session
	active *session
}

var (
	_ database.Store     = (*versionStore)(nil)
	_ lock.SessionLocker = (*versionStore)(nil)
)

// Tablename returns "schema_version".
func (s *versionStore) Tablename() string { return "schema_version" }

// CreateVersionTable creates schema_version when missing.
func (s *versionStore) CreateVersionTable(ctx context.Context, db database.DBTxConn) error {
	_, err := db.ExecContext(ctx, sqlCreateVersionTable)
	return err
}

// TableExists reports true: goose must not create the table on its own,
// outside the session transaction (a dry run would leave it behind).
// SessionLock creates it inside the transaction, and every read treats a
// missing table as version 0.
func (s *versionStore) TableExists(context.Context, database.DBTxConn) (bool, error) {
	return true, nil
}

// Insert records that migration req.Version was applied: the single row now
// holds it. Version 0, which goose inserts when it creates the table, is the
// absence of a row.
func (s *versionStore) Insert(ctx context.Context, db database.DBTxConn, req database.InsertRequest) error {
	if req.Version == 0 {
		return nil
	}
	return setVersion(ctx, db, req.Version)
}

// Delete records that migration version was rolled back: the row holds the
// embedded migration below it (PostgreSQL's migrations are not every
// version: below 21 there is none, so the row goes and the database is at
// 0).
func (s *versionStore) Delete(ctx context.Context, db database.DBTxConn, version int64) error {
	return setVersion(ctx, db, s.below(version))
}

// below returns the highest embedded version under v, 0 when there is none.
func (s *versionStore) below(v int64) int64 {
	var out int64
	for _, x := range s.versions {
		if x < v {
			out = x
		}
	}
	return out
}

// applied returns the embedded versions at or below cur, newest first, then
// 0: what goose's planner wants from ListMigrations (it needs the zero
// version, and it looks each listed version up among the sources).
func (s *versionStore) applied(cur int64) []int64 {
	var out []int64
	for _, v := range s.versions {
		if v <= cur {
			out = append(out, v)
		}
	}
	slices.Reverse(out)
	return append(out, 0)
}

// GetMigration reports 0 and every embedded version up to the current one
// as applied, any other as database.ErrVersionNotFound. The table keeps no
// timestamps.
func (s *versionStore) GetMigration(ctx context.Context, db database.DBTxConn, version int64) (*database.GetMigrationResult, error) {
	cur, err := readVersion(ctx, db)
	if err != nil {
		return nil, err
	}
	if slices.Contains(s.applied(cur), version) {
		return &database.GetMigrationResult{IsApplied: true}, nil
	}
	return nil, database.ErrVersionNotFound
}

// GetLatestVersion returns the version in the row, 0 without one.
func (s *versionStore) GetLatestVersion(ctx context.Context, db database.DBTxConn) (int64, error) {
	return readVersion(ctx, db)
}

// ListMigrations returns the applied versions, newest first, ending with 0.
func (s *versionStore) ListMigrations(ctx context.Context, db database.DBTxConn) ([]*database.ListMigrationsResult, error) {
	cur, err := readVersion(ctx, db)
	if err != nil {
		return nil, err
	}
	var out []*database.ListMigrationsResult
	for _, v := range s.applied(cur) {
		out = append(out, &database.ListMigrationsResult{Version: v, IsApplied: true})
	}
	return out, nil
}

// SessionLock begins the session's transaction, waits for the advisory
// lock, creates schema_version if missing and runs the session's prepare
// step. On any failure the transaction is rolled back and nothing was
// written.
func (s *versionStore) SessionLock(ctx context.Context, conn *sql.Conn) error {
	s.mu.Lock()
	sess := s.next
	s.next = session{}
	s.mu.Unlock()

	if _, err := conn.ExecContext(ctx, sqlBegin); err != nil {
		return err
	}
	fail := func(err error) error {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), sqlRollback)
		return err
	}
	if _, err := conn.ExecContext(ctx, sqlLock); err != nil {
		return fail(fmt.Errorf("lock database for migration: %w", err))
	}
	if _, err := conn.ExecContext(ctx, sqlCreateVersionTable); err != nil {
		return fail(err)
	}
	if sess.prepare != nil {
		if err := sess.prepare(ctx, conn); err != nil {
			return fail(err)
		}
	}
	s.mu.Lock()
	s.active = &sess
	s.mu.Unlock()
	return nil
}

// SessionUnlock ends the session's transaction: a ROLLBACK when a statement
// failed in it (PostgreSQL marks the transaction aborted) or in a dry run,
// else a COMMIT. The advisory lock ends with it. A connection that was lost
// (a cancelled context closes pgx's connection) took its transaction with
// it: nothing was applied.
func (s *versionStore) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	s.mu.Lock()
	sess := s.active
	s.active = nil
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	status, err := txStatus(conn)
	if err != nil {
		return err
	}
	end := sqlCommit
	switch {
	case status == 'I':
		return nil // no transaction left to end
	case status != 'T' || sess.dryRun:
		end = sqlRollback
	}
	if _, err := conn.ExecContext(ctx, end); err != nil {
		_, _ = conn.ExecContext(ctx, sqlRollback)
		return fmt.Errorf("end migration session: %w", err)
	}
	return nil
}

// txStatus returns the server's transaction status as of the last message
// on conn, asking pgx itself: 'I' idle, 'T' in a transaction, 'E' in a
// failed (aborted) transaction. A closed connection reports 'I'. It fails when
// the driver is not pgx's.
func txStatus(conn *sql.Conn) (byte, error) {
	var st byte
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("pgmigrations: the database/sql driver must be pgx's stdlib, not %T", dc)
		}
		if c.Conn().IsClosed() {
			st = 'I'
			return nil
		}
		st = c.Conn().PgConn().TxStatus()
		return nil
	})
	return st, err
}

// ReadVersion returns the database's schema version from schema_version: 0
// when the table is missing or empty (a new database). It only reads.
func ReadVersion(ctx context.Context, q database.DBTxConn) (int64, error) {
	return readVersion(ctx, q)
}

func readVersion(ctx context.Context, db database.DBTxConn) (int64, error) {
	var exists bool
	if err := db.QueryRowContext(ctx, sqlVersionTableExists).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var v int64
	err := db.QueryRowContext(ctx, sqlGetVersion).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// setVersion stores v as the single version row; 0 removes the row.
func setVersion(ctx context.Context, db database.DBTxConn, v int64) error {
	if v <= 0 {
		_, err := db.ExecContext(ctx, sqlClearVersion)
		return err
	}
	res, err := db.ExecContext(ctx, sqlUpdateVersion, v)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	_, err = db.ExecContext(ctx, sqlInsertVersion, v)
	return err
}
