package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// Hand-written: the version bookkeeping is outside sqlc's queries on both
// engines (goose's Store owns it); schema_version has one row.
const (
	pgVersionTableSQL = `SELECT to_regclass('schema_version') IS NOT NULL`
	pgVersionSQL      = `SELECT version FROM schema_version LIMIT 1`
)

// pgSchemaVersion reads schema_version: 0 for a database without the
// table or its row.
func pgSchemaVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int64, error) {
	var exists bool
	if err := q.QueryRow(ctx, pgVersionTableSQL).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var v int64
	err := q.QueryRow(ctx, pgVersionSQL).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// preparePostgres brings the database to version 21 unless
// Options.SkipMigrations or ReadOnly, and refuses one a newer build wrote.
func (s *Store) preparePostgres(ctx context.Context) error {
	v, err := pgSchemaVersion(ctx, s.pg)
	if err != nil {
		return classify(err)
	}
	switch {
	case v > SchemaVersionLatest && !s.opts.WriteNewerSchema && !s.opts.ReadOnly:
		return newerSchemaError(v)
	case v < SchemaVersionLatest && s.opts.ReadOnly:
		return olderSchemaError(s.path, v)
	case v >= SchemaVersionLatest || s.opts.SkipMigrations || s.opts.ReadOnly:
		return nil
	}
	return pgMigrateUp(ctx, s.pg)
}

// pgMigrateUp applies the embedded schema in one transaction under an
// advisory lock. (Stand-in until the goose migrator of migrations/postgres
// lands.)
func pgMigrateUp(ctx context.Context, pool *pgxpool.Pool) error {
	b, err := pgmigrations.FS.ReadFile("00021_schema_v21.sql")
	if err != nil {
		return err
	}
	up := string(b)
	up = up[strings.Index(up, "-- +goose Up"):strings.Index(up, "-- +goose Down")]
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7235102)"); err != nil {
		return err
	}
	if v, err := pgSchemaVersion(ctx, tx); err != nil || v >= SchemaVersionLatest {
		return err
	}
	if _, err := tx.Exec(ctx, up); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO schema_version (version) VALUES (21)"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
