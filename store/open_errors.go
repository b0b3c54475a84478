package store

import (
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/dbpath"
	"github.com/hermesstate/hermesstate/migrations"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// The files Open refuses for what they are rather than for damage.
var (
	// ErrNewerSchema is returned by Open for a file whose schema_version is
	// above SchemaVersionLatest (a newer Hermes wrote it), unless it is
	// opened with Options.ReadOnly (every read works) or
	// Options.WriteNewerSchema. Nothing was written: the version is read
	// before anything can write, and the file stays byte for byte as it
	// was.
	ErrNewerSchema = migrations.ErrNewerSchema

	// ErrOlderSchema is returned by Open with Options.ReadOnly for a file
	// below SchemaVersionLatest: a read-only store cannot migrate it, and
	// its reads would fail on the columns it lacks. The message names the
	// version and the command that upgrades it (migrate -db PATH up).
	ErrOlderSchema = errors.New("database schema is older than this build")

	// ErrNoDirectory is returned by Open for an explicit path whose
	// directory does not exist ("no such directory: DIR"): only the default
	// location's directories are created. Backup returns it for a target
	// in a missing directory. Nothing is created.
	ErrNoDirectory = dbpath.ErrNoDirectory

	// ErrURL is returned by Open for a path that is a URL of a scheme
	// other than postgres:// and postgresql:// (those open PostgreSQL).
	// Nothing is created.
	ErrURL = dbpath.ErrURL

	// ErrInvalidURL is returned by Open for a postgres:// URL that pgx
	// cannot parse.
	ErrInvalidURL = errors.New("invalid PostgreSQL URL")

	// ErrNotUTF8 is returned by Open for a PostgreSQL database whose
	// encoding or ctype is not UTF-8: pg_trgm finds no trigrams in CJK
	// text there, so trigram and short-CJK searches would find nothing.
	// Create the database with ENCODING 'UTF8' LC_CTYPE 'C.UTF-8'.
	ErrNotUTF8 = pgmigrations.ErrNotUTF8

	// ErrNotSupported is returned on PostgreSQL by the operations that
	// only mean something for a SQLite file (Checkpoint, Pages, Backup:
	// use pg_dump, …).
	ErrNotSupported = errors.New("not supported on PostgreSQL")
)

// newerSchemaError is ErrNewerSchema for a file at version v; Open names
// the file.
func newerSchemaError(v int64) error {
	return fmt.Errorf("%w: the file is at schema version %d, this build's latest is %d (a newer Hermes wrote it); nothing was changed. "+
		"Read it with Options.ReadOnly or the sessions reading commands (list, show, search, lineage, export, stats, doctor)",
		ErrNewerSchema, v, SchemaVersionLatest)
}

// olderSchemaError is ErrOlderSchema for the file at path, at version v.
func olderSchemaError(path string, v int64) error {
	return fmt.Errorf("%w: the file is at schema version %d, this build reads %d; upgrade it first: migrate -db %s up",
		ErrOlderSchema, v, SchemaVersionLatest, path)
}
