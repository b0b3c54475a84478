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

// jsonOrNullDDL2 creates hermes_json_or_null, the function the PostgreSQL
// queries read JSON through where SQLite's test json_valid before
// json_extract: the jsonb of a text, or NULL where the text is no JSON
// PostgreSQL accepts (a data exception: bad syntax, a \u0000 escape, a
// number out of range, or nesting past the stack limit), so that one
// malformed value never fails a statement. IMMUTABLE: the cast depends on
// nothing but its input. It is meant for the schema, the lead adds it
// there, until then applySchema2 creates it (CREATE OR REPLACE keeps that
// harmless once the schema has it).
const jsonOrNullDDL2 = `CREATE OR REPLACE FUNCTION hermes_json_or_null(t text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    RETURN t::jsonb;
EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
    RETURN NULL;
END
$$`

// schemaUp2 is the -- +goose Up section of the PostgreSQL v21 schema.
func schemaUp2(t testing.TB) string {
	t.Helper()
	b, err := pgmigrations.FS.ReadFile("00021_schema_v21.sql")
	if err != nil {
		t.Fatal(err)
	}
	_, up, ok := strings.Cut(string(b), "-- +goose Up\n")
	if !ok {
		t.Fatal("00021_schema_v21.sql has no -- +goose Up line")
	}
	up, _, ok = strings.Cut(up, "-- +goose Down")
	if !ok {
		t.Fatal("00021_schema_v21.sql has no -- +goose Down line")
	}
	return up
}

// applySchema2 runs the schema's Up section on conn (one simple-protocol
// Exec: pgx sends a statement without arguments that way, so the script
// may hold many statements), then jsonOrNullDDL2.
func applySchema2(t testing.TB, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	if _, err := conn.Exec(ctx, schemaUp2(t)); err != nil {
		t.Fatalf("apply the v21 schema: %v", err)
	}
	if _, err := conn.Exec(ctx, jsonOrNullDDL2); err != nil {
		t.Fatalf("create hermes_json_or_null: %v", err)
	}
}

// newPG2 connects to a new database of the test's own on the
// HERMESSTATE_TEST_PG server, holding the v21 schema (the test is skipped
// without a server, see pgtest).
func newPG2(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	applySchema2(t, ctx, conn)
	return conn
}

// newSQLite2 opens a new state file in t.TempDir() migrated to v21, as
// the store opens its writer.
func newSQLite2(t testing.TB) *sql.DB {
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
	pg := newPG2(t) // first: skips before any SQLite work without a server
	return pair2{lite: newSQLite2(t), pg: pg}
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
