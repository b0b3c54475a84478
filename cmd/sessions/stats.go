package main

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// statsCommand is "sessions stats": where the tokens and the money went.
var statsCommand = command{
	name:    "stats",
	args:    "[--by model|source] [--top N]",
	summary: "Token and estimated-cost totals by model or source, and the sessions with the most tokens (those with none left out)",
	setup: func(fs *flag.FlagSet) action {
		by := fs.String("by", "model", "group the totals by `model` or source")
		top := fs.Int("top", 10, "list the `N` sessions with the most tokens (0: none)")
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			if *by != "model" && *by != "source" {
				return cli.Usagef("--by must be model or source, got %q", *by)
			}
			if *top < 0 {
				return cli.Usagef("--top must not be negative, got %d", *top)
			}
			return withStore(ctx, e, true, func(s *store.Store) error {
				res := statsJSON{By: *by}
				var err error
				if *by == "model" {
					res.Totals, err = s.TokenStatsByModel(ctx)
				} else {
					res.Totals, err = s.TokenStatsBySource(ctx)
				}
				if err != nil {
					return err
				}
				top, err := s.TopSessionsByTokens(ctx, *top)
				if err != nil {
					return err
				}
				// A session that used no tokens is not a top session.
				res.Top = slices.DeleteFunc(top, func(t store.TopSession) bool { return t.Tokens == 0 })
				if e.json {
					return writeJSON(e.stdout, res)
				}
				return printStats(e, res)
			})
		}
	},
}

// statsJSON is stats's --json output.
type statsJSON struct {
	// By is "model" or "source": what each total's key is.
	By     string             `json:"by"`
	Totals []store.TokenStats `json:"totals"`
	Top    []store.TopSession `json:"top"`
}

// printStats prints the totals and the top sessions as two tables; a table
// without rows is left out.
func printStats(e *env, res statsJSON) error {
	if len(res.Totals) > 0 {
		var t table
		t.row(map[string]string{"model": "MODEL", "source": "SOURCE"}[res.By], "SESSIONS", "INPUT", "OUTPUT", "EST. COST")
		for _, s := range res.Totals {
			t.row(cell(s.Key), formatInt(s.Sessions), formatInt(s.InputTokens), formatInt(s.OutputTokens), fmt.Sprintf("$%.4f", s.CostUSD))
		}
		if err := t.write(e.stdout); err != nil {
			return err
		}
	}
	if len(res.Top) > 0 {
		if len(res.Totals) > 0 {
			fmt.Fprintln(e.stdout)
		}
		var t table
		t.row("ID", "TOKENS", "EST. COST", "MODEL", "TITLE")
		for _, s := range res.Top {
			cost := "-"
			if s.CostUSD != nil {
				cost = fmt.Sprintf("$%.4f", *s.CostUSD)
			}
			t.row(s.ID, formatInt(s.Tokens), cost, cell(deref(s.Model)), cell(deref(s.Title)))
		}
		return t.write(e.stdout)
	}
	return nil
}
