package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/mattn/go-sqlite3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// The version table is Hermes' own: one row, one integer, read by the Python
// original as SCHEMA_VERSION bookkeeping. goose reads and writes it through
// versionStore instead of keeping a goose_db_version table, so a file is at
// exactly one version that both implementations agree on. "No row" is version
// 0: the original treats such a file as fresh.
//
// These statements are hand-written because goose hands the store a
// database.DBTxConn, which has no PrepareContext and so cannot run sqlc's
// generated methods.
const (
	// The original's DDL, byte for byte, so sqlite_master reads the same.
	sqlCreateVersionTable = "CREATE TABLE IF NOT EXISTS schema_version (\n    version INTEGER NOT NULL\n)"
	sqlVersionTableExists = "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version')"
	// LIMIT 1 and an UPDATE without WHERE: what the original does, so a file
	// with stray extra rows reads and writes the same in both.
	sqlGetVersion    = "SELECT version FROM schema_version LIMIT 1"
	sqlUpdateVersion = "UPDATE schema_version SET version = ?"
	sqlInsertVersion = "INSERT INTO schema_version (version) VALUES (?)"
	sqlClearVersion  = "DELETE FROM schema_version"
)

// The migration session: goose runs every migration of one Up/Down call on one
// connection between SessionLock and SessionUnlock. SessionLock opens one
// BEGIN IMMEDIATE transaction, which is the cross-process lock (a second
// process, or upstream Hermes, waits for it) and makes the version goose
// reads under it current. Each migration runs inside a savepoint that Insert
// or Delete (called by goose right after the migration's statements) releases
// and re-opens; SessionUnlock rolls back to the savepoint, undoing a migration
// that failed half-way, and commits the completed ones: each migration is
// applied whole or not at all. goose is configured with WithIsolateDDL so that
// it never opens a transaction of its own inside ours. A Go migration's step
// (v16, v18, v20) runs in Insert or Delete too, on the session connection,
// before the version is recorded: goose itself runs none of it (see
// goMigration).
const (
	sqlBegin          = "BEGIN IMMEDIATE"
	sqlSavepoint      = "SAVEPOINT goose_migration"
	sqlRelease        = "RELEASE goose_migration"
	sqlRollbackToStep = "ROLLBACK TO goose_migration"
	sqlCommit         = "COMMIT"
	sqlRollback       = "ROLLBACK"
)

// session is what one provider call wants from the lock it takes.
type session struct {
	// dryRun rolls everything back at unlock.
	dryRun bool
	// prepare runs under the lock before goose reads the version: the
	// newer-schema check and the adoption of legacy files.
	prepare func(ctx context.Context, conn *sql.Conn) error
	// conn is the session's connection, set by SessionLock.
	conn *sql.Conn
}

// versionStore is goose's database.Store over schema_version and its
// lock.SessionLocker. The Migrator sets next before each provider call.
type versionStore struct {
	retry sqlite.Retry
	// env is what the Go migrations' data steps may read.
	env stepEnv

	mu     sync.Mutex
	next   session
	active *session
}

var (
	_ database.StoreExtender = (*versionStore)(nil)
	_ lock.SessionLocker     = (*versionStore)(nil)
)

// Tablename returns "schema_version".
func (s *versionStore) Tablename() string { return "schema_version" }

// CreateVersionTable creates schema_version when missing.
func (s *versionStore) CreateVersionTable(ctx context.Context, db database.DBTxConn) error {
	_, err := db.ExecContext(ctx, sqlCreateVersionTable)
	return err
}

// TableExists reports true: goose must not create the table on its own,
// outside the session transaction (a dry run would leave it behind). The
// session lock creates it inside its transaction, and every read treats a
// missing table as version 0.
func (s *versionStore) TableExists(context.Context, database.DBTxConn) (bool, error) {
	return true, nil
}

// Insert records that migration req.Version was applied: the single row now
// holds it. Version 0, which goose inserts when it creates the table, is the
// absence of a row. A Go migration's step runs here, first (see
// goMigration).
func (s *versionStore) Insert(ctx context.Context, db database.DBTxConn, req database.InsertRequest) error {
	if req.Version == 0 {
		return nil
	}
	db = s.sessionConn(db)
	if g := goMigrationAt(req.Version); g != nil {
		if err := s.runGo(db, func() error { return g.up(ctx, db, s.env) }); err != nil {
			return err
		}
	}
	if err := setVersion(ctx, db, req.Version); err != nil {
		return err
	}
	return s.stepDone(ctx, db)
}

// Delete records that migration version was rolled back: the row holds the
// version below it, or disappears at 0. A Go migration's down runs here,
// first.
func (s *versionStore) Delete(ctx context.Context, db database.DBTxConn, version int64) error {
	db = s.sessionConn(db)
	if g := goMigrationAt(version); g != nil {
		if err := s.runGo(db, func() error { return g.down(ctx, db) }); err != nil {
			return err
		}
	}
	if err := setVersion(ctx, db, version-1); err != nil {
		return err
	}
	return s.stepDone(ctx, db)
}

// sessionConn returns the connection of the active session, on which every
// statement of a migration runs: goose passes its pool to the store after a
// Go migration, and the pool's one connection is the session's (waiting for
// it would never end). Outside a session it returns db.
func (s *versionStore) sessionConn(db database.DBTxConn) database.DBTxConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil && s.active.conn != nil {
		return s.active.conn
	}
	return db
}

// runGo runs a Go migration's step, which only the migration session may
// run: outside one (db is not the session's connection) it fails.
func (s *versionStore) runGo(db database.DBTxConn, step func() error) error {
	if _, ok := db.(*sql.Conn); !ok {
		return errOutsideSession
	}
	return step()
}

// GetMigration reports every version from 0 to the current one as applied and
// any other as database.ErrVersionNotFound. The table keeps no timestamps.
func (s *versionStore) GetMigration(ctx context.Context, db database.DBTxConn, version int64) (*database.GetMigrationResult, error) {
	cur, err := readVersion(ctx, db)
	if err != nil {
		return nil, err
	}
	if version < 0 || version > cur {
		return nil, database.ErrVersionNotFound
	}
	return &database.GetMigrationResult{IsApplied: true}, nil
}

// GetLatestVersion returns the version in the row, 0 without one.
func (s *versionStore) GetLatestVersion(ctx context.Context, db database.DBTxConn) (int64, error) {
	return readVersion(ctx, db)
}

// ListMigrations returns versions current…0, newest first: the versions are
// contiguous, so one number says which are applied.
func (s *versionStore) ListMigrations(ctx context.Context, db database.DBTxConn) ([]*database.ListMigrationsResult, error) {
	cur, err := readVersion(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make([]*database.ListMigrationsResult, 0, cur+1)
	for v := cur; v >= 0; v-- {
		out = append(out, &database.ListMigrationsResult{Version: v, IsApplied: true})
	}
	return out, nil
}

// SessionLock begins the session's IMMEDIATE transaction, retrying while
// another connection holds the write lock, creates schema_version if missing,
// runs the session's prepare step and opens the first savepoint.
func (s *versionStore) SessionLock(ctx context.Context, conn *sql.Conn) error {
	s.mu.Lock()
	sess := s.next
	s.next = session{}
	s.mu.Unlock()

	err := s.retry.Do(ctx, func(ctx context.Context) error {
		_, err := conn.ExecContext(ctx, sqlBegin)
		return err
	})
	if err != nil {
		return fmt.Errorf("lock database for migration: %w", sqlite.Classify(err))
	}
	if _, err := conn.ExecContext(ctx, sqlCreateVersionTable); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), sqlRollback)
		return err
	}
	if sess.prepare != nil {
		if err := sess.prepare(ctx, conn); err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), sqlRollback)
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, sqlSavepoint); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), sqlRollback)
		return err
	}
	sess.conn = conn
	s.mu.Lock()
	s.active = &sess
	s.mu.Unlock()
	return nil
}

// SessionUnlock undoes a migration left half-done, then commits the session
// (or rolls it all back in a dry run).
func (s *versionStore) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	s.mu.Lock()
	sess := s.active
	s.active = nil
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	inTx, err := inTransaction(conn)
	if err != nil || !inTx {
		// SQLite already rolled the whole transaction back (after an I/O or
		// full-disk error): nothing was applied.
		return err
	}
	end := sqlCommit
	if sess.dryRun {
		end = sqlRollback
	}
	for _, stmt := range []string{sqlRollbackToStep, sqlRelease, end} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			_, _ = conn.ExecContext(ctx, sqlRollback)
			return fmt.Errorf("end migration session: %w", err)
		}
	}
	return nil
}

// stepDone makes the migration just recorded permanent within the session by
// releasing its savepoint and opening the next one. Outside a session (goose
// creating the version table) there is no savepoint.
func (s *versionStore) stepDone(ctx context.Context, db database.DBTxConn) error {
	s.mu.Lock()
	active := s.active != nil
	s.mu.Unlock()
	if !active {
		return nil
	}
	if _, err := db.ExecContext(ctx, sqlRelease); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, sqlSavepoint)
	return err
}

// inTransaction reports whether conn is inside a transaction, asking SQLite
// itself (sqlite3_get_autocommit).
func inTransaction(conn *sql.Conn) (bool, error) {
	var inTx bool
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		inTx = !c.AutoCommit()
		return nil
	})
	return inTx, err
}

// ReadVersion returns the database's schema version from schema_version: 0
// when the table is missing or empty (a new file). It only reads.
func ReadVersion(ctx context.Context, q database.DBTxConn) (int64, error) {
	return readVersion(ctx, q)
}

// readVersion returns the version in schema_version: 0 when the table is
// missing or empty.
func readVersion(ctx context.Context, db database.DBTxConn) (int64, error) {
	v, _, err := readVersionRow(ctx, db)
	return v, err
}

// readVersionRow returns the version in schema_version and whether there is
// a row at all: the original treats a file without one as new.
func readVersionRow(ctx context.Context, db database.DBTxConn) (v int64, hasRow bool, err error) {
	var exists bool
	if err := db.QueryRowContext(ctx, sqlVersionTableExists).Scan(&exists); err != nil {
		return 0, false, sqlite.Classify(err)
	}
	if !exists {
		return 0, false, nil
	}
	err = db.QueryRowContext(ctx, sqlGetVersion).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return v, err == nil, sqlite.Classify(err)
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
