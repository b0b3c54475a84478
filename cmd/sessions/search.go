package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// searchCommand is "sessions search": the original's search_messages.
var searchCommand = command{
	name:    "search",
	args:    "[--source S]... [--exclude-source S]... [--role R]... [--sort newest|oldest] [--all] [--limit N] [--offset N] QUERY",
	summary: "Search messages (words, \"phrases\", prefix*, AND/OR/NOT; CJK too) with snippets and context",
	setup: func(fs *flag.FlagSet) action {
		var (
			opts                    store.SearchOptions
			sources, exclude, roles stringList
			sort                    string
		)
		fs.Var(&sources, "source", "only sessions of this `source` (repeatable)")
		fs.Var(&exclude, "exclude-source", "leave out sessions of this `source` (repeatable)")
		fs.Var(&roles, "role", "only messages of this `role`: user, assistant, tool, ... (repeatable)")
		fs.IntVar(&opts.Limit, "limit", 20, "at most `N` results")
		fs.IntVar(&opts.Offset, "offset", 0, "skip the first `N` results")
		fs.StringVar(&sort, "sort", "", "order the results by time, `newest` or oldest first, instead of best match first")
		fs.BoolVar(&opts.IncludeInactive, "all", false, "find rewound messages too (compacted ones are always found)")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("needs a query")
			}
			if err := checkPage(opts.Limit, opts.Offset); err != nil {
				return err
			}
			switch sort {
			case "":
			case "newest":
				opts.Order = store.SearchNewest
			case "oldest":
				opts.Order = store.SearchOldest
			default:
				return cli.Usagef("--sort must be newest or oldest, got %q", sort)
			}
			opts.Sources, opts.ExcludeSources, opts.Roles = sources, exclude, roles
			query := strings.Join(args, " ")
			return withStore(ctx, e, true, func(s *store.Store) error {
				hits, err := s.SearchMessages(ctx, query, opts)
				if err != nil {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, hits)
				}
				printSearchResults(e, hits)
				return nil
			})
		}
	},
}

// printSearchResults prints each hit as a block: where it is, the snippet,
// then the surrounding messages (the match is among them), one line each.
// No hits print nothing on standard output, and "No matches." on standard
// error when that is a terminal.
func printSearchResults(e *env, hits []store.SearchResult) {
	if len(hits) == 0 {
		sayNothing(e, "No matches.")
	}
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		where := []string{h.SessionID, "#" + strconv.FormatInt(h.ID, 10), h.Role, localTime(h.Timestamp, minuteLayout), h.Source}
		if h.Model != nil {
			where = append(where, *h.Model)
		}
		if h.ToolName != nil {
			where = append(where, "tool "+*h.ToolName)
		}
		fmt.Fprintln(e.stdout, strings.Join(where, "  "))
		if snippet := oneLineText(deref(h.Snippet)); snippet != "" {
			fmt.Fprintf(e.stdout, "  %s\n", snippet)
		}
		for _, c := range h.Context {
			fmt.Fprintf(e.stdout, "  | %s: %s\n", c.Role, oneLineText(c.Content))
		}
	}
}

// oneLineText folds every run of white space (line breaks included) in s to
// one space.
func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
