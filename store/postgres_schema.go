package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

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

// preparePostgres refuses a database without a UTF-8 encoding and ctype
// (ErrNotUTF8: trigram search finds nothing in CJK text there), then
// brings it to version 21 with the goose migrator of migrations/postgres
// (one transaction under an advisory lock: any number of hosts may open a
// new database at once) unless Options.SkipMigrations or ReadOnly, and
// refuses one a newer build wrote.
func (s *Store) preparePostgres(ctx context.Context) error {
	if err := pgmigrations.CheckUTF8(ctx, s.pg); err != nil {
		return classify(err)
	}
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
	sdb := stdlib.OpenDBFromPool(s.pg)
	defer sdb.Close()
	m, err := pgmigrations.New(sdb, &pgmigrations.Options{Logger: s.opts.Logger})
	if err != nil {
		return err
	}
	res, err := m.Up(ctx)
	return s.migrated(ctx, res, err)
}
