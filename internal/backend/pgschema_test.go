package backend_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// jsonOrNullDDL1 is hermes_json_or_null, the function the PostgreSQL twins
// of SessionImportRecount and SessionDelegateTags call where SQLite calls
// json_valid: text as jsonb, or NULL where PostgreSQL cannot read it as
// JSON (PostgreSQL 15 has neither IS JSON nor pg_input_is_valid, and a
// cast that fails would fail the whole statement). The caught codes are
// what jsonb input raises: 22P02 bad syntax or a lone surrogate escape,
// 22P05 a \u0000 escape, 54000 a value past jsonb's size limits, 54001
// nesting deeper than the stack allows. Hand-written DDL: it belongs in
// 00021_schema_v21.sql, which the lead owns, so tests create it until it
// is there.
const jsonOrNullDDL1 = `CREATE OR REPLACE FUNCTION hermes_json_or_null(t text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
    RETURN t::jsonb;
EXCEPTION WHEN invalid_text_representation OR untranslatable_character
    OR program_limit_exceeded OR statement_too_complex THEN
    RETURN NULL;
END
$$`

// newPG1 returns a connection to a new database of the test's own that
// holds the v21 schema (and hermes_json_or_null), closed before pgtest
// drops the database.
func newPG1(t *testing.T) *pgx.Conn {
	t.Helper()
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	applySchema1(t, c)
	return c
}

// applySchema1 runs the -- +goose Up section of 00021_schema_v21.sql, as
// goose would, then jsonOrNullDDL1. Exec without arguments uses the simple
// protocol, which runs several statements in one call.
func applySchema1(t *testing.T, c *pgx.Conn) {
	t.Helper()
	b, err := fs.ReadFile(pgmigrations.FS, "00021_schema_v21.sql")
	if err != nil {
		t.Fatal(err)
	}
	_, up, ok := strings.Cut(string(b), "-- +goose Up\n")
	if !ok {
		t.Fatal("00021_schema_v21.sql has no -- +goose Up")
	}
	up, _, ok = strings.Cut(up, "-- +goose Down\n")
	if !ok {
		t.Fatal("00021_schema_v21.sql has no -- +goose Down")
	}
	ctx := context.Background()
	if _, err := c.Exec(ctx, up); err != nil {
		t.Fatalf("apply the v21 schema: %v", err)
	}
	if _, err := c.Exec(ctx, jsonOrNullDDL1); err != nil {
		t.Fatalf("create hermes_json_or_null: %v", err)
	}
}
