package store

import (
	"context"

	"github.com/jackc/pgx/v5/stdlib"

	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

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
	v, err := pgmigrations.ReadVersionOf(ctx, s.pg)
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
