// Command migrate creates or upgrades the Hermes state database and moves it
// between schema versions.
//
//	migrate [-db PATH] [-hermes-home DIR] [-dry-run] [-v] COMMAND [N]
//
// Commands:
//
//	up          bring the file to version 21 exactly as upstream Hermes
//	            (c2a3b9ce5) does (a missing file is created with its v21
//	            schema; an older one gets what upstream makes of it); on a
//	            current file, add whatever it lacks (the reconcile)
//	up-to N     apply the goose migrations one by one up to version N
//	down        roll back the latest migration
//	down-to N   roll back every migration above version N (0: all of them)
//	redo        roll back the latest migration and apply it again
//	status      list every migration, applied or pending
//	version     print the database's schema version
//
// The database is PATH, else $HERMES_HOME/state.db when HERMES_HOME is set,
// else ~/.hermes/state.db. Only the default location's directories are
// created (0700); a PATH in a directory that does not exist fails with "no
// such directory: DIR", and a PATH that is any other URL (mysql://…) is a
// usage error: nothing is created. When up creates the file it says so first
// ("created new database PATH"). The file is opened exactly as the store
// opens it (WAL, foreign keys, busy timeout, synchronous=FULL). -dry-run
// (up, up-to, down, down-to) runs the migrations in a transaction that is
// rolled back: the output says what would change, the file does not.
//
// A file migrated from below version 18 gets its gateway sessions' metadata
// from DIR/sessions/sessions.json, as upstream does on its first open: DIR
// is -hermes-home, else $HERMES_HOME, else ~/.hermes, wherever the database
// is (upstream reads its HERMES_HOME, not the database's directory). Without
// that file nothing is copied.
//
// A database written by a newer Hermes (schema version above 21) is never
// written, nor are -wal/-shm files left beside it: up prints one line saying
// so and exits 0 (a rolled-back deploy does not fail), up-to, down, down-to
// and redo fail, status and version report it. (Upstream opens such a file
// and writes to it; this build refuses it, on purpose.)
//
// PATH may be a PostgreSQL URL instead (postgres://… or postgresql://…,
// as pgx and libpq read it): the commands and their output are the same,
// run by migrations/postgres (pgmigrations) on that database, which must
// exist. Each command is one transaction holding the database's migration
// advisory lock, so any number of hosts may run migrate up at once. The
// PostgreSQL schema has one migration, version 21: down goes to 0, up-to
// below 21 has nothing to apply. A database that is not UTF-8 (encoding
// and LC_CTYPE) is refused. Printed URLs never show the password.
// -hermes-home is ignored there (the v18 step is SQLite's).
//
// It links the migrations and internal/sqlite, never the store's API or its
// generated queries (a test checks), and holds no SQL of its own.
//
// -version prints the build, the linked SQLite and the schema version.
// Exit status: 0 on success, 1 on failure (one line on standard error), 2 on
// a usage error (the message, then the short usage). Build with
// -tags sqlite_fts5.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/hermesstate/hermesstate/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Exit("migrate", usageSummary, run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// usageSummary is the line printed after a usage error.
const usageSummary = "usage: migrate [-db PATH] [-dry-run] [-v] up|up-to N|down|down-to N|redo|status|version (-h for help, -version)"
