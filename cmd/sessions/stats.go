package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// statsCommand is "sessions stats": where the tokens and the money went.
var statsCommand = command{
	name:    "stats",
	args:    "[--by model|source] [--top N]",
	summary: "Token, call and cost totals by model (per-model usage) or by source, and the sessions with the most tokens (those with none left out)",
	setup: func(fs *flag.FlagSet) action {
		by := fs.String("by", "model", "group the totals by `model` (what each model was used for, a session that switched models counting under each) or source")
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
					res.Totals, err = s.UsageByModel(ctx, store.UsageOptions{})
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
	// By is "model" or "source": what the totals are of.
	By string `json:"by"`
	// Totals is []store.ModelUsageTotal by model (keys model, sessions,
	// api_call_count, the five token counts, estimated_cost_usd,
	// actual_cost_usd), []store.TokenStats by source (keys key, sessions,
	// input_tokens, output_tokens, estimated_cost_usd).
	Totals any                `json:"totals"`
	Top    []store.TopSession `json:"top"`
}

// printStats prints the totals and the top sessions as two tables; a table
// without rows is left out.
func printStats(e *env, res statsJSON) error {
	var t table
	switch totals := res.Totals.(type) {
	case []store.ModelUsageTotal:
		if len(totals) > 0 {
			t.row("MODEL", "SESSIONS", "CALLS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "REASONING", "EST. COST", "ACTUAL COST")
		}
		for _, u := range totals {
			t.row(cell(u.Model), formatInt(u.Sessions), formatInt(u.APICallCount), formatInt(u.InputTokens), formatInt(u.OutputTokens),
				formatInt(u.CacheReadTokens), formatInt(u.CacheWriteTokens), formatInt(u.ReasoningTokens),
				dollars(u.EstimatedCostUSD), dollars(u.ActualCostUSD))
		}
	case []store.TokenStats:
		if len(totals) > 0 {
			t.row("SOURCE", "SESSIONS", "INPUT", "OUTPUT", "EST. COST")
		}
		for _, s := range totals {
			t.row(cell(s.Key), formatInt(s.Sessions), formatInt(s.InputTokens), formatInt(s.OutputTokens), dollars(s.CostUSD))
		}
	}
	if err := t.write(e.stdout); err != nil {
		return err
	}
	if len(res.Top) > 0 {
		if len(t.rows) > 0 {
			fmt.Fprintln(e.stdout)
		}
		var t table
		t.row("ID", "TOKENS", "EST. COST", "MODEL", "TITLE")
		for _, s := range res.Top {
			cost := "-"
			if s.CostUSD != nil {
				cost = dollars(*s.CostUSD)
			}
			t.row(s.ID, formatInt(s.Tokens), cost, cell(deref(s.Model)), cell(deref(s.Title)))
		}
		return t.write(e.stdout)
	}
	return nil
}

// dollars formats an amount in US dollars to four decimals ($0.0123); an
// amount of a billion or more, which only a damaged value reaches, in four
// significant digits ($1.798e+308).
func dollars(v float64) string {
	if math.Abs(v) >= 1e9 {
		return fmt.Sprintf("$%.4g", v)
	}
	return fmt.Sprintf("$%.4f", v)
}
