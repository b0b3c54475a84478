package pgtest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for the Migrator

	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// templateRev is part of the template database's name: bump it when the
// Migrator's own DDL (the version table) changes, which the embedded
// migration files' hash does not see.
const templateRev = "1"

var template struct {
	once sync.Once
	name string
	err  error
}

// Migrated creates a database of the test's own at schema version 21 (the
// embedded PostgreSQL migrations, applied by pgmigrations.Migrator) and
// returns its URL; it is dropped when the test ends. The migrated schema is
// built once, into a template database named after the migrations' hash,
// and each call copies it (CREATE DATABASE … TEMPLATE, a file copy: tens of
// milliseconds instead of running the DDL). The template is kept on the
// server for the next run; a changed migration gets a template of its own.
// It skips or fails as [ServerDSN] does.
func Migrated(t testing.TB) string {
	t.Helper()
	server := ServerDSN(t)
	template.once.Do(func() { template.name, template.err = ensureTemplate(server) })
	if template.err != nil {
		t.Fatalf("pgtest: migrated template database: %v", template.err)
	}
	return createDatabase(t, server, template.name, "UTF8", "C.UTF-8")
}

// ensureTemplate returns the name of the migrated template database on
// server, building it when missing. Several processes may build it at once:
// each builds its own under a random name and renames it to the shared one;
// a rename that loses (42P04 or 23505) drops its copy. Nobody
// ever connects to the shared one, which CREATE DATABASE … TEMPLATE needs.
func ensureTemplate(server string) (string, error) {
	h := sha256.New()
	h.Write([]byte(templateRev))
	err := fs.WalkDir(pgmigrations.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(pgmigrations.FS, p)
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", err
	}
	name := "hermestmpl_" + hex.EncodeToString(h.Sum(nil)[:8])
	ctx := context.Background()
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	var exists bool
	// Hand-written: a catalogue lookup of the test server, no store query.
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil || exists {
		return name, err
	}
	build := randomName("hermestmplbuild_")
	// Hand-written, as in createDatabase.
	if _, err := c.Exec(ctx, "CREATE DATABASE "+build+" TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE 'C.UTF-8' LC_COLLATE 'C.UTF-8'"); err != nil {
		return "", err
	}
	drop := func() { _, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+build+" WITH (FORCE)") }
	if err := migrate(ctx, server, build); err != nil {
		drop()
		return "", err
	}
	_, err = c.Exec(ctx, "ALTER DATABASE "+build+" RENAME TO "+name)
	var pgErr *pgconn.PgError
	// 42P04 when the other rename committed before this one began, 23505
	// (pg_database's unique name index) when both were under way.
	if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") {
		drop() // another process got there first: use its template
		return name, nil
	}
	if err != nil {
		drop()
		return "", err
	}
	return name, nil
}

// migrate brings database name on server to the latest version with the
// Migrator, and closes every connection to it.
func migrate(ctx context.Context, server, name string) error {
	u, err := dbURL(server, name)
	if err != nil {
		return err
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := pgmigrations.New(db, nil)
	if err != nil {
		return err
	}
	if _, err := m.Up(ctx); err != nil {
		return err
	}
	return db.Close()
}
