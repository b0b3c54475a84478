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

// totalDDL1 is hermes_total(double precision), the aggregate the twins of
// SessionTokenStatsByModel, SessionTokenStatsBySource and UsageByModel
// call where SQLite calls TOTAL() over REALs: SQLite's
// Kahan-Babuska-Neumaier sum (func.c kahanBabuskaNeumaierStep, from 0.0,
// the error term added at the end unless it is infinite or NaN), so that
// 0.1 + 0.2 + 0.3 is 0.6 on both where SUM gives 0.6000000000000001.
// NULLs are skipped (the step is STRICT) and no rows give 0.0, as
// TOTAL's. Hand-written DDL for 00021_schema_v21.sql, as jsonOrNullDDL1.
const totalDDL1 = `CREATE OR REPLACE FUNCTION hermes_total_step(state double precision[], x double precision)
RETURNS double precision[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ARRAY[t, state[2] + CASE WHEN abs(state[1]) > abs(x)
        THEN (state[1] - t) + x ELSE (x - t) + state[1] END]
    FROM (SELECT state[1] + x AS t) s
$$;
CREATE OR REPLACE FUNCTION hermes_total_final(state double precision[])
RETURNS double precision LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN state[2] IN ('Infinity', '-Infinity', 'NaN') THEN state[1]
        ELSE state[1] + state[2] END
$$;
CREATE OR REPLACE AGGREGATE hermes_total(double precision) (
    SFUNC = hermes_total_step, STYPE = double precision[],
    FINALFUNC = hermes_total_final, INITCOND = '{0,0}'
)`

// newPG1 returns a connection (in the given exec mode) to a new database
// of the test's own that
// holds the v21 schema (and hermes_json_or_null and hermes_total), closed before pgtest
// drops the database.
func newPG1(t *testing.T, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.NewDatabase(t))
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
	applySchema1(t, c)
	return c
}

// applySchema1 runs the -- +goose Up section of 00021_schema_v21.sql, as
// goose would, then jsonOrNullDDL1 and totalDDL1. Exec without arguments uses the simple
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
	if _, err := c.Exec(ctx, totalDDL1); err != nil {
		t.Fatalf("create hermes_total: %v", err)
	}
}
