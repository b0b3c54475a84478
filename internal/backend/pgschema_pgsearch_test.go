package backend_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// pgSchemaUpS is the "-- +goose Up" section of the PostgreSQL v21 schema
// file (up to its "-- +goose Down" line).
func pgSchemaUpS(t testing.TB) string {
	t.Helper()
	b, err := pgmigrations.FS.ReadFile("00021_schema_v21.sql")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	up := strings.Index(s, "-- +goose Up")
	down := strings.Index(s, "-- +goose Down")
	if up < 0 || down < up {
		t.Fatal("00021_schema_v21.sql: no goose Up/Down sections")
	}
	return s[up:down]
}

// newPGS is a connection to a fresh PostgreSQL database holding the v21
// schema; it is closed when the test ends.
func newPGS(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	// The schema file is many statements: pgx runs a parameterless Exec
	// through the simple protocol, which takes them all.
	if _, err := c.Exec(ctx, pgSchemaUpS(t)); err != nil {
		t.Fatalf("apply the PostgreSQL schema: %v", err)
	}
	return c
}

// newSQLiteS is a SQLite file in t.TempDir migrated to v21, through the
// writer connection the store uses.
func newSQLiteS(t testing.TB) *sql.DB {
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
		t.Fatalf("migrate: %v", err)
	}
	return file
}
