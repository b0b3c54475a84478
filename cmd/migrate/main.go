// Command migrate creates or upgrades the Hermes state database and moves it
// between schema versions.
//
//	migrate [-db PATH] [-dry-run] [-v] COMMAND [N]
//
// Commands:
//
//	up          apply every pending migration, then add anything the
//	            schema declares and the file lacks (the reconcile)
//	up-to N     apply the pending migrations up to version N
//	down        roll back the latest migration
//	down-to N   roll back every migration above version N (0: all of them)
//	redo        roll back the latest migration and apply it again
//	status      list every migration, applied or pending
//	version     print the database's schema version
//
// The database is PATH, else $HERMES_HOME/state.db when HERMES_HOME is set,
// else ~/.hermes/state.db; missing parent directories are created. The file is
// opened exactly as the store opens it (WAL, foreign keys, busy timeout,
// synchronous=FULL). -dry-run (up, up-to, down, down-to) runs the migrations in
// a transaction that is rolled back: the output says what would change, the
// file does not. A database written by a newer Hermes is refused, untouched.
//
// Exit status: 0 on success, 1 on failure (one line on standard error), 2 on
// a usage error. Build with -tags sqlite_fts5.
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
const usageSummary = "usage: migrate [-db PATH] [-dry-run] [-v] up|up-to N|down|down-to N|redo|status|version (-h for help)"
