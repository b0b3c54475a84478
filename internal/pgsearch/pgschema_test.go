package pgsearch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// newPG is a connection to a fresh PostgreSQL database holding the v21
// schema (the "-- +goose Up" section of the schema file), closed when the
// test ends.
func newPG(t testing.TB) *pgx.Conn {
	t.Helper()
	b, err := pgmigrations.FS.ReadFile("00021_schema_v21.sql")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	up, down := strings.Index(s, "-- +goose Up"), strings.Index(s, "-- +goose Down")
	if up < 0 || down < up {
		t.Fatal("00021_schema_v21.sql: no goose Up/Down sections")
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	// A parameterless Exec runs the many statements through the simple
	// protocol.
	if _, err := c.Exec(ctx, s[up:down]); err != nil {
		t.Fatalf("apply the PostgreSQL schema: %v", err)
	}
	return c
}
