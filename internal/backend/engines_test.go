package backend_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// newPG returns a connection, in pgx's exec mode mode, to a new database
// of the test's own migrated to v21 by the goose migrator of
// migrations/postgres (pgtest.Migrated: a copy of a template built once),
// closed before pgtest drops the database.
func newPG(t testing.TB, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.Migrated(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	ctx := context.Background()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

// newSQLite opens a new state file in t.TempDir() migrated to v21, as
// the store opens its writer.
func newSQLite(t testing.TB) *sql.DB {
	t.Helper()
	ctx := context.Background()
	file, err := sqlite.OpenWriter(ctx, filepath.Join(t.TempDir(), "state.db"), sqlite.Config{Retry: sqlite.DefaultRetry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	m, err := migrations.New(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("migrate to v21: %v", err)
	}
	return file
}

// pair2 is the same rows in both engines: a SQLite file and a PostgreSQL
// database.
type pair2 struct {
	lite *sql.DB
	pg   *pgx.Conn
}

// newPair2 returns two new databases, each at v21.
func newPair2(t testing.TB) pair2 {
	t.Helper()
	pg := newPG(t, pgx.QueryExecModeCacheStatement) // first: skips before any SQLite work without a server
	return pair2{lite: newSQLite(t), pg: pg}
}

// exec runs each statement, written in the SQL both engines take (plain
// INSERTs and UPDATEs of literals), on both databases.
func (p pair2) exec(t testing.TB, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	for _, s := range stmts {
		if _, err := p.lite.ExecContext(ctx, s); err != nil {
			t.Fatalf("sqlite: %s: %v", s, err)
		}
		if _, err := p.pg.Exec(ctx, s); err != nil {
			t.Fatalf("postgres: %s: %v", s, err)
		}
	}
}
