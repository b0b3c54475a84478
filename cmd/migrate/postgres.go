package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/hermesstate/hermesstate/migrations"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// isPostgres reports whether the -db value is a PostgreSQL URL
// (postgres:// or postgresql://, the schemes libpq and pgx accept).
func isPostgres(db string) bool {
	l := strings.ToLower(db)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// redact returns the URL as migrate prints it: without its password.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "the -db URL" // unparseable: print none of it
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// runPostgres runs the command on the PostgreSQL database the -db URL
// names, through pgmigrations: the same commands, output and last lines as
// on a SQLite file. The database must exist (nothing creates one);
// -hermes-home has no use there (the v18 step is SQLite's) and is ignored.
func runPostgres(ctx context.Context, o options, stdout, stderr io.Writer) error {
	name := redact(o.path)
	db, err := sql.Open("pgx", o.path)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("connect %s: %w", name, err)
	}
	logger := slog.New(slog.DiscardHandler)
	if o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	m, err := pgmigrations.New(db, &pgmigrations.Options{DryRun: o.dryRun, Logger: logger})
	if err != nil {
		return err
	}
	v, err := m.Version(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	switch o.command {
	case "version":
		fmt.Fprintln(stdout, v)
		return nil
	case "status":
		if err := printStatus(stdout, pgmigrations.Statuses(v)); err != nil {
			return err
		}
		printVersionLine(stdout, v)
		return nil
	}
	if v > migrations.Latest {
		return refuseNewerAt(name, o, v, stdout)
	}
	if err := execute(ctx, m, o, stdout); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return db.Close()
}
