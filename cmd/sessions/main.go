// Command sessions is the operator's view of the Hermes state database: what
// sessions exist, what was said, where a topic came up, how many tokens went
// where, whether the file is healthy; it moves history between machines,
// and deletes what is no longer wanted.
//
//	sessions [-db PATH] [--json] COMMAND [FLAGS] [ARGS]
//
// Commands:
//
//	list       the session list: title, preview, last activity, counts;
//	           --all adds archived sessions and every child, flagged
//	show       one session (by id, unique id prefix or title) and its
//	           messages; --all adds the rewound and compacted ones, marked
//	search     full-text search over messages, with snippets and context
//	lineage    a session's ancestors and descendants as a tree
//	export     sessions with their (live) messages as JSON Lines
//	import     read what export wrote (or the original's export_all output)
//	prune      delete ended sessions older than a given age
//	delete     delete sessions by id, unique id prefix or title
//	archive    archive sessions with their compression lineages (unarchive:
//	           the reverse); nothing is deleted
//	rename     set or change a session's title
//	vacuum     rebuild the file, returning free pages to the filesystem
//	backup     a consistent copy of the live database
//	stats      token, call and cost totals per model (session_model_usage)
//	           or per source
//	doctor     check the file: schema, integrity, search indexes, counters
//	help       the commands, or one command's flags
//	version    the command's, SQLite's and the schema's versions (also --version)
//
// The database is PATH, else $HERMES_HOME/state.db when HERMES_HOME is set,
// else ~/.hermes/state.db, exactly as for cmd/migrate. Only import creates a
// missing file; the reading commands open the file read-only and never
// migrate it. Flags may come before or after the arguments.
//
// prune and delete show what they will delete and ask y/N when standard
// input is a terminal; --yes deletes without asking, and without a terminal
// they refuse unless given --yes. export -o and backup write a new file
// whole or not at all, and replace an existing regular file only with
// --force.
//
// It works through the store's API alone: it has no SQL of its own and
// never opens the database by other means (internal/publish writes its
// output files, internal/cli holds what it shares with cmd/migrate).
//
// Output is quiet: results only, times in the local zone. --json prints the
// original SessionDB's key names and value types (one JSON document; export
// always writes JSON Lines), so a script written against the Python original
// reads it unchanged: list rows as list_sessions_rich returns them, show as
// get_session with get_messages_as_conversation (--raw: export_session),
// search results as search_messages, export lines as export_all, at schema
// v21 (TestJSONIsUpstreams holds them against upstream's answers).
//
// What the default views hide, as upstream's do, is shown on request and
// flagged: list --all lists archived sessions, delegates (subagent runs),
// compression continuations and other children with a FLAGS column; show
// counts a session's rewound and compacted messages in its header and
// --all shows them, each marked; search --all finds rewound messages.
//
// Exit status: 0 on success, 1 on failure (one line on standard error), 2 on
// a usage error (and for prune or delete without a terminal or --yes);
// doctor exits 1 when it finds problems and 2 when it cannot check the file.
// SIGINT and SIGTERM stop a command cleanly (no partial file, no half
// transaction) with 130 and 143. Build with -tags sqlite_fts5.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hermesstate/hermesstate/internal/cli"
)

func main() {
	ctx, stop := signalContext()
	err := run(ctx, os.Args[1:], newEnv(os.Stdin, os.Stdout, os.Stderr))
	var sig signalCause
	if err != nil && errors.As(context.Cause(ctx), &sig) {
		// The command stopped because of the signal: say so, whatever
		// error the cancellation surfaced as.
		err = &cli.ExitError{Code: 128 + int(sig.sig), Err: fmt.Errorf("stopped by %s", sig)}
	}
	code := cli.Exit("sessions", usageSummary, err, os.Stderr)
	stop()
	os.Exit(code)
}

// signalCause is the cause of ctx's cancellation when SIGINT or SIGTERM
// arrived.
type signalCause struct{ sig syscall.Signal }

func (s signalCause) Error() string {
	if s.sig == syscall.SIGINT {
		return "SIGINT"
	}
	return "SIGTERM"
}

// signalContext returns a context cancelled, with a signalCause, by the
// first SIGINT or SIGTERM; later ones are ignored until stop, so that the
// command cleans up (removes its temporary file, rolls back) and exits by
// itself.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		if s, ok := <-sigs; ok {
			cancel(signalCause{s.(syscall.Signal)})
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}
