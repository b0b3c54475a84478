package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// listCommand is "sessions list": the session list as the original's
// list_sessions_rich returns it.
var listCommand = command{
	name:    "list",
	args:    "[--source S] [--exclude-source S]... [--limit N] [--offset N] [--all] [--archived]",
	summary: "List sessions, newest first: title, preview, last activity, message count, source, model, and flags (archived, delegate, branch, continuation, child)",
	setup: func(fs *flag.FlagSet) action {
		var (
			opts     store.ListOptions
			exclude  stringList
			all      bool
			archived bool
		)
		fs.StringVar(&opts.Source, "source", "", "only sessions of this `source` (cli, telegram, ...)")
		fs.Var(&exclude, "exclude-source", "leave out this `source` (repeatable)")
		fs.IntVar(&opts.Limit, "limit", 20, "at most `N` sessions")
		fs.IntVar(&opts.Offset, "offset", 0, "skip the first `N` sessions")
		fs.BoolVar(&all, "all", false, "list every session: archived ones, delegates (subagents), compression continuations and other children too")
		fs.BoolVar(&archived, "archived", false, "list archived sessions only")
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			if err := checkPage(opts.Limit, opts.Offset); err != nil {
				return err
			}
			opts.ExcludeSources = exclude
			opts.IncludeChildren, opts.IncludeArchived, opts.ArchivedOnly = all, all, archived
			return withStore(ctx, e, true, func(s *store.Store) error {
				rows, err := s.ListSessionsRich(ctx, opts)
				if err != nil {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, rows)
				}
				flags, err := listFlags(ctx, s, rows)
				if err != nil {
					return err
				}
				return printSessionList(e, rows, flags)
			})
		}
	},
}

// listFlags returns the flags of each row (see sessionFlags). A row the
// list shows in place of its compression root (LineageRootID set) is
// flagged as its root is.
func listFlags(ctx context.Context, s *store.Store, rows []store.RichSession) ([][]string, error) {
	sessions := make([]*store.Session, len(rows))
	known := map[string]*store.Session{}
	for i := range rows {
		sessions[i] = &rows[i].Session
		if rows[i].LineageRootID == "" {
			known[rows[i].ID] = sessions[i]
		}
	}
	parents, err := parentsOf(ctx, s, sessions, known)
	if err != nil {
		return nil, err
	}
	flags := make([][]string, len(rows))
	for i, r := range sessions {
		flags[i] = sessionFlags(r, parentOf(r, parents))
	}
	return flags, nil
}

// printSessionList prints the list as a table, with a FLAGS column when a
// row has flags. An empty list prints nothing on standard output, for
// scripts, and "No sessions found." on standard error when that is a
// terminal.
func printSessionList(e *env, rows []store.RichSession, flags [][]string) error {
	if len(rows) == 0 {
		sayNothing(e, "No sessions found.")
		return nil
	}
	flagged := slices.ContainsFunc(flags, func(f []string) bool { return len(f) > 0 })
	var t table
	header := []string{"ID", "TITLE", "PREVIEW", "LAST ACTIVE", "MSGS", "SOURCE", "MODEL"}
	if flagged {
		header = append(header, "FLAGS")
	}
	t.row(header...)
	for i, r := range rows {
		cells := []string{cell(r.ID), cell(deref(r.Title)), cell(r.Preview), localTime(r.LastActive, minuteLayout),
			formatInt(r.MessageCount), cell(r.Source), cell(deref(r.Model))}
		if flagged {
			cells = append(cells, cell(strings.Join(flags[i], ",")))
		}
		t.row(cells...)
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
