package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// listCommand is "sessions list": the session list as the original's
// list_sessions_rich returns it.
var listCommand = command{
	name:    "list",
	args:    "[--source S] [--exclude-source S]... [--limit N] [--offset N] [--all]",
	summary: "List sessions, newest first: title, preview, last activity, message count, source, model",
	setup: func(fs *flag.FlagSet) action {
		var (
			opts    store.ListOptions
			exclude stringList
		)
		fs.StringVar(&opts.Source, "source", "", "only sessions of this `source` (cli, telegram, ...)")
		fs.Var(&exclude, "exclude-source", "leave out this `source` (repeatable)")
		fs.IntVar(&opts.Limit, "limit", 20, "at most `N` sessions")
		fs.IntVar(&opts.Offset, "offset", 0, "skip the first `N` sessions")
		fs.BoolVar(&opts.IncludeChildren, "all", false, "list every session, subagent and compression children included")
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			if err := checkPage(opts.Limit, opts.Offset); err != nil {
				return err
			}
			opts.ExcludeSources = exclude
			return withStore(ctx, e, true, func(s *store.Store) error {
				rows, err := s.ListSessionsRich(ctx, opts)
				if err != nil {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, rows)
				}
				return printSessionList(e, rows)
			})
		}
	},
}

// printSessionList prints the list as a table. An empty list prints
// nothing on standard output, for scripts, and "No sessions found." on
// standard error when that is a terminal.
func printSessionList(e *env, rows []store.RichSession) error {
	if len(rows) == 0 {
		sayNothing(e, "No sessions found.")
		return nil
	}
	var t table
	t.row("ID", "TITLE", "PREVIEW", "LAST ACTIVE", "MSGS", "SOURCE", "MODEL")
	for _, r := range rows {
		t.row(cell(r.ID), cell(deref(r.Title)), cell(r.Preview), localTime(r.LastActive, minuteLayout),
			formatInt(r.MessageCount), cell(r.Source), cell(deref(r.Model)))
	}
	return t.write(e.stdout)
}

// checkPage rejects a limit below 1 or a negative offset.
func checkPage(limit, offset int) error {
	if limit < 1 {
		return cli.Usagef("--limit must be at least 1, got %d", limit)
	}
	if offset < 0 {
		return cli.Usagef("--offset must not be negative, got %d", offset)
	}
	return nil
}

// sayNothing tells a person at a terminal that a listing is empty, on
// standard error: standard output stays empty for scripts.
func sayNothing(e *env, msg string) {
	if e.stderrIsTerminal {
		fmt.Fprintln(e.stderr, msg)
	}
}
