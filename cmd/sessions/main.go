// Command sessions is the operator's view of the Hermes state database: what
// sessions exist, what was said, where a topic came up, how many tokens went
// where, whether the file is healthy; and it moves history between machines.
//
//	sessions [-db PATH] [--json] COMMAND [FLAGS] [ARGS]
//
// Commands:
//
//	list      the session list: title, preview, last activity, counts
//	show      one session (by id, unique id prefix or title) and its messages
//	search    full-text search over messages, with snippets and context
//	lineage   a session's ancestors and descendants as a tree
//	export    sessions with their messages as JSON Lines
//	import    read what export wrote (or the original's export_all output)
//	prune     delete ended sessions older than a given age
//	vacuum    rebuild the file, returning free pages to the filesystem
//	backup    a consistent copy of the live database
//	stats     token and cost totals by model or source
//	doctor    check the file: schema, integrity, search indexes, counters
//
// The database is PATH, else $HERMES_HOME/state.db when HERMES_HOME is set,
// else ~/.hermes/state.db, exactly as for cmd/migrate. Only import creates a
// missing file; the reading commands open the file read-only and never
// migrate it. Flags may come before or after the arguments.
//
// Output is quiet: results only, times in the local zone. --json prints the
// original SessionDB's key names and value types (one JSON document; export
// always writes JSON Lines), so a script written against the Python original
// reads it unchanged.
//
// Exit status: 0 on success, 1 on failure (one line on standard error), 2 on
// a usage error; doctor exits 1 when it finds problems and 2 when it cannot
// check the file. Build with -tags sqlite_fts5.
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
	code := cli.Exit("sessions", usageSummary, run(ctx, os.Args[1:], newEnv(os.Stdout, os.Stderr)), os.Stderr)
	stop()
	os.Exit(code)
}
